// What the two suites of a SmartBFT consenter removed and rejoined as a follower share
// (sharing/bftConsenterProposalRejoin over the API, console/consoleBftConsenterRejoin in the
// console), on real Fabric 3.1: instance A's BFT channel of Org1 (consenters and a peer, all
// joined), instance B's Org2 shared both ways and added by A as orderer organization (so the
// channel's /Channel/Orderer/Admins then needs Org2's admin too), and Org2's detached signature
// made on B (B's key API signing header || update: sign-data answers low-S, as Fabric and the
// upload require; before it did, the signature was high-S one time in two and the suites failed
// about half their runs).
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { common, msp } from '@hyperledger/fabric-protos';
import { organization, runningNode, until, type Api } from '../consortium/consortiumApi.ts';

/** A config change retried while the orderers settle (503). */
export async function submitted(what: string, call: () => Promise<{ status: number; text: string; json: any }>) {
  return until(what, async () => {
    const x = await call();
    if (x.status !== 200 && x.status !== 201 && x.status !== 503) assert.unreachable(x.text);
    return x.status === 200 || x.status === 201 ? x : null;
  }, 120_000, 3000);
}

/**
 * On A: Org1MSP, `consenters` SmartBFT orderers and a peer of `fabricVersion` (named
 * `${prefix}-orderer<i>`, `${prefix}-peer`), network `prefix` of channel `channel`, every orderer
 * and the peer joined. The caller checks that it commits (channelCommits).
 */
export async function bftChannel(api: Api, prefix: string, channel: string, consenters: number, fabricVersion: string) {
  const org1 = await organization(api, 'Org1', 'Org1MSP');
  const orderers: any[] = [];
  for (let i = 0; i < consenters; i++) orderers.push(await runningNode(api, `${prefix}-orderer${i}`, 'CONSORTIUM_ORDERER', org1.id, { fabricVersion }));
  const peer = await runningNode(api, `${prefix}-peer`, 'CONSORTIUM_PEER', org1.id, { fabricVersion });
  const r = await api('POST', '/networks/consortium', { name: prefix, channelName: channel, consensus: 'smartbft', ordererIds: orderers.map((o) => o.id), peerIds: [peer.id] });
  assert.is(r.status, 201, r.text);
  const networkId = r.json.id as number;
  for (const o of orderers) assert.is((await api('POST', `/networks/consortium/${networkId}/orderers/${o.id}/join`)).status, 200);
  await until('the peer joined', async () => ((await api('POST', `/networks/consortium/${networkId}/peers/${peer.id}/join`)).status === 200 ? true : null), 90_000, 2000);
  return { org1, orderers, peer, networkId };
}

/**
 * The second instance's part: Org2MSP made on B, A and B sharing both ways (A's invitation
 * accepted on B), and Org2MSP added by A to the channel as orderer organization. The caller
 * checks that the channel commits after it.
 */
export async function secondInstanceOrdererOrganization(apiA: Api, apiB: Api, networkId: number, channel: string) {
  const org2 = await organization(apiB, 'Org2', 'Org2MSP');
  const inv = await apiA('POST', '/nodesharing/invitations', { bidirectional: true });
  assert.is(inv.status, 201, inv.text);
  const accepted = await apiB('POST', '/nodesharing/accept', { invitation_jwt: inv.json.invitation_jwt, fingerprint: inv.json.key_fingerprint });
  assert.is(accepted.status, 201, accepted.text);
  const added = await submitted('Org2 added as orderer organization', () => apiA('POST', `/networks/consortium/${networkId}/channels/${channel}/orderer-organizations`, { msp_id: 'Org2MSP', endpoints: ['orderer0.org2.example.com:7050'] }));
  assert.is(added.json.status, 'updated', added.text);
  return org2;
}

/** Org2's ConfigSignature over a proposal's update, made on B: header (Org2's admin identity, a nonce), B's key API signing header || update (low-S as made). */
export async function signatureOfOrg2(apiB: Api, org2: { adminKeyId: number }, update: Buffer): Promise<{ header: Buffer; der: Buffer }> {
  const cert = await apiB('GET', `/keys/${org2.adminKeyId}/certificate`);
  assert.is(cert.status, 200, cert.text);
  const identity = new msp.SerializedIdentity();
  identity.setMspid('Org2MSP');
  identity.setIdBytes(Buffer.from(cert.text));
  const header = new common.SignatureHeader();
  header.setCreator(identity.serializeBinary());
  header.setNonce(randomBytes(24));
  const headerBytes = Buffer.from(header.serializeBinary());
  const r = await apiB('POST', `/keys/${org2.adminKeyId}/sign-data`, { data: Buffer.concat([headerBytes, update]).toString('base64') });
  assert.is(r.status, 200, r.text);
  return { header: headerBytes, der: Buffer.from(r.json.signature, 'base64') };
}
