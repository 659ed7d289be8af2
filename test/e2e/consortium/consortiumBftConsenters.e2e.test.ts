// A BFT channel's consenter set and SmartBFT options changed through the service on real Fabric
// 3.1 orderers and a peer (issue 37 items 3 and 4; a counted skip without a 3.1 release:
// LNM_FABRIC_RELEASES or LNM_FABRIC_BIN). A channel of 4 orderers across 2 organizations and a
// peer; a SmartBFT option (requestBatchMaxInterval) changed, an invalid one refused; a 5th orderer
// joined as a follower pulls the chain and is promoted to consenter (id 5, BlockValidation
// recomputed in the same update, which Fabric checks) and its participation API says consenter;
// with 2 of 5 stopped, removing a running consenter is refused naming the BFT quorum rule; one
// consenter removed; an orderer's certificates renewed leave the channel on the old ones until
// the consenter's certificates are replaced. The channel commits a config block at the peer (an
// anchor peer update) after each change.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { requires } from '../../helpers/requirements.ts';
import { fabric31, fabric31Server, organization, runningNode as node, until } from './consortiumApi.ts';

const t = requires(suite('BFT consenter set and SmartBFT option changes (real Fabric 3.1)'), 'fabric-3', fabric31.skip);
const v31 = fabric31.version;
const { api } = fabric31Server(t);

const orderers: any[] = [];
let peer: any;
let network: any;
let fifth: any;
let base: string;

interface Consenter { host: string; port: number; bft_id: number | null; node_id: number | null; consensus_relation: string | null; certificate_current: boolean | null }
const consenters = async (): Promise<{ sequence: number; consenters: Consenter[] }> => {
  const r = await api('GET', `${base}/consenters`);
  assert.is(r.status, 200, r.text);
  return r.json;
};
const height = async () => {
  const r = await api('GET', `/networks/consortium/${network.id}/info`);
  return r.status === 200 ? Number(r.json.height) : null;
};
let anchorToggle = 0;
/** The channel orders: an anchor peer update (alternating its entries) commits a config block the peer then has. */
async function commits(what: string) {
  const before = await until('the height at the peer', height, 60_000, 1000);
  anchorToggle++;
  const anchors = [{ host: '127.0.0.1', port: peer.config.port }, ...(anchorToggle % 2 ? [{ host: 'localhost', port: peer.config.port }] : [])];
  await until(`an anchor peer update ${what}`, async () => {
    const a = await api('POST', `/networks/consortium/${network.id}/anchor-peers`, { organizationId: 'Org1MSP', anchorPeers: anchors });
    if (a.status !== 200 && a.status !== 503 && a.status !== 409) assert.unreachable(a.text);
    return a.status === 200 && a.json.status === 'updated' ? a : null;
  }, 180_000, 3000);
  await until(`the new config block at the peer ${what}`, async () => ((await height()) ?? 0) > before, 90_000, 1000);
}
/** A config change retried while the orderers settle (503); on a timeout the last answer and the orderers' last log lines say why. */
async function submitted(what: string, call: () => Promise<{ status: number; text: string; json: any }>) {
  let last = '';
  try {
    return await until(what, async () => {
      const x = await call();
      if (x.status !== 200 && x.status !== 503) assert.unreachable(x.text);
      last = x.text;
      return x.status === 200 ? x : null;
    }, 120_000, 3000);
  } catch (err) {
    const logs = await Promise.all([...orderers, fifth].map(async (o) => `--- ${o.name}\n${((await api('GET', `/nodes/${o.id}/logs?tail=15`)).json?.lines ?? []).join('\n')}`));
    throw new Error(`${(err as Error).message}; last answer: ${last}\n${logs.join('\n')}`);
  }
}
/** Every running consenter has the peer's height: none lags (one that lags cannot count towards the quorum when another goes down). */
async function consentersCaughtUp(what: string) {
  const target = await until('the height at the peer', height, 60_000, 1000);
  const ids = new Set((await consenters()).consenters.map((c) => c.node_id));
  for (const o of [...orderers, fifth].filter((x) => ids.has(x.id))) {
    await until(`${o.name} at height ${target} ${what}`, async () => (((await relationOf(o))?.height ?? 0) >= target ? true : null), 120_000, 2000);
  }
}
const relationOf = async (o: { id: number }) => (await api('POST', `/networks/consortium/${network.id}/orderers/${o.id}/join`)).json?.orderer;

t('a BFT channel of 4 orderers across 2 organizations and a peer: every orderer a consenter, ids 1 to 4', async () => {
  const org1 = await organization(api, 'Org1', 'Org1MSP');
  const org2 = await organization(api, 'Org2', 'Org2MSP');
  for (const [i, org] of [org1, org1, org2, org2, org2].entries()) orderers.push(await node(api, `bftc-orderer${i}`, 'CONSORTIUM_ORDERER', org.id, { fabricVersion: v31 }));
  fifth = orderers.pop();
  peer = await node(api, 'bftc-peer', 'CONSORTIUM_PEER', org1.id, { fabricVersion: v31 });
  const r = await api('POST', '/networks/consortium', { name: 'bftc', channelName: 'bftcons', consensus: 'smartbft', ordererIds: orderers.map((o) => o.id), peerIds: [peer.id] });
  assert.is(r.status, 201, r.text);
  network = r.json;
  base = `/networks/consortium/${network.id}/channels/bftcons`;
  for (const o of orderers) {
    const j = await api('POST', `/networks/consortium/${network.id}/orderers/${o.id}/join`);
    assert.is(j.status, 200, j.text);
    assert.is(j.json.orderer.consensus_relation, 'consenter', j.text);
  }
  await until('the peer joined', async () => {
    const j = await api('POST', `/networks/consortium/${network.id}/peers/${peer.id}/join`);
    return j.status === 200 ? j : null;
  }, 90_000, 2000);
  await commits('on the new channel');
  const c = await consenters();
  assert.equal(c.consenters.map((x) => [x.bft_id, x.node_id, x.certificate_current]), orderers.map((o, i) => [i + 1, o.id, true]));
});

t('a SmartBFT option changed through PUT .../config (the diff shows it) and the channel commits after; an invalid one is a 400, nothing submitted', async () => {
  const bad = await api('PUT', `/networks/${network.id}/channels/bftcons/config`, { smartBftOptions: { requestForwardTimeout: '30s' } });
  assert.is(bad.status, 400, bad.text);
  assert.is(bad.json.details[0].field, 'smartBftOptions.requestForwardTimeout', bad.text);
  const before = (await consenters()).sequence;
  const r = await submitted('the option change', () => api('PUT', `/networks/${network.id}/channels/bftcons/config`, { smartBftOptions: { requestBatchMaxInterval: '300ms' } }));
  assert.is(r.json.status, 'updated', r.text);
  assert.equal(r.json.diff.map((d: { path: string; before: unknown; after: unknown }) => [d.path, d.before, d.after]), [['channel_group.groups.Orderer.values.ConsensusType.value.metadata.request_batch_max_interval', '200ms', '300ms']]);
  assert.ok((await consenters()).sequence > before);
  assert.is((await api('GET', `/networks/${network.id}/channels/bftcons/config`)).json.config.channel_group.groups.Orderer.values.ConsensusType.value.metadata.request_batch_max_interval, '300ms');
  await commits('after the option change');
});

t('a 5th orderer joined as a follower pulls the chain; promoted to consenter (id 5, BlockValidation recomputed), its participation API says consenter, the channel commits', async () => {
  const j = await api('POST', `/networks/consortium/${network.id}/orderers/${fifth.id}/join`);
  assert.is(j.status, 200, j.text);
  assert.is(j.json.orderer.consensus_relation, 'follower', j.text);
  const target = await until('the height at the peer', height, 60_000, 1000);
  await until('the follower to pull the chain', async () => {
    const o = await relationOf(fifth);
    return o?.status === 'active' && o.height >= target ? o : null;
  }, 120_000, 2000);
  const before = await consenters();
  const dry = await api('POST', `${base}/consenters?dry_run=true`, { nodeId: fifth.id });
  assert.is(dry.status, 200, dry.text);
  const paths = dry.json.diff.map((d: { path: string }) => d.path);
  const added = dry.json.diff.find((d: { path: string; before: unknown }) => d.path.endsWith('consenter_mapping[]') && d.before === null);
  assert.is(added?.after.id, 5, dry.text);
  assert.is(added.after.port, fifth.config.port);
  assert.is(added.after.msp_id, 'Org2MSP');
  assert.ok(paths.some((p: string) => p.startsWith('channel_group.groups.Orderer.policies.BlockValidation')), paths.join(' '));
  assert.is((await consenters()).sequence, before.sequence, 'a dry run submits nothing');
  const r = await submitted('the promotion', () => api('POST', `${base}/consenters`, { nodeId: fifth.id }));
  assert.is(r.json.status, 'updated', r.text);
  await until('the 5th orderer to be a consenter', async () => ((await relationOf(fifth))?.consensus_relation === 'consenter' ? true : null), 180_000, 3000);
  const c = await consenters();
  assert.equal(c.consenters.map((x) => x.bft_id), [1, 2, 3, 4, 5]);
  assert.is(c.consenters[4].node_id, fifth.id);
  assert.is(c.consenters[4].consensus_relation, 'consenter');
  await commits('with five consenters');
});

t('with 2 of 5 consenters stopped, removing a running one is refused naming the BFT quorum rule; nothing submitted', async () => {
  const [o0, , , o3] = orderers;
  for (const o of [o3, fifth]) assert.is((await api('POST', `/nodes/${o.id}/stop`)).json.status, 'stopped');
  const before = await consenters();
  const r = await api('DELETE', `${base}/consenters/${o0.id}`);
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'CONSENTER_QUORUM', r.text);
  assert.match(r.json.message, 'Rule consenter-quorum');
  assert.match(r.json.message, 'below the BFT quorum ceil((n+f+1)/2) of 3 (n=4, f=1)');
  const after = await consenters();
  assert.is(after.sequence, before.sequence);
  assert.is(after.consenters.length, 5);
  for (const o of [o3, fifth]) assert.is((await api('POST', `/nodes/${o.id}/start`)).json.status, 'running');
  await commits('after both are back');
  await consentersCaughtUp('after both are back');
});

t('one consenter removed (its id and endpoint go), the channel commits after', async () => {
  const o1 = orderers[1];
  const r = await submitted('the removal', () => api('DELETE', `${base}/consenters/${o1.id}`));
  assert.is(r.json.status, 'updated', r.text);
  const removed = r.json.diff.find((d: { path: string; after: unknown }) => d.path.endsWith('consenter_mapping[]') && d.after === null);
  assert.is(removed?.before.id, 2, r.text);
  const c = await consenters();
  assert.equal(c.consenters.map((x) => x.bft_id), [1, 3, 4, 5]);
  await commits('with four consenters');
});

/** The SmartBFT leader of the channel as an orderer's Prometheus metrics say (the library's consensus_smartbft_view_leader_id, else Fabric's consensus_BFT_leader_id). */
async function leaderId(o: { endpoints: { metrics: string } }): Promise<number> {
  const text = await (await fetch(o.endpoints.metrics)).text();
  const m = /smartbft_view_leader_id\{[^}]*channel="bftcons"[^}]*\}\s+(\d+)/.exec(text) ?? /BFT_leader_id\{[^}]*channel="bftcons"[^}]*\}\s+(\d+)/.exec(text);
  if (!m) assert.unreachable(`no leader id of bftcons in ${o.endpoints.metrics}: ${text.split('\n').filter((l) => /leader/.test(l)).join(' | ')}`);
  return Number(m![1]);
}

t('an orderer\'s certificates renewed leave the channel on the old ones; its consenter certificates replaced, the channel commits after', async () => {
  // The renewed orderer is out until the replacement reaches the others: the other three must all
  // order, and it must not be the SmartBFT leader (the others would first have to change view).
  await consentersCaughtUp('before the renewal');
  const leader = await leaderId(orderers[0]);
  const byId = new Map((await consenters()).consenters.map((c) => [c.node_id, c.bft_id]));
  const o2 = [orderers[2], orderers[3], orderers[0]].find((o) => byId.get(o.id) !== leader)!;
  const bftId = byId.get(o2.id);
  const renewed = await api('POST', `/nodes/${o2.id}/certificates/renew`);
  assert.is(renewed.status, 200, renewed.text);
  await until('the renewed orderer running again', async () => ((await api('GET', `/nodes/${o2.id}`)).json?.status === 'running' ? true : null), 60_000, 1000);
  const stale = (await consenters()).consenters.find((c) => c.node_id === o2.id)!;
  assert.is(stale.certificate_current, false, 'the renewal alone leaves the channel on the old certificates');
  const r = await submitted('the certificates replaced', () => api('PUT', `${base}/consenters/${o2.id}/certificate`));
  assert.is(r.json.status, 'updated', r.text);
  const paths = r.json.diff.map((d: { path: string }) => d.path);
  assert.ok(paths.some((p: string) => p.startsWith('channel_group.groups.Orderer.policies.BlockValidation')), `the identity changed too: ${paths.join(' ')}`);
  const now = (await consenters()).consenters.find((c) => c.node_id === o2.id)!;
  assert.is(now.certificate_current, true);
  assert.is(now.bft_id, bftId);
  await commits('after the certificate replacement');
  await until('the renewed orderer back as an active consenter', async () => {
    const o = await relationOf(o2);
    return o?.consensus_relation === 'consenter' && o.status === 'active' ? o : null;
  }, 120_000, 3000);
  const audit = (await api('GET', '/audit-logs?action=NETWORK_UPDATE&limit=100')).json.items as Array<{ after: { change?: { kind?: string; changes?: Array<{ kind: string }> } } | null }>;
  const kinds = audit.flatMap((e) => [e.after?.change?.kind, ...(e.after?.change?.changes ?? []).map((c) => c.kind)]).filter((k) => k);
  for (const k of ['smartBftOptions', 'addConsenter', 'removeConsenter', 'replaceConsenterCertificate']) assert.ok(kinds.includes(k), `${k} audited: ${kinds.join(',')}`);
});

t.run();
