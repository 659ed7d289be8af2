// A channel's raft consenter set changed through the service on real Fabric 2.5 (a counted skip
// without the programs): a channel of one orderer and a peer of each of two organizations; a
// second orderer made after the channel joins as a follower, pulls the chain and is promoted to
// consenter by a config update (a dry run first shows the diff and submits nothing); removing the
// running consenter while the other is stopped is refused naming rule consenter-quorum; the first
// orderer's TLS certificate renewed leaves the channel holding the old one until the consenter's
// certificate is replaced; the first orderer leaves the channel (removed from the consenters first,
// then through its channel participation API), the last consenter may not; the last consenter's
// renewed certificate may not be put in place either (rule consenter-rotation: Fabric's raft leader
// drops a rotation of its own certificate when no follower can take over). The channel commits a new config block (an
// anchor peer update, from a peer's view) after each change.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requires } from '../../helpers/requirements.ts';
import { apiOf, channelCommits, consortiumEnv, joinedFollower, removeConsortiumNodes, twoOrganizationChannel, until } from './consortiumApi.ts';

const t = requires(suite('channel consenter set changes (real Fabric 2.5)'), 'fabric', fabricMissing);
let server: TestServer;
const api = apiOf(() => server);
let setup: Awaited<ReturnType<typeof twoOrganizationChannel>>;
let orderer1: { id: number; config: { port: number } };
let base: string;

interface Consenter { host: string; port: number; node_id: number | null; consensus_relation: string | null; certificate_current: boolean | null }
const consenters = async (): Promise<{ sequence: number; consenters: Consenter[] }> => {
  const r = await api('GET', `${base}/consenters`);
  assert.is(r.status, 200, r.text);
  return r.json;
};
const height = async () => {
  const r = await api('GET', `/networks/consortium/${setup.network.id}/info`);
  return r.status === 200 ? Number(r.json.height) : null;
};
/** The channel orders: an anchor peer update of Org2 commits a config block a peer then has. */
const commits = channelCommits(api, () => setup.network.id, 'Org2MSP', () => setup.peer2.config.port, height);
async function auditedChanges(): Promise<Array<{ kind: string; nodeId: number }>> {
  const r = await api('GET', '/audit-logs?action=NETWORK_UPDATE&limit=100');
  assert.is(r.status, 200, r.text);
  return r.json.items.map((e: { after: { change?: { kind: string; nodeId: number } } | null }) => e.after?.change).filter((c: unknown) => c);
}

t.before(async () => {
  server = await startServer({ env: consortiumEnv() });
  setup = await twoOrganizationChannel(api, 'govnet', 'govchannel');
  base = `/networks/consortium/${setup.network.id}/channels/govchannel`;
});
t.after(async () => {
  if (!server) return;
  await removeConsortiumNodes(api, server.dataDir);
  await server.stop();
});

t('an orderer made after the channel joins as a follower; a dry run shows the diff and submits nothing; then it is promoted to consenter', async () => {
  orderer1 = await joinedFollower(api, setup.network.id, setup.org1.id);

  const before = await consenters();
  assert.equal(before.consenters.map((c) => c.node_id), [setup.orderer.id]);
  const dry = await api('POST', `${base}/consenters?dry_run=true`, { nodeId: orderer1.id });
  assert.is(dry.status, 200, dry.text);
  assert.is(dry.json.status, 'dry_run');
  assert.is(dry.json.block_number, null);
  const added = dry.json.diff.filter((d: { path: string; before: unknown }) => d.path.endsWith('consenters[]') && d.before === null);
  assert.is(added.length, 1, dry.text);
  assert.is(added[0].after.port, orderer1.config.port);
  assert.ok(dry.json.diff.some((d: { path: string; after: unknown }) => d.path.endsWith('Endpoints.value.addresses[]') && String(d.after).endsWith(`:${orderer1.config.port}`)), dry.text);
  assert.is((await consenters()).sequence, before.sequence, 'a dry run submits nothing');

  const r = await api('POST', `${base}/consenters`, { nodeId: orderer1.id });
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'updated');
  assert.ok(r.json.sequence > before.sequence);
  assert.equal(r.json.diff, dry.json.diff);
  await until('orderer1 to be a consenter', async () => {
    const c = await consenters();
    return c.consenters.length === 2 && c.consenters.find((x) => x.node_id === orderer1.id)?.consensus_relation === 'consenter' ? c : null;
  }, 90_000, 1000);
  assert.equal((await auditedChanges()).filter((c) => c.kind === 'addConsenter').map((c) => c.nodeId), [orderer1.id]);
  await commits('with two consenters');
});

t('removing the running consenter while the other is stopped is refused naming rule consenter-quorum; nothing submitted', async () => {
  assert.is((await api('POST', `/nodes/${orderer1.id}/stop`)).status, 200);
  const before = await consenters();
  const r = await api('DELETE', `${base}/consenters/${setup.orderer.id}`);
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'CONSENTER_QUORUM', r.text);
  assert.match(r.json.message, /Rule consenter-quorum/);
  const after = await consenters();
  assert.is(after.sequence, before.sequence);
  assert.is(after.consenters.length, 2);
  assert.is((await api('POST', `/nodes/${orderer1.id}/start`)).status, 200);
  await commits('after orderer1 is back');
});

t('a TLS renewal leaves the channel holding the old certificate; the consenter\'s certificate replaced, the channel still commits', async () => {
  const renewed = await api('POST', `/nodes/${setup.orderer.id}/certificates/renew`);
  assert.is(renewed.status, 200, renewed.text);
  await until('orderer0 running again', async () => ((await api('GET', `/nodes/${setup.orderer.id}`)).json?.status === 'running' ? true : null), 60_000, 1000);
  const stale = (await consenters()).consenters.find((c) => c.node_id === setup.orderer.id)!;
  assert.is(stale.certificate_current, false, 'the renewal alone leaves the channel on the old certificate');
  const dry = await api('PUT', `${base}/consenters/${setup.orderer.id}/certificate?dry_run=true`);
  assert.is(dry.status, 200, dry.text);
  assert.equal(dry.json.diff.map((d: { before: unknown }) => (d.before === null ? 'added' : 'removed')).sort(), ['added', 'removed'], dry.text);
  const r = await until('the certificate replaced', async () => {
    const x = await api('PUT', `${base}/consenters/${setup.orderer.id}/certificate`);
    if (x.status !== 200 && x.status !== 503) assert.unreachable(x.text);
    return x.status === 200 ? x : null;
  }, 90_000, 2000);
  assert.is(r.json.status, 'updated', r.text);
  const now = await consenters();
  assert.is(now.consenters.find((c) => c.node_id === setup.orderer.id)!.certificate_current, true);
  const again = await api('PUT', `${base}/consenters/${setup.orderer.id}/certificate`);
  assert.is(again.json.status, 'unchanged', again.text);
  await commits('after the certificate rotation');
});

t('orderer0 leaves the channel: removed from the consenters first, then the channel removed through its participation API; orderer1 orders alone', async () => {
  const members = async () => (await api('GET', `/networks/consortium/${setup.network.id}/nodes`)).json.items as Array<{ id: number; networks: Array<{ network_id: number; joined: boolean }> }>;
  const r = await until('orderer0 to leave', async () => {
    const x = await api('POST', `/networks/consortium/${setup.network.id}/orderers/${setup.orderer.id}/leave`);
    if (x.status !== 200 && x.status !== 503) assert.unreachable(x.text);
    return x.status === 200 ? x : null;
  }, 90_000, 2000);
  assert.is(r.json.steps.length, 2, r.text);
  assert.match(r.json.steps[0], /removed from the channel's consenters/);
  assert.match(r.json.steps[1], /channel removed from the orderer through its channel participation API/);
  assert.ok(r.json.consenter_removed.diff.some((d: { path: string; after: unknown; before: { port?: number } }) => d.path.endsWith('consenters[]') && d.after === null && d.before.port === setup.orderer.config.port), r.text);
  const c = await consenters();
  assert.equal(c.consenters.map((x) => x.node_id), [orderer1.id]);
  await commits('with orderer1 alone');
  const joined = (await members()).find((m) => m.id === setup.orderer.id);
  assert.ok(joined, 'orderer0 stays a member');
  assert.is(joined!.networks.find((n) => n.network_id === setup.network.id)?.joined, false, JSON.stringify(joined));
  // The last consenter cannot leave: refused by the rule, nothing done (it stays joined).
  const last = await api('POST', `/networks/consortium/${setup.network.id}/orderers/${orderer1.id}/leave`);
  assert.is(last.status, 409, last.text);
  assert.is(last.json.code, 'LAST_CONSENTER');
  assert.is((await api('DELETE', `${base}/consenters/${orderer1.id}`)).json.code, 'LAST_CONSENTER');
  await commits('after the refused leave');
  const audit = (await api('GET', '/audit-logs?action=NETWORK_UPDATE&limit=100')).json.items as Array<{ details: { event?: string; nodeId?: number } | null }>;
  assert.equal(audit.filter((e) => e.details?.event === 'node.left').map((e) => e.details!.nodeId), [setup.orderer.id]);
  assert.equal((await auditedChanges()).map((x) => x.kind).filter((k) => k.endsWith('Consenter') || k.endsWith('Certificate')).sort(), ['addConsenter', 'removeConsenter', 'replaceConsenterCertificate']);
});

t('the only consenter\'s renewed certificate: replacing it is refused naming rule consenter-rotation (dry run too); nothing submitted, the channel still orders', async () => {
  const renewed = await api('POST', `/nodes/${orderer1.id}/certificates/renew`);
  assert.is(renewed.status, 200, renewed.text);
  await until('orderer1 running again', async () => ((await api('GET', `/nodes/${orderer1.id}`)).json?.status === 'running' ? true : null), 60_000, 1000);
  const before = await consenters();
  assert.equal(before.consenters.map((c) => [c.node_id, c.certificate_current]), [[orderer1.id, false]]);
  for (const path of [`${base}/consenters/${orderer1.id}/certificate?dry_run=true`, `${base}/consenters/${orderer1.id}/certificate`]) {
    const r = await api('PUT', path);
    assert.is(r.status, 409, r.text);
    assert.is(r.json.code, 'CONSENTER_ROTATION', r.text);
    assert.match(r.json.message, /^Rule consenter-rotation: 127\.0\.0\.1:\d+ is the channel's only consenter\./);
    assert.match(r.json.message, 'Add a second consenter first');
  }
  const after = await consenters();
  assert.is(after.sequence, before.sequence, 'nothing submitted');
  assert.equal(after.consenters.map((c) => [c.node_id, c.certificate_current]), [[orderer1.id, false]]);
  assert.equal((await auditedChanges()).filter((x) => x.kind === 'replaceConsenterCertificate').map((x) => x.nodeId), [setup.orderer.id], 'no rotation of orderer1 recorded');
  await commits('after the refused rotation');
});

t.run();
