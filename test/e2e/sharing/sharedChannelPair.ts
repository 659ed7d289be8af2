// Two instances (pro, sharing listeners, real Fabric 2.5) whose organizations meet in one channel:
// A's channel (its organization, one orderer joined), B's organization added to it by a config
// update A's admin signs once the instances share both ways, and B synced so it lists the
// channel (importing it is the caller's: over the API, or from the console's sharing page).
// One start-up for the cross-instance console tests; the caller stops it with stop() (which
// also copes with a server the test stopped itself).
import * as assert from 'uvu/assert';
import { startServer, type TestServer } from '../../helpers/server.ts';
import { apiOf, consortiumEnv, node, organization, until, type Api } from '../consortium/consortiumApi.ts';

export interface SharedChannelPair {
  a: TestServer;
  b: TestServer;
  apiA: Api;
  apiB: Api;
  /** A's network of the channel. */
  networkId: number;
  /** A's orderer (joined to the channel). */
  ordererA: { id: number; config: Record<string, any> };
  orgA: { id: number; mspId: string };
  orgB: { id: number; mspId: string };
  /** B's second organization, in the channel too (thirdOrganization): the channel's MAJORITY policies then need 2 of 3. */
  orgC?: { id: number; mspId: string; adminKeyId: number };
  /** A's sharing peer id on B (the {id} of B's /nodesharing/peers/{id}/...). */
  peerOnB: number;
  /** B's peer (a CONSORTIUM_PEER of orgB), when asked for. */
  peerB?: { id: number; name: string };
  /** Nodes made, for stop(). */
  made: Array<{ api: Api; id: number }>;
  stop(): Promise<void>;
}

export interface SharedChannelOptions {
  /** Names of the organizations, nodes and network start with it (unique per test file). */
  prefix: string;
  channelName: string;
  /** First chaincode server port of A and of B (ranges apart from other files'). */
  chaincodePorts: [number, number];
  /** Also create a peer of B's organization (to join the channel once B imported it). */
  peerOfB?: boolean;
  /** B also holds a third organization, added to the channel with B's (A alone then holds 1 of 3 admins). */
  thirdOrganization?: boolean;
}

export async function startSharedChannelPair(o: SharedChannelOptions): Promise<SharedChannelPair> {
  const env = consortiumEnv({ LNM_SHARING_PORT: '0' });
  // A loaded host starts two servers slowly (as signingProposals.e2e allows).
  const [a, b] = await Promise.all(o.chaincodePorts.map((p) => startServer({ env: { ...env, LNM_CHAINCODE_PORT_FROM: String(p) }, timeoutMs: 180_000 })));
  const apiA = apiOf(() => a);
  const apiB = apiOf(() => b);
  const made: SharedChannelPair['made'] = [];
  const stop = async () => {
    for (const api of [apiB, apiA]) {
      // A server the test stopped already answers nothing: reapNodes ends its nodes below.
      if (!(await api('GET', '/nodes/platform/CONSORTIUM').then(() => true, () => false))) continue;
      for (const n of [...made].reverse()) if (n.api === api) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
      await until('every node removed', async () => ((await api('GET', '/nodes/platform/CONSORTIUM')).json?.total === 0 ? true : null), 30_000).catch(() => undefined);
    }
    await Promise.all([a.stop(), b.stop()]);
    for (const s of [a, b]) s.reapNodes();
  };
  try {
    const P = o.prefix;
    const orgA = await organization(apiA, `${P}OrgA`, `${P}OrgAMSP`);
    const ordererA = await node(apiA, `${P.toLowerCase()}-orderer-a`, 'CONSORTIUM_ORDERER', orgA.id);
    made.push({ api: apiA, id: ordererA.id });
    let r = await apiA('POST', '/networks/consortium', { name: `${P.toLowerCase()}-channel`, channelName: o.channelName, ordererIds: [ordererA.id], organizationIds: [orgA.id] });
    assert.is(r.status, 201, r.text);
    const networkId = r.json.id;
    assert.is((await apiA('POST', `/networks/consortium/${networkId}/orderers/${ordererA.id}/join`)).status, 200);
    const orgB = await organization(apiB, `${P}OrgB`, `${P}OrgBMSP`);
    const orgC = o.thirdOrganization ? await organization(apiB, `${P}OrgC`, `${P}OrgCMSP`) : undefined;
    let peerB: SharedChannelPair['peerB'];
    if (o.peerOfB) {
      peerB = await node(apiB, `${P.toLowerCase()}-peer-b`, 'CONSORTIUM_PEER', orgB.id);
      made.push({ api: apiB, id: peerB!.id });
    }
    const inv = await apiA('POST', '/nodesharing/invitations', { bidirectional: true });
    assert.is(inv.status, 201, inv.text);
    r = await apiB('POST', '/nodesharing/accept', { invitation_jwt: inv.json.invitation_jwt, fingerprint: inv.json.key_fingerprint });
    assert.is(r.status, 201, r.text);
    const peerOnB = r.json.id;
    r = await until('B\'s organization added to A\'s channel (once A\'s orderer has a raft leader)', async () => {
      const u = await apiA('PUT', `/networks/${networkId}/channels/${o.channelName}/config`, { organizations: [orgA.mspId, orgB.mspId, ...(orgC ? [orgC.mspId] : [])] });
      return u.status === 200 ? u : null;
    }, 60_000, 2000);
    assert.is(r.json.status, 'updated', r.text);
    r = await apiB('POST', '/nodesharing/sync', { peer_node_id: peerOnB });
    assert.is(r.status, 200, r.text);
    assert.ok(r.json.networks.some((n: { channel_name: string }) => n.channel_name === o.channelName), r.text);
    return { a, b, apiA, apiB, networkId, ordererA, orgA, orgB, orgC, peerOnB, peerB, made, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
