// Outbound webhooks driven over HTTP against the server as a child process, with real HTTP
// receivers on loopback: catalog and validation, roles, signatures, a receiver that is down for a
// while, a service killed in the middle of a fan-out, exhausted deliveries and replay, disable
// after consecutive failures and re-enable, test sends, secrets kept out of responses and logs.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { adminAuth, basic, call, startServer, type TestServer } from '../helpers/server.ts';
import { startReceiver, type Receiver } from '../helpers/webhookReceiver.ts';

const t = suite('outbound webhooks end to end');
const SECRET = 'whsec-e2e-signing-secret-4f1c9a';
const PW = 'correct-horse-battery';
let server: TestServer;
let subjectId: number;
let flips = 0;

const until = async (what: string, cond: () => Promise<boolean> | boolean, ms = 30_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`not in time: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** One security.user.role_changed event per call. */
async function emit(n = 1, s: TestServer = server): Promise<void> {
  for (let i = 0; i < n; i++) {
    const role = flips++ % 2 === 0 ? 'OPERATOR' : 'VIEWER';
    const r = await call(s.api, 'PUT', `/users/${subjectId}/role`, { headers: adminAuth(), body: { role } });
    assert.is(r.status, 200, r.text);
  }
}

async function createHook(body: Record<string, unknown>, s: TestServer = server) {
  const r = await call(s.api, 'POST', '/webhooks', { headers: adminAuth(), body: { events: ['security.user.role_changed'], secret: SECRET, ...body } });
  assert.is(r.status, 201, r.text);
  return r.json;
}

const deliveries = async (id: number, s: TestServer = server) => (await call(s.api, 'GET', `/webhooks/${id}/deliveries?limit=500`, { headers: adminAuth() })).json;
const ids = (rx: Receiver) => rx.received.map((q) => q.json?.id as string);

t.before(async () => {
  server = await startServer({ env: { LNM_ALLOW_PRIVATE_TARGETS: 'true' } });
  const r = await call(server.api, 'POST', '/users', { headers: adminAuth(), body: { username: 'role-flipper', password: PW, role: 'VIEWER' } });
  assert.is(r.status, 201, r.text);
  subjectId = r.json.id;
  for (const [username, role] of [['whv-viewer', 'VIEWER'], ['whv-operator', 'OPERATOR']]) {
    assert.is((await call(server.api, 'POST', '/users', { headers: adminAuth(), body: { username, password: PW, role } })).status, 201);
  }
});

t('the catalog lists every event type of SPEC with category, severity, description and data shape, 50 or more', async () => {
  const r = await call(server.api, 'GET', '/webhooks/events', { headers: adminAuth() });
  assert.is(r.status, 200, r.text);
  assert.ok(r.json.total >= 50, `total ${r.json.total}`);
  const names = r.json.events.map((e: any) => e.name);
  for (const n of ['system.disk_space.warning', 'system.s3.connection_issue', 'backup.success', 'backup.failure', 'backup.scheduled', 'node.created', 'node.started', 'node.stopped', 'node.deleted', 'node.downtime', 'node.recovery', 'node.config_changed', 'blockchain.block.received', 'blockchain.transaction.committed', 'blockchain.chaincode.deployed', 'blockchain.chaincode.upgraded', 'blockchain.chaincode.invoked', 'network.created', 'network.updated', 'network.deleted', 'network.channel.created', 'network.organization.joined', 'network.anchor_peer.updated', 'certificate.expiring', 'certificate.expired', 'certificate.renewed', 'certificate.auto_renewed', 'certificate.renewal_failed', 'security.unauthorized_access', 'security.api_key.created', 'security.api_key.revoked', 'security.user.role_changed', 'sharing.proposal.received', 'sharing.proposal.shared', 'sharing.signature.received', 'sharing.signature.shared', 'sharing.network.received', 'sharing.network.shared', 'sharing.chaincode.received', 'sharing.chaincode.shared', 'performance.cpu.high', 'performance.memory.high', 'performance.query.slow', 'plugin.installed', 'plugin.enabled', 'plugin.disabled']) {
    assert.ok(names.includes(n), n);
  }
  const downtime = r.json.events.find((e: any) => e.name === 'node.downtime');
  assert.equal([downtime.category, downtime.severity], ['Node', 'critical']);
  for (const f of ['nodeId', 'nodeName', 'nodeType', 'lastHealthyAt', 'consecutiveFailures']) assert.ok(f in downtime.data, f);
});

t('unknown event types, wildcards and bad timeouts are refused with 400 and nothing is created', async () => {
  for (const events of [['node.*'], ['*'], ['node.exploded'], []]) {
    const r = await call(server.api, 'POST', '/webhooks', { headers: adminAuth(), body: { name: 'bad', url: 'http://127.0.0.1:9/x', events } });
    assert.is(r.status, 400, `${events}: ${r.text}`);
    assert.is(r.json.code, 'VALIDATION_FAILED');
  }
  for (const timeoutSeconds of [0, 61]) {
    const r = await call(server.api, 'POST', '/webhooks', { headers: adminAuth(), body: { name: 'bad', url: 'http://127.0.0.1:9/x', events: ['node.created'], timeoutSeconds } });
    assert.is(r.status, 400, r.text);
  }
  const r = await call(server.api, 'POST', '/webhooks', { headers: adminAuth(), body: { name: 'bad', url: 'ftp://127.0.0.1/x', events: ['node.created'] } });
  assert.is(r.status, 400, r.text);
  assert.is((await call(server.api, 'GET', '/webhooks', { headers: adminAuth() })).json.total, 0);
});

t('VIEWER and OPERATOR get 403 on every webhook endpoint', async () => {
  const hook = await createHook({ name: 'roles', url: 'http://127.0.0.1:9/x' });
  for (const who of ['whv-viewer', 'whv-operator']) {
    const h = { authorization: basic(who, PW) };
    for (const [m, p] of [['GET', '/webhooks'], ['POST', '/webhooks'], ['GET', '/webhooks/events'], ['GET', `/webhooks/${hook.id}`], ['PUT', `/webhooks/${hook.id}`], ['DELETE', `/webhooks/${hook.id}`], ['POST', `/webhooks/${hook.id}/test`], ['GET', `/webhooks/${hook.id}/deliveries`], ['POST', `/webhooks/${hook.id}/replay/00000000-0000-4000-8000-000000000000`]]) {
      const r = await call(server.api, m, p, m === 'POST' || m === 'PUT' ? { headers: h, body: {} } : { headers: h });
      assert.is(r.status, 403, `${who} ${m} ${p}: ${r.status}`);
    }
  }
  assert.is((await call(server.api, 'DELETE', `/webhooks/${hook.id}`, { headers: adminAuth() })).status, 204);
});

t('a receiver down for a while gets every event once it is back: signed envelopes, same id on every attempt', async () => {
  const rx = await startReceiver({ secret: SECRET });
  const hook = await createHook({ name: 'flaky-receiver', url: rx.url + '/hook', maxRetries: 5, timeoutSeconds: 2 });
  assert.is(hook.hasSecret, true);
  assert.not.ok('secret' in hook);
  await rx.down();
  await emit(5);
  // Each delivery failed at least once while the receiver was down.
  await until('first attempts fail', async () => (await deliveries(hook.id)).items.filter((d: any) => d.status === 'retrying').length === 5);
  await rx.up();
  await until('all delivered', async () => (await deliveries(hook.id)).items.filter((d: any) => d.status === 'succeeded').length === 5);
  const list = await deliveries(hook.id);
  const eventIds = new Set(list.items.map((d: any) => d.eventId));
  assert.is(eventIds.size, 5);
  for (const id of eventIds) assert.ok(ids(rx).includes(id as string), `event ${id} received`);
  for (const q of rx.received) {
    assert.is(q.signatureValid, true, 'signature verified over the raw body');
    assert.is(q.headers['x-webhook-event'], 'security.user.role_changed');
    assert.ok(q.headers['x-webhook-instance']);
    assert.equal(Object.keys(q.json).sort(), ['category', 'data', 'event', 'id', 'instance', 'severity', 'timestamp']);
    assert.is(q.json.category, 'Security');
    assert.match(q.json.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.is(q.json.data.userId, subjectId);
    assert.is(q.json.data.passwordHash, undefined);
  }
  const d = list.items[0];
  assert.ok(d.attempt >= 2 && d.attempts.length === d.attempt, JSON.stringify(d));
  assert.is(d.attempts[0].responseCode, null);
  assert.ok(d.attempts[0].error);
  assert.is(d.attempts[d.attempts.length - 1].responseCode, 200);
  assert.is((await call(server.api, 'DELETE', `/webhooks/${hook.id}`, { headers: adminAuth() })).status, 204);
  await rx.close();
});

t('the service killed with SIGKILL in the middle of a fan-out and started again loses nothing', async () => {
  const rx = await startReceiver({ secret: SECRET });
  const hooks: any[] = [];
  for (let i = 0; i < 5; i++) hooks.push(await createHook({ name: `fanout-${i}`, url: `${rx.url}/h${i}`, maxRetries: 6 }));
  rx.delayMs = 200;
  await rx.down();
  await emit(3);
  // Mid-retry: the first deliveries have failed and wait for their next attempt ...
  await until('deliveries retrying', async () => (await deliveries(hooks[0].id)).items.some((d: any) => d.status === 'retrying'));
  // ... and mid fan-out: three more events, and the kill right after they are acknowledged.
  await emit(3);
  await server.kill();
  await rx.up();
  server = await startServer({ dataDir: server.dataDir, databaseUrl: server.databaseUrl!, port: server.port, env: { LNM_ALLOW_PRIVATE_TARGETS: 'true' } });
  const expected = 6 * hooks.length;
  await until('every (event, webhook) pair delivered', () => new Set(rx.received.map((q) => `${q.path}|${q.json.id}`)).size === expected, 60_000);
  const perHook = hooks.map((h, i) => new Set(rx.received.filter((q) => q.path === `/h${i}`).map((q) => q.json.id)));
  for (const s of perHook) assert.is(s.size, 6);
  // The same six envelope ids at every webhook: duplicates, if any, carry the same id.
  assert.equal([...perHook[0]].sort(), [...perHook[4]].sort());
  for (const q of rx.received) assert.is(q.signatureValid, true);
  for (const h of hooks) assert.is((await call(server.api, 'DELETE', `/webhooks/${h.id}`, { headers: adminAuth() })).status, 204);
  await rx.close();
});

t('an exhausted delivery is recorded and replayed with the same envelope id', async () => {
  const rx = await startReceiver({ secret: SECRET });
  rx.respond = 500;
  const hook = await createHook({ name: 'exhausts', url: rx.url, maxRetries: 1 });
  await emit(1);
  await until('exhausted', async () => (await deliveries(hook.id)).items[0]?.status === 'exhausted', 20_000);
  const d = (await deliveries(hook.id)).items[0];
  assert.is(d.attempt, 2);
  assert.is(d.responseCode, 500);
  assert.match(d.error, /500/);
  assert.is(d.responseExcerpt, 'receiver says 500');
  assert.is(d.nextRetryAt, null);
  assert.is(rx.received.length, 2);
  const early = await call(server.api, 'POST', `/webhooks/${hook.id}/replay/00000000-0000-4000-8000-000000000000`, { headers: adminAuth() });
  assert.is(early.status, 404);
  rx.respond = 200;
  const r = await call(server.api, 'POST', `/webhooks/${hook.id}/replay/${d.id}`, { headers: adminAuth() });
  assert.is(r.status, 202, r.text);
  await until('replayed', async () => (await deliveries(hook.id)).items[0]?.status === 'succeeded');
  assert.is(rx.received.length, 3);
  assert.is(rx.received[2].json.id, d.eventId);
  assert.is(rx.received[2].json.id, rx.received[0].json.id);
  const again = await call(server.api, 'POST', `/webhooks/${hook.id}/replay/${d.id}`, { headers: adminAuth() });
  assert.is(again.status, 409, 'a succeeded delivery is not replayed');
  assert.is((await call(server.api, 'DELETE', `/webhooks/${hook.id}`, { headers: adminAuth() })).status, 204);
  await rx.close();
});

t('a webhook is disabled after consecutive failed deliveries, re-enabled by PUT, and the count goes on until the first success', async () => {
  const s = await call(server.api, 'POST', '/settings', { headers: adminAuth(), body: { webhookFailureThreshold: 2 } });
  assert.is(s.status, 200, s.text);
  const rx = await startReceiver();
  rx.respond = 503;
  // The default notification provider hears about a disabled webhook.
  const told = await startReceiver();
  const provider = await call(server.api, 'POST', '/notifications/providers', { headers: adminAuth(), body: { type: 'WEBHOOK', name: 'default-notices', isDefault: true, notifyNodeDowntime: false, config: { url: told.url } } });
  assert.is(provider.status, 201, provider.text);
  const hook = await createHook({ name: 'gives-up', url: rx.url, maxRetries: 0 });
  await emit(2);
  await until('disabled', async () => (await call(server.api, 'GET', `/webhooks/${hook.id}`, { headers: adminAuth() })).json.enabled === false);
  let h = (await call(server.api, 'GET', `/webhooks/${hook.id}`, { headers: adminAuth() })).json;
  assert.is(h.consecutiveFailures, 2);
  assert.match(h.disabledReason, /2 consecutive failed deliveries/);
  await until('the default provider is told', () => told.received.length === 1);
  assert.equal([told.received[0].json.eventType, told.received[0].json.data.webhookName, told.received[0].json.data.consecutiveFailures], ['WEBHOOK_DISABLED', 'gives-up', 2]);
  // Disabled: new events are not queued for it.
  await emit(1);
  await new Promise((r) => setTimeout(r, 1500));
  assert.is((await deliveries(hook.id)).total, 2);
  assert.is((await call(server.api, 'PUT', `/webhooks/${hook.id}`, { headers: adminAuth(), body: { enabled: true } })).json.enabled, true);
  // The run did not restart at zero: one more failure disables it again.
  await emit(1);
  await until('disabled again', async () => (await call(server.api, 'GET', `/webhooks/${hook.id}`, { headers: adminAuth() })).json.enabled === false);
  h = (await call(server.api, 'GET', `/webhooks/${hook.id}`, { headers: adminAuth() })).json;
  assert.is(h.consecutiveFailures, 3);
  rx.respond = 200;
  await call(server.api, 'PUT', `/webhooks/${hook.id}`, { headers: adminAuth(), body: { enabled: true } });
  await emit(1);
  await until('success resets the run', async () => (await call(server.api, 'GET', `/webhooks/${hook.id}`, { headers: adminAuth() })).json.consecutiveFailures === 0);
  assert.is((await call(server.api, 'GET', `/webhooks/${hook.id}`, { headers: adminAuth() })).json.enabled, true);
  assert.is((await call(server.api, 'DELETE', `/webhooks/${hook.id}`, { headers: adminAuth() })).status, 204);
  await call(server.api, 'POST', '/settings', { headers: adminAuth(), body: { webhookFailureThreshold: 10 } });
  await call(server.api, 'DELETE', `/notifications/providers/${provider.json.id}`, { headers: adminAuth() });
  await rx.close();
  await told.close();
});

t('test sends one signed synthetic event per subscribed type and reports what the receiver answered, failing or not', async () => {
  const rx = await startReceiver({ secret: SECRET });
  rx.respond = (q) => (q.json?.event === 'node.downtime' ? 418 : 204);
  const hook = await createHook({ name: 'tested', url: rx.url, events: ['node.downtime', 'backup.success'] });
  const r = await call(server.api, 'POST', `/webhooks/${hook.id}/test`, { headers: adminAuth() });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.success, false);
  const byEvent = Object.fromEntries(r.json.results.map((x: any) => [x.event, x]));
  assert.is(byEvent['node.downtime'].statusCode, 418);
  assert.is(byEvent['node.downtime'].success, false);
  assert.is(byEvent['backup.success'].statusCode, 204);
  assert.ok(byEvent['backup.success'].responseTimeMs >= 0);
  assert.is(rx.received.length, 2);
  for (const q of rx.received) {
    assert.is(q.signatureValid, true);
    assert.is(q.json.test, true);
  }
  await rx.down();
  const down = await call(server.api, 'POST', `/webhooks/${hook.id}/test`, { headers: adminAuth() });
  assert.is(down.status, 200, down.text);
  assert.is(down.json.results[0].statusCode, null);
  assert.match(down.json.results[0].error, /ECONNREFUSED/);
  assert.is((await call(server.api, 'DELETE', `/webhooks/${hook.id}`, { headers: adminAuth() })).status, 204);
});

t('the signing secret never appears in a response or in the server output', async () => {
  const secret = 'never-shown-' + Date.now();
  const hook = await createHook({ name: 'secretive', url: 'http://127.0.0.1:9/x', secret });
  const seen = [
    JSON.stringify(hook),
    (await call(server.api, 'GET', `/webhooks/${hook.id}`, { headers: adminAuth() })).text,
    (await call(server.api, 'GET', '/webhooks', { headers: adminAuth() })).text,
    (await call(server.api, 'PUT', `/webhooks/${hook.id}`, { headers: adminAuth(), body: { secret: secret + '-2' } })).text,
    (await call(server.api, 'GET', '/audit/logs?limit=50', { headers: adminAuth() })).text,
  ];
  for (const text of seen) assert.not.ok(text.includes(secret), text.slice(0, 200));
  assert.not.ok(server.output().includes(secret));
  assert.not.ok(server.output().includes(SECRET));
});

t('custom header values are secrets: masked in every answer and the audit log, absent from the event store, delivered in clear; the mask sent back keeps a value', async () => {
  const token = 'Bearer hdr-' + Date.now() + '-s3cr3t';
  const rx = await startReceiver({ secret: SECRET });
  try {
    const hook = await createHook({ name: 'with-credentials', url: `${rx.url}/h`, customHeaders: { Authorization: token, 'X-Team': 'ops' } });
    assert.equal(hook.customHeaders, { Authorization: '********', 'X-Team': '********' });
    const read = await call(server.api, 'GET', `/webhooks/${hook.id}`, { headers: adminAuth() });
    assert.equal(read.json.customHeaders, { Authorization: '********', 'X-Team': '********' });
    await emit();
    await until('delivered', () => rx.received.length === 1);
    assert.is(rx.received[0].headers.authorization, token, 'the receiver gets the real value');

    // Sent back as read (masked), with a changed X-Team: Authorization keeps its value.
    const put = await call(server.api, 'PUT', `/webhooks/${hook.id}`, { headers: adminAuth(), body: { customHeaders: { ...read.json.customHeaders, 'X-Team': 'dev' } } });
    assert.is(put.status, 200, put.text);
    await emit();
    await until('delivered again', () => rx.received.length === 2);
    assert.is(rx.received[1].headers.authorization, token);
    assert.is(rx.received[1].headers['x-team'], 'dev');
    // The mask for a header that was never stored is refused, naming it.
    const bad = await call(server.api, 'PUT', `/webhooks/${hook.id}`, { headers: adminAuth(), body: { customHeaders: { 'X-New': '********' } } });
    assert.is(bad.status, 400, bad.text);
    assert.equal(bad.json.details.map((d: { field: string }) => d.field), ['customHeaders.X-New']);

    const seen = [
      JSON.stringify(hook), read.text, put.text,
      (await call(server.api, 'GET', '/webhooks', { headers: adminAuth() })).text,
      (await call(server.api, 'GET', '/audit/logs?limit=200', { headers: adminAuth() })).text,
    ];
    for (const text of seen) assert.not.ok(text.includes('s3cr3t'), text.slice(0, 300));
    assert.not.ok(server.output().includes('s3cr3t'), 'not in the server output');
    const pg = await import('pg');
    const client = new pg.default.Client({ connectionString: server.databaseUrl! });
    await client.connect();
    try {
      const rows = await client.query(`SELECT count(*)::int AS n FROM events WHERE data::text LIKE '%s3cr3t%'`);
      assert.is(rows.rows[0].n, 0, 'no event holds the value in clear');
      const readModel = await client.query(`SELECT count(*)::int AS n FROM webhooks WHERE custom_headers::text LIKE '%s3cr3t%'`);
      assert.is(readModel.rows[0].n, 0, 'nor the read model');
    } finally {
      await client.end();
    }
  } finally {
    await rx.close();
  }
});

t('without LNM_ALLOW_PRIVATE_TARGETS private targets are refused; the community edition has no webhooks', async () => {
  const strict = await startServer();
  for (const url of ['http://127.0.0.1:8080/x', 'http://localhost/x', 'http://169.254.169.254/latest', 'http://[::1]/x', 'http://10.0.0.8/x']) {
    const r = await call(strict.api, 'POST', '/webhooks', { headers: adminAuth(), body: { name: 'internal', url, events: ['node.created'] } });
    assert.is(r.status, 400, `${url}: ${r.text}`);
    assert.match(r.json.message, /private|loopback/);
    const n = await call(strict.api, 'POST', '/notifications/providers', { headers: adminAuth(), body: { type: 'WEBHOOK', name: 'internal', config: { url } } });
    assert.is(n.status, 400, `${url}: ${n.text}`);
  }
  await strict.stop();
  const community = await startServer({ env: { EDITION: 'community' } });
  for (const [m, p] of [['GET', '/webhooks'], ['GET', '/webhooks/events'], ['POST', '/webhooks']]) {
    const r = await call(community.api, m, p, m === 'POST' ? { headers: adminAuth(), body: { name: 'x', url: 'https://example.com', events: ['node.created'] } } : { headers: adminAuth() });
    assert.is(r.status, 403, `${m} ${p}`);
    assert.is(r.json.code, 'EDITION_REQUIRED');
  }
  const n = await call(community.api, 'POST', '/notifications/providers', { headers: adminAuth(), body: { type: 'WEBHOOK', name: 'x', config: { url: 'https://example.com' } } });
  assert.equal([n.status, n.json.code], [403, 'EDITION_REQUIRED']);
  await community.stop();
});

t.run();
