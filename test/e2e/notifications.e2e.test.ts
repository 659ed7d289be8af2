// Notification providers against a real SMTP server (smtp-server, AUTH checked, STARTTLS on 587
// and implicit TLS on 465 with a self-signed certificate trusted through caCert) and real HTTP
// receivers. Node downtime and recovery are appended to the server's event store as the health
// monitor records them; the notifications saga of the running server sends them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { adminAuth, basic, call, startServer, type TestServer } from '../helpers/server.ts';
import { selfSignedCertificate, startMailServer, type MailServer } from '../helpers/mail.ts';
import { startReceiver, type Receiver } from '../helpers/webhookReceiver.ts';
import { postgresEventStore } from '../../adapters/eventstore/postgresEventStore.ts';
import type { EventStore } from '../../domain/shared/eventStore.ts';
import { killLeftoverNodes, pidOf } from './evm/evmLifecycle.ts';

const t = suite('notification providers end to end');
// A loopback address of its own, so ports 465 and 587 do not collide with anything on 127.0.0.1.
const HOST = `127.${10 + Math.floor(Math.random() * 200)}.${1 + Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
const SMTP_USER = 'notifier@lnm.test';
const SMTP_PASSWORD = 'smtp-pass-e2e-7d2b41';
const HOOK_SECRET = 'notify-hook-secret-e2e-93ac';
const PW = 'correct-horse-battery';
let server: TestServer;
let smtp587: MailServer;
let smtp465: MailServer;
let cert: { key: string; cert: string };
let pool: pg.Pool;
let store: EventStore;
const responses: string[] = [];

const until = async (what: string, cond: () => boolean | Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`not in time: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};
async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = adminAuth()) {
  const r = await call(server.api, method, path, { headers, ...(body === undefined ? {} : { body }) });
  responses.push(r.text);
  return r;
}
const smtpConfig = (port: number, password = SMTP_PASSWORD) => ({ host: HOST, port, username: SMTP_USER, password, from: 'lnm@lnm.test', caCert: cert.cert });

async function nodeEvent(type: 'NodeDowntime' | 'NodeRecovered', nodeId: number, data: Record<string, unknown>) {
  await store.append(`evm-node-${nodeId}`, 'any', [{ id: randomUUID(), type, data: { nodeId, ...data } as never }], { timestamp: new Date().toISOString(), actor: null });
}

t.before(async () => {
  cert = selfSignedCertificate(HOST);
  smtp587 = await startMailServer({ host: HOST, port: 587, secure: false, user: SMTP_USER, password: SMTP_PASSWORD, ...cert });
  smtp465 = await startMailServer({ host: HOST, port: 465, secure: true, user: SMTP_USER, password: SMTP_PASSWORD, ...cert });
  // The resource monitor and the slow-query watch run here, as in production.
  server = await startServer({ env: { LNM_ALLOW_PRIVATE_TARGETS: 'true', LNM_SERVICE_TAG: 'LNM-E2E', LNM_RESOURCE_MONITOR: 'true' } });
  pool = new pg.Pool({ connectionString: server.databaseUrl!, max: 2 });
  store = postgresEventStore(pool, { url: server.databaseUrl! });
  for (const [username, role] of [['nv-viewer', 'VIEWER'], ['nv-operator', 'OPERATOR']]) assert.is((await api('POST', '/users', { username, password: PW, role })).status, 201);
});

t.after(async () => {
  if (server) killLeftoverNodes(server.dataDir);
  await store?.close();
  await pool?.end();
  await smtp587?.close();
  await smtp465?.close();
});

t('SMTP on 587 (STARTTLS) and 465 (implicit TLS): the test email arrives, authenticated and encrypted, with the service tag in the subject', async () => {
  for (const [port, mail] of [[587, smtp587], [465, smtp465]] as const) {
    const p = await api('POST', '/notifications/providers', { type: 'SMTP', name: `mail-${port}`, config: smtpConfig(port), notifyNodeDowntime: false });
    assert.is(p.status, 201, p.text);
    assert.is(p.json.config.hasPassword, true);
    assert.not.ok('password' in p.json.config);
    const r = await api('POST', `/notifications/providers/${p.json.id}/test`, { testEmail: 'ops@lnm.test' });
    assert.is(r.status, 200, r.text);
    assert.is(r.json.status, 'success', r.json.message);
    assert.is(mail.received.length, 1);
    const m = mail.received[0];
    assert.is(m.user, SMTP_USER, 'AUTH checked by the server');
    assert.is(m.secure, true, `port ${port} spoke TLS`);
    assert.equal(m.to, ['ops@lnm.test']);
    assert.is(m.subject, `[LNM-E2E] Test notification from mail-${port}`);
    assert.match(m.text, `Provider: mail-${port}`);
    assert.match(m.html, `<h2>Test notification from mail-${port}</h2>`);
    const after = await api('GET', `/notifications/providers/${p.json.id}`);
    assert.is(after.json.lastTestStatus, 'success');
    assert.is(after.json.lastTestedAt, r.json.testedAt);
  }
});

t('SMTP on 25 is plain unless tls asks for STARTTLS, which a server without it then fails with a reason', async () => {
  const smtp25 = await startMailServer({ host: HOST, port: 25, secure: false, plain: true, user: SMTP_USER, password: SMTP_PASSWORD, ...cert });
  try {
    const plain = await api('POST', '/notifications/providers', { type: 'SMTP', name: 'relay-25', config: smtpConfig(25), notifyNodeDowntime: false });
    assert.is(plain.status, 201, plain.text);
    const r = await api('POST', `/notifications/providers/${plain.json.id}/test`, {});
    assert.is(r.json.status, 'success', r.json.message);
    assert.equal([smtp25.received.length, smtp25.received[0].secure, smtp25.received[0].user], [1, false, SMTP_USER]);
    const tls = await api('POST', '/notifications/providers', { type: 'SMTP', name: 'relay-25-tls', config: { ...smtpConfig(25), tls: true }, notifyNodeDowntime: false });
    const t2 = await api('POST', `/notifications/providers/${tls.json.id}/test`, {});
    assert.is(t2.json.status, 'failed');
    assert.match(t2.json.message, /STARTTLS/i, t2.json.message);
    assert.is(smtp25.received.length, 1, 'nothing sent in clear when TLS was asked for');
    for (const id of [plain.json.id, tls.json.id]) await api('DELETE', `/notifications/providers/${id}`);
  } finally {
    await smtp25.close();
  }
});

t('a wrong password: the test answers 200 with status failed and the server\'s own reason, kept as lastTestStatus', async () => {
  const p = await api('POST', '/notifications/providers', { type: 'SMTP', name: 'wrong-password', config: smtpConfig(587, 'not-the-password'), notifyNodeDowntime: false });
  assert.is(p.status, 201, p.text);
  const before = smtp587.received.length;
  const r = await api('POST', `/notifications/providers/${p.json.id}/test`, {});
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'failed');
  assert.match(r.json.message, /535 Invalid username or password/);
  assert.is(smtp587.received.length, before);
  const after = await api('GET', `/notifications/providers/${p.json.id}`);
  assert.is(after.json.lastTestStatus, 'failed');
  assert.match(after.json.lastTestMessage, /535/);
  // Fixed by PUT: the new password replaces the old one, the rest is kept.
  const fixed = await api('PUT', `/notifications/providers/${p.json.id}`, { config: { password: SMTP_PASSWORD } });
  assert.is(fixed.status, 200, fixed.text);
  assert.is(fixed.json.config.host, HOST);
  assert.is((await api('POST', `/notifications/providers/${p.json.id}/test`, {})).json.status, 'success');
  assert.is(smtp587.received.at(-1)!.to[0], 'lnm@lnm.test', 'no recipients: the from address');
  await api('DELETE', `/notifications/providers/${p.json.id}`);
});

t('node downtime and recovery reach the providers whose switch is on, by email and by signed webhook in each format', async () => {
  const rx: Receiver = await startReceiver({ secret: HOOK_SECRET, signatureHeader: 'x-signature-256' });
  const mail = await api('POST', '/notifications/providers', { type: 'SMTP', name: 'oncall-mail', config: { ...smtpConfig(465), recipients: ['oncall@lnm.test', 'lead@lnm.test'] }, notifyNodeDowntime: true });
  assert.is(mail.status, 201, mail.text);
  for (const format of ['GENERIC', 'SLACK', 'DISCORD']) {
    const p = await api('POST', '/notifications/providers', { type: 'WEBHOOK', name: `hook-${format}`, config: { url: `${rx.url}/${format}`, format, secret: HOOK_SECRET, timeout: 5, customHeaders: { 'X-Team': 'ops' } }, notifyNodeDowntime: true });
    assert.is(p.status, 201, p.text);
    assert.is(p.json.config.hasSecret, true);
    assert.equal(p.json.config.customHeaders, { 'X-Team': '********' }, 'header values are write-only');
  }
  const off = await api('POST', '/notifications/providers', { type: 'WEBHOOK', name: 'switched-off', config: { url: `${rx.url}/OFF`, format: 'GENERIC' }, notifyNodeDowntime: false });
  assert.is(off.status, 201);
  const mails465 = smtp465.received.length;
  const downAt = new Date(Date.now() - 65_000).toISOString();
  await nodeEvent('NodeDowntime', 4242, { nodeName: 'validator-7', nodeType: 'validator', lastHealthyAt: new Date(Date.now() - 95_000).toISOString(), consecutiveFailures: 3, reason: 'connection refused on 127.0.0.1:8545', at: downAt });
  await until('downtime delivered', () => smtp465.received.length === mails465 + 1 && rx.received.length === 3);
  const m = smtp465.received.at(-1)!;
  assert.equal(m.to.sort(), ['lead@lnm.test', 'oncall@lnm.test']);
  assert.is(m.subject, '[LNM-E2E] Node validator-7 is down');
  for (const part of [m.text, m.html]) {
    assert.match(part, 'validator-7');
    assert.match(part, downAt);
    assert.match(part, 'connection refused on 127.0.0.1:8545');
  }
  assert.match(m.text, 'Failed health checks: 3');
  const by = Object.fromEntries(rx.received.map((q) => [q.path.slice(1), q]));
  assert.not.ok(by.OFF, 'a provider with notifyNodeDowntime off gets nothing');
  for (const q of rx.received) {
    assert.is(q.signatureValid, true, `${q.path}: X-Signature-256 verified in constant time over the raw body`);
    assert.is(q.headers['x-team'], 'ops');
  }
  const g = by.GENERIC.json;
  assert.equal(Object.keys(g).sort(), ['data', 'eventId', 'eventType', 'severity', 'source', 'timestamp']);
  assert.equal([g.eventType, g.severity, g.source.nodeId], ['NODE_DOWNTIME', 'CRITICAL', 4242]);
  assert.ok(g.source.instanceId && g.source.version);
  assert.equal([g.data.nodeName, g.data.nodeType, g.data.downSince, g.data.error], ['validator-7', 'validator', downAt, 'connection refused on 127.0.0.1:8545']);
  assert.match(by.SLACK.json.text, 'Node validator-7 is down');
  assert.ok(by.SLACK.json.attachments[0].fields.some((f: any) => f.title === 'Error' && f.value.includes('connection refused')));
  assert.match(by.DISCORD.json.content, 'Node validator-7 is down');
  assert.is(by.DISCORD.json.embeds[0].color, 0xd32f2f);

  const recoveredAt = new Date(Date.parse(downAt) + 65_000).toISOString();
  await nodeEvent('NodeRecovered', 4242, { nodeName: 'validator-7', nodeType: 'validator', downSince: downAt, at: recoveredAt });
  await until('recovery delivered', () => smtp465.received.length === mails465 + 2 && rx.received.length === 6);
  const rm = smtp465.received.at(-1)!;
  assert.is(rm.subject, '[LNM-E2E] Node validator-7 recovered');
  assert.match(rm.text, `Down since: ${downAt}`);
  assert.match(rm.text, `Recovered at: ${recoveredAt}`);
  assert.match(rm.text, 'Downtime: 1 min 5 s');
  const gr = rx.received.slice(3).find((q) => q.path === '/GENERIC')!.json;
  assert.equal([gr.eventType, gr.severity, gr.data.downtimeSeconds], ['NODE_RECOVERY', 'SUCCESS', 65]);
  await rx.close();
});

t('an anvil node: its blocks reach a webhook subscribed to them; killed with SIGKILL, the downtime email and the outbound webhook arrive; after a restart, the recovery', async () => {
  const rx = await startReceiver({ secret: HOOK_SECRET });
  assert.is((await api('POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 2 })).status, 200);
  const hook = await api('POST', '/webhooks', { name: 'node-watch', url: `${rx.url}/outbound`, secret: HOOK_SECRET, events: ['node.downtime', 'node.recovery', 'blockchain.block.received'] });
  assert.is(hook.status, 201, hook.text);
  const mailsBefore = smtp465.received.length;
  let r = await api('POST', '/networks', { name: 'notify-anvil', type: 'evm', genesis: { chain_id: 31977, consensus: 'QBFT', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  const networkId = r.json.id;
  r = await api('POST', `/networks/${networkId}/start`);
  const node = r.json.nodes[0];
  assert.is(node.status, 'running', r.text);
  // Subscribed to blocks: the block feed records the chain's new blocks and they are delivered.
  await until('two blocks delivered', () => rx.received.filter((q) => q.json?.event === 'blockchain.block.received').length >= 2, 30_000);
  const blocks = rx.received.filter((q) => q.json?.event === 'blockchain.block.received').map((q) => q.json.data);
  assert.is(blocks[0].networkId, networkId);
  assert.ok(blocks[1].blockNumber > blocks[0].blockNumber, JSON.stringify(blocks));
  assert.match(blocks[0].blockHash, /^0x[0-9a-f]{64}$/);
  process.kill(pidOf(server, node.id)!, 'SIGKILL');
  await until('downtime email and outbound webhook', () => smtp465.received.length > mailsBefore && rx.received.some((q) => q.json?.event === 'node.downtime'), 60_000);
  const m = smtp465.received.at(-1)!;
  assert.is(m.subject, `[LNM-E2E] Node ${node.name} is down`);
  assert.match(m.text, `Node: ${node.name} (id ${node.id})`);
  assert.match(m.text, 'Error: ');
  const out = rx.received.find((q) => q.json?.event === 'node.downtime')!;
  assert.is(out.signatureValid, true);
  assert.equal([out.json.severity, out.json.category, out.json.data.nodeId, out.json.data.nodeName], ['critical', 'Node', node.id, node.name]);
  assert.type(out.json.data.consecutiveFailures, 'number');
  r = await api('POST', `/nodes/${node.id}/restart`);
  assert.is(r.json.status, 'running', r.text);
  await until('recovery email and webhook', () => smtp465.received.some((x) => x.subject === `[LNM-E2E] Node ${node.name} recovered`) && rx.received.some((q) => q.json?.event === 'node.recovery'), 60_000);
  assert.is((await api('DELETE', `/networks/evm/${networkId}`)).status, 204);
  assert.is((await api('DELETE', `/webhooks/${hook.json.id}`)).status, 204);
  await rx.close();
});

t('a disk space warning goes only to providers with notifyDiskSpaceWarning on', async () => {
  const rx = await startReceiver();
  for (const [name, on] of [['disk-on', true], ['disk-off', false]] as const) {
    assert.is((await api('POST', '/notifications/providers', { type: 'WEBHOOK', name, config: { url: `${rx.url}/${name}` }, notifyNodeDowntime: false, notifyDiskSpaceWarning: on })).status, 201);
  }
  await store.append('system-resource-alerts', 'any', [{ id: randomUUID(), type: 'DiskSpaceWarningRaised', data: { usedPercent: 93, thresholdPercent: 90, path: '/srv/lnm', freeBytes: 2 ** 30, totalBytes: 2 ** 34, at: new Date().toISOString() } }], { timestamp: new Date().toISOString(), actor: null });
  await until('disk warning delivered', () => rx.received.length === 1);
  await new Promise((r) => setTimeout(r, 1000));
  assert.is(rx.received.length, 1);
  assert.is(rx.received[0].path, '/disk-on');
  assert.equal([rx.received[0].json.eventType, rx.received[0].json.severity, rx.received[0].json.data.usedPercent, rx.received[0].json.data.path], ['DISK_SPACE_WARNING', 'WARNING', 93, '/srv/lnm']);
  await rx.close();
});

t('a webhook provider test reports the receiver\'s failure; private targets and bad configurations are 400, never 500', async () => {
  const rx = await startReceiver();
  rx.respond = 502;
  const p = await api('POST', '/notifications/providers', { type: 'WEBHOOK', name: 'failing-hook', config: { url: rx.url, format: 'SLACK' } });
  const r = await api('POST', `/notifications/providers/${p.json.id}/test`, {});
  assert.is(r.status, 200);
  assert.is(r.json.status, 'failed');
  assert.match(r.json.message, /HTTP 502/);
  assert.is((await api('GET', `/notifications/providers/${p.json.id}`)).json.lastTestStatus, 'failed');
  for (const body of [
    { type: 'SMTP', name: 'x', config: { ...smtpConfig(2525) } },
    { type: 'SMTP', name: 'x', config: { host: HOST, port: 587, username: 'u', from: 'not-an-email', password: 'p' } },
    { type: 'SMTP', name: 'x', config: { host: HOST, port: 587, username: 'u', from: 'a@b.test' } },
    { type: 'WEBHOOK', name: 'x', config: { url: rx.url, format: 'TEAMS' } },
    { type: 'WEBHOOK', name: 'x', config: { url: 'gopher://x' } },
    { type: 'PAGER', name: 'x', config: {} },
  ]) {
    const bad = await api('POST', '/notifications/providers', body);
    assert.is(bad.status, 400, `${JSON.stringify(body)}: ${bad.text}`);
    assert.is(bad.json.code, 'VALIDATION_FAILED');
  }
  assert.is((await api('PUT', `/notifications/providers/${p.json.id}`, { type: 'SMTP' })).status, 400);
  assert.is((await api('POST', '/notifications/providers', { type: 'WEBHOOK', name: 'failing-hook', config: { url: rx.url } })).status, 409);
  await rx.close();
});

t('VIEWER cannot read providers, OPERATOR reads but cannot change or test them', async () => {
  const viewer = { authorization: basic('nv-viewer', PW) };
  const operator = { authorization: basic('nv-operator', PW) };
  assert.is((await api('GET', '/notifications/providers', undefined, viewer)).status, 403);
  assert.is((await api('GET', '/notifications/providers', undefined, operator)).status, 200);
  assert.is((await api('POST', '/notifications/providers', { type: 'SMTP', name: 'op', config: smtpConfig(587) }, operator)).status, 403);
  assert.is((await api('POST', '/notifications/providers/1/test', {}, operator)).status, 403);
});

t('passwords and secrets never appear in a response or in the server output', async () => {
  const all = await api('GET', '/notifications/providers?limit=100');
  assert.ok(all.json.total >= 8);
  responses.push((await api('GET', '/audit/logs?limit=200')).text);
  for (const secret of [SMTP_PASSWORD, HOOK_SECRET]) {
    assert.not.ok(responses.some((r) => r.includes(secret)), `${secret} in a response`);
    assert.not.ok(server.output().includes(secret), `${secret} in the server output`);
  }
  const row = await pool.query("SELECT string_agg(data::text, '') AS all FROM events WHERE type LIKE 'NotificationProvider%'");
  assert.not.ok(row.rows[0].all.includes(SMTP_PASSWORD), 'sealed in the event store');
});

t.run();
