// The rolling upgrade of a channel's nodes from Fabric 2.5 to 3.1 (issue 37 item 7) that the suites
// on this machine's Docker (consortiumDockerUpgrade), on a Docker node host (hostsFabricUpgrade)
// and on a Kubernetes cluster (kubernetesChannelUpgrade) share: three raft orderers and a peer of Org1 on the 2.5 release image, a channel with the
// sample chaincode (its image, run on this machine's Docker) committed; then V3_0 refused naming
// every 2.5 node, each node upgraded in turn (POST /nodes/{id}/upgrade: its container made again
// from the 3.1 image, its own /version 3.1, its ledger height kept, an invoke committed after
// each), and V3_0 accepted with the ledger written on 2.5 intact.
import * as assert from 'uvu/assert';
import { SAMPLE_IMAGE } from './dockerFabricKit.ts';
import { organization, runningNode, until, type Api } from './consortiumApi.ts';

export interface UpgradeChannel {
  channel: string;
  networkId: number;
  chaincodeId: number;
  orderers: any[];
  peer: any;
}

/** Org1's three orderers and peer made with `nodeConfig` (the 2.5 release, a host), the channel, the sample chaincode committed. */
export async function upgradeChannel(api: Api, prefix: string, channel: string, nodeConfig: Record<string, unknown>): Promise<UpgradeChannel> {
  const org1 = await organization(api, 'Org1', 'Org1MSP');
  const orderers = [];
  for (const i of [0, 1, 2]) orderers.push(await runningNode(api, `${prefix}-orderer${i}`, 'CONSORTIUM_ORDERER', org1.id, nodeConfig));
  const peer = await runningNode(api, `${prefix}-peer0`, 'CONSORTIUM_PEER', org1.id, nodeConfig);
  const r = await api('POST', '/networks/consortium', { name: channel, channelName: channel, ordererIds: orderers.map((o) => o.id), peerIds: [peer.id], batchTimeout: '500ms' });
  assert.is(r.status, 201, r.text);
  const networkId = r.json.id;
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
  return { channel, networkId, chaincodeId: d.json.chaincode_id, orderers, peer };
}

/**
 * The upgrade's two steps on `c`: nodeByNode (on 2.5 V3_0 refused; each node to 3.1, an invoke
 * after each) and raised (V3_0 accepted, the ledger of 2.5 intact). `imageOf` answers the image a
 * node's container runs, `address` where its operations port is reached.
 */
export function rollingUpgrade(api: Api, c: () => UpgradeChannel, o: { from: string; to: string; imageOf: (nodeId: number) => Promise<string | undefined>; address: () => string }) {
  let asset = 0;
  let firstKey = '';
  let hashOnFrom = '';
  const configPath = () => `/networks/${c().networkId}/channels/${c().channel}/config`;
  /** An invoke committed by the channel (retried while the orderers settle after a restart). */
  async function invokes(what: string): Promise<string> {
    const key = `${c().channel}-asset${++asset}`;
    const r = await until(`an invoke ${what}`, async () => {
      const x = await api('POST', `/sc/consortium/chaincodes/${c().chaincodeId}/invoke`, { function: 'CreateAsset', args: [key, 'blue', '5', 'Tomoko', '300'] });
      return x.status === 200 ? x : null;
    }, 120_000, 2000);
    assert.is(r.json.validation_code, 'VALID', r.text);
    return key;
  }
  const height = async () => {
    const r = await api('GET', `/networks/consortium/${c().networkId}/info`);
    return r.status === 200 ? Number(r.json.height) : null;
  };
  const blockHash = async (n: number) => {
    const r = await api('GET', `/networks/consortium/${c().networkId}/blocks/${n}`);
    assert.is(r.status, 200, r.text);
    return r.json.hash as string;
  };
  /** The node's own word on its release: GET /version on its operations port (a NodePort on a cluster may answer a moment after the pod is ready). */
  const runningVersion = (operationsPort: number) =>
    until('the node\'s /version', async () => {
      const res = await fetch(`http://${o.address()}:${operationsPort}/version`, { signal: AbortSignal.timeout(3000) }).catch(() => null);
      return res?.ok ? ((await res.json()) as { Version: string }).Version : null;
    }, 90_000, 1000);
  const imageName = (n: any, v: string) => `lnm-fabric-${n === c().peer ? 'peer' : 'orderer'}:${v}`;

  return {
    async nodeByNode() {
      const { orderers, peer } = c();
      firstKey = await invokes(`on ${o.from}`);
      hashOnFrom = await blockHash(0);
      const refused = await api('PUT', configPath(), { capabilities: { channel: 'V3_0' } });
      assert.is(refused.status, 409, refused.text);
      assert.is(refused.json.code, 'CAPABILITY_NODES_BELOW_V3');
      for (const n of [...orderers, peer]) {
        assert.match(refused.json.message, `${n.name} (Fabric ${o.from})`);
        assert.is(await o.imageOf(n.id), imageName(n, o.from), n.name);
      }
      for (const n of [...orderers, peer]) {
        const before = (await height())!;
        const r = await api('POST', `/nodes/${n.id}/upgrade`, { fabricVersion: o.to });
        assert.is(r.status, 200, r.text);
        assert.is(r.json.from_version, o.from);
        assert.is(r.json.to_version, o.to);
        assert.is(r.json.node.fabric_version, o.to);
        assert.is(r.json.node.status, 'running');
        assert.is(r.json.channels.length, 1, r.text);
        assert.ok(r.json.channels[0].height >= before, `${n.name}: height ${r.json.channels[0].height}, ${before} before: ${r.text}`);
        assert.is(await o.imageOf(n.id), imageName(n, o.to), n.name);
        assert.is(await runningVersion(n.config.operationsPort), o.to);
        await invokes(`after ${n.name} runs ${o.to}`);
        assert.ok((await height())! > before, 'the channel committed');
      }
      const audited = await api('GET', '/audit-logs?resource_type=node&limit=200');
      const switches = audited.json.items.filter((e: { before: { fabricVersion?: string } | null; after: { fabricVersion?: string } | null }) => e.before?.fabricVersion === o.from && e.after?.fabricVersion === o.to);
      assert.is(switches.length, 4, 'one audited release switch per node');
    },
    async raised() {
      const r = await api('PUT', configPath(), { capabilities: { channel: 'V3_0' } });
      assert.is(r.status, 200, r.text);
      assert.is(r.json.status, 'updated');
      await invokes('after V3_0');
      const read = await api('POST', `/sc/consortium/chaincodes/${c().chaincodeId}/query`, { function: 'ReadAsset', args: [firstKey] });
      assert.is(read.status, 200, read.text);
      assert.match(read.text, firstKey);
      assert.is(await blockHash(0), hashOnFrom);
    },
  };
}
