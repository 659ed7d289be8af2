// The rolling upgrade of a whole channel from Fabric 2.5 to 3.1 (issue 37 item 7), as the suites
// of each place nodes run share it (consortiumDockerUpgrade: this machine's Docker;
// kubernetesChannelUpgrade: a Kubernetes cluster): three raft orderers and a peer of one
// organization on the 2.5 release, a channel with the sample chaincode (its image) committed and
// invoked; V3_0 refused naming every 2.5 node; each node upgraded in turn (POST
// /nodes/{id}/upgrade) with its image and its own /version checked by the suite's own means, its
// height at least what it was and an invoke committed after each (one node down at a time, the
// channel committing throughout); then V3_0 accepted, an invoke, the ledger written on 2.5 intact
// (an asset read back, block 0's hash unchanged).
import * as assert from 'uvu/assert';
import { organization, runningNode, until, type Api } from './consortiumApi.ts';

export const SAMPLE_IMAGE = 'lnm-chaincode-asset-registry:local';

export interface UpgradeChannel {
  api: Api;
  networkId: number;
  chaincodeId: number;
  channel: string;
  orderers: any[];
  peer: any;
  /** Invokes committed so far (each a new asset key). */
  assets: number;
}

/**
 * The network on `from`: three raft orderers then a peer (made with `nodeConfig(kind, i)` over
 * { fabricVersion: from }, e.g. a cluster's hostId and NodePorts), the channel joined by all, the
 * sample chaincode committed.
 */
export async function upgradeChannel(api: Api, opts: { name: string; from: string; nodeConfig?: (kind: 'orderer' | 'peer', i: number) => Record<string, unknown> }): Promise<UpgradeChannel> {
  const org1 = await organization(api, 'Org1', 'Org1MSP');
  const config = (kind: 'orderer' | 'peer', i: number) => ({ fabricVersion: opts.from, ...opts.nodeConfig?.(kind, i) });
  const orderers: any[] = [];
  for (const i of [0, 1, 2]) orderers.push(await runningNode(api, `${opts.name}-orderer${i}`, 'CONSORTIUM_ORDERER', org1.id, config('orderer', i)));
  const peer = await runningNode(api, `${opts.name}-peer0`, 'CONSORTIUM_PEER', org1.id, config('peer', 0));
  const r = await api('POST', '/networks/consortium', { name: opts.name, channelName: opts.name, ordererIds: orderers.map((o) => o.id), peerIds: [peer.id], batchTimeout: '500ms' });
  assert.is(r.status, 201, r.text);
  const networkId = r.json.id as number;
  for (const o of orderers) assert.is((await api('POST', `/networks/consortium/${networkId}/orderers/${o.id}/join`)).status, 200);
  await until('the peer joined', async () => {
    const j = await api('POST', `/networks/consortium/${networkId}/peers/${peer.id}/join`);
    return j.status === 200 ? j : null;
  }, 90_000, 2000);
  const d = await until('the sample chaincode committed', async () => {
    const x = await api('POST', '/sc/consortium/deploy', { networkId, name: 'assets', version: '1', source: { image: SAMPLE_IMAGE } });
    if (x.status !== 200 && x.status !== 503 && x.status !== 409) assert.unreachable(x.text);
    return x.status === 200 ? x : null;
  }, 240_000, 3000);
  assert.is(d.json.commit.status, 'committed', d.text);
  return { api, networkId, chaincodeId: d.json.chaincode_id, channel: opts.name, orderers, peer, assets: 0 };
}

/** An invoke committed by the channel (retried while the orderers settle after a restart); its asset key. */
export async function invokes(ch: UpgradeChannel, what: string): Promise<string> {
  const key = `${ch.channel}-asset${++ch.assets}`;
  const r = await until(`an invoke ${what}`, async () => {
    const x = await ch.api('POST', `/sc/consortium/chaincodes/${ch.chaincodeId}/invoke`, { function: 'CreateAsset', args: [key, 'blue', '5', 'Tomoko', '300'] });
    return x.status === 200 ? x : null;
  }, 120_000, 2000);
  assert.is(r.json.validation_code, 'VALID', r.text);
  return key;
}

export async function channelHeight(ch: UpgradeChannel): Promise<number | null> {
  const r = await ch.api('GET', `/networks/consortium/${ch.networkId}/info`);
  return r.status === 200 ? Number(r.json.height) : null;
}

export async function blockHash(ch: UpgradeChannel, n: number): Promise<string> {
  const r = await ch.api('GET', `/networks/consortium/${ch.networkId}/blocks/${n}`);
  assert.is(r.status, 200, r.text);
  return r.json.hash as string;
}

const configPath = (ch: UpgradeChannel) => `/networks/${ch.networkId}/channels/${ch.channel}/config`;

/** What the 2.5 ledger held before the upgrade, to find again after it. */
export interface WrittenOn25 {
  key: string;
  block0: string;
}

/**
 * On `from`: an invoke, V3_0 refused naming every node, each node's image `from`'s. Then each
 * node upgraded in turn to `to`: the answer's release, status and height, its image and running
 * release (`imageOf`, `versionOf`: the suite's own look at the node), an invoke committed after
 * each; one audited release switch per node.
 */
export async function upgradeNodeByNode(ch: UpgradeChannel, opts: { from: string; to: string; imageOf: (n: any) => Promise<string | undefined>; versionOf: (n: any) => Promise<string> }): Promise<WrittenOn25> {
  const { api } = ch;
  const key = await invokes(ch, `on ${opts.from}`);
  const block0 = await blockHash(ch, 0);
  const refused = await api('PUT', configPath(ch), { capabilities: { channel: 'V3_0' } });
  assert.is(refused.status, 409, refused.text);
  assert.is(refused.json.code, 'CAPABILITY_NODES_BELOW_V3');
  const nodes = [...ch.orderers, ch.peer];
  const image = (n: any, v: string) => `lnm-fabric-${n === ch.peer ? 'peer' : 'orderer'}:${v}`;
  for (const n of nodes) {
    assert.match(refused.json.message, `${n.name} (Fabric ${opts.from})`);
    assert.is(await opts.imageOf(n), image(n, opts.from), n.name);
  }

  for (const n of nodes) {
    const before = (await channelHeight(ch))!;
    const r = await api('POST', `/nodes/${n.id}/upgrade`, { fabricVersion: opts.to });
    assert.is(r.status, 200, `${n.name}: ${r.text}`);
    assert.is(r.json.from_version, opts.from);
    assert.is(r.json.to_version, opts.to);
    assert.is(r.json.node.fabric_version, opts.to);
    assert.is(r.json.node.status, 'running');
    assert.is(r.json.channels.length, 1, r.text);
    assert.ok(r.json.channels[0].height >= before, `${n.name}: height ${r.json.channels[0].height}, ${before} before: ${r.text}`);
    assert.is(await opts.imageOf(n), image(n, opts.to), n.name);
    assert.is(await opts.versionOf(n), opts.to);
    await invokes(ch, `after ${n.name} runs ${opts.to}`);
    assert.ok((await channelHeight(ch))! > before, 'the channel committed');
  }
  const audited = await api('GET', '/audit-logs?resource_type=node&limit=200');
  const switches = audited.json.items.filter((e: { before: { fabricVersion?: string } | null; after: { fabricVersion?: string } | null }) => e.before?.fabricVersion === opts.from && e.after?.fabricVersion === opts.to);
  assert.is(switches.length, nodes.length, 'one audited release switch per node');
  return { key, block0 };
}

/** Every node on 3.x: V3_0 accepted, an invoke commits, what was written on 2.5 read back. */
export async function raiseToV3(ch: UpgradeChannel, written: WrittenOn25): Promise<void> {
  const raised = await ch.api('PUT', configPath(ch), { capabilities: { channel: 'V3_0' } });
  assert.is(raised.status, 200, raised.text);
  assert.is(raised.json.status, 'updated');
  await invokes(ch, 'after V3_0');
  const read = await ch.api('POST', `/sc/consortium/chaincodes/${ch.chaincodeId}/query`, { function: 'ReadAsset', args: [written.key] });
  assert.is(read.status, 200, read.text);
  assert.match(read.text, written.key);
  assert.is(await blockHash(ch, 0), written.block0);
}
