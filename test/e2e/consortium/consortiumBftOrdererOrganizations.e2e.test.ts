// An orderer organization removed from a BFT channel on real Fabric 3.1 (issue 37 item 4; a counted
// skip without a 3.1 release: LNM_FABRIC_RELEASES or LNM_FABRIC_BIN). Org1MSP has four orderers and
// the peer, Org2MSP one orderer only (an orderer organization, not an application one): five
// SmartBFT consenters. Removing Org2 is refused while its orderer is a consenter (rule named, the
// same through a signing proposal of kind remove_orderer_organization, the config sequence
// unchanged); its orderer removed from the consenters (the channel commits with four); then a dry
// run shows Org2's group leaving /Channel/Orderer (BlockValidation untouched: it already names
// Org1's four consenters only) and the removal is submitted. The channel commits after; a client
// of Org2 and Org2's orderer (signing with its own identity), both served by Org1's orderers
// before, are refused (deliver FORBIDDEN) after; the last orderer organization is kept.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { requires } from '../../helpers/requirements.ts';
import { channelCommits, channelConfigOf, fabric31, fabric31Server, issuedIdentity, organization, peerHeight, runningNode as node, until } from './consortiumApi.ts';
import { fetchConfig } from '../../../adapters/consortium/channelConfig.ts';
import { privateKeyFabricSigner } from '../../../adapters/consortium/fabricSigning.ts';
import { FabricRefusedError } from '../../../domain/consortium/consortiumChannelPorts.ts';

const t = requires(suite('an orderer organization removed from a BFT channel (real Fabric 3.1)'), 'fabric-3', fabric31.skip);
const v31 = fabric31.version;
const { api, server } = fabric31Server(t);
const channel = 'bftorgchannel';

const orderers: any[] = [];
let org2Orderer: any;
let org2: { id: number };
let peer: any;
let networkId = 0;
const base = () => `/networks/consortium/${networkId}/channels/${channel}`;
const config = () => channelConfigOf(api, networkId, channel);
const height = () => peerHeight(api, networkId);
const commits = channelCommits(api, () => networkId, 'Org1MSP', () => peer.config.port, height);
const relationOf = async (o: { id: number }) => (await api('POST', `/networks/consortium/${networkId}/orderers/${o.id}/join`)).json?.orderer;
/** A config change retried while the orderers settle (503). */
async function submitted(what: string, call: () => Promise<{ status: number; text: string; json: any }>) {
  return until(what, async () => {
    const x = await call();
    if (x.status !== 200 && x.status !== 503) assert.unreachable(x.text);
    return x.status === 200 ? x : null;
  }, 120_000, 3000);
}

t('a BFT channel of five consenters: four of Org1, one of Org2 (an orderer organization only); the channel commits', async () => {
  const org1 = await organization(api, 'Org1', 'Org1MSP');
  org2 = await organization(api, 'Org2', 'Org2MSP');
  for (const i of [0, 1, 2, 3]) orderers.push(await node(api, `bfto-orderer${i}`, 'CONSORTIUM_ORDERER', org1.id, { fabricVersion: v31 }));
  org2Orderer = await node(api, 'bfto-orderer-org2', 'CONSORTIUM_ORDERER', org2.id, { fabricVersion: v31 });
  peer = await node(api, 'bfto-peer', 'CONSORTIUM_PEER', org1.id, { fabricVersion: v31 });
  const r = await api('POST', '/networks/consortium', { name: 'bfto', channelName: channel, consensus: 'smartbft', ordererIds: [...orderers, org2Orderer].map((o) => o.id), peerIds: [peer.id] });
  assert.is(r.status, 201, r.text);
  networkId = r.json.id;
  for (const o of [...orderers, org2Orderer]) {
    const j = await api('POST', `/networks/consortium/${networkId}/orderers/${o.id}/join`);
    assert.is(j.status, 200, j.text);
    assert.is(j.json.orderer.consensus_relation, 'consenter', j.text);
  }
  await until('the peer joined', async () => ((await api('POST', `/networks/consortium/${networkId}/peers/${peer.id}/join`)).status === 200 ? true : null), 90_000, 2000);
  await commits('on the new channel');
  const c = await config();
  assert.equal(Object.keys(c.group.groups.Orderer.groups).sort(), ['Org1MSP', 'Org2MSP']);
  assert.equal(Object.keys(c.group.groups.Application.groups), ['Org1MSP']);
  assert.equal(c.group.groups.Orderer.values.Orderers.value.consenter_mapping.map((m: { msp_id: string }) => m.msp_id), ['Org1MSP', 'Org1MSP', 'Org1MSP', 'Org1MSP', 'Org2MSP']);
});

t('Org2 removed: refused while its orderer is a consenter (route and proposal, nothing submitted); after its consenter is removed, a dry run then the update; the channel commits; Org2 is refused after', async () => {
  const c0 = await config();
  const held = await api('DELETE', `${base()}/orderer-organizations/Org2MSP`);
  assert.is(held.status, 409, held.text);
  assert.is(held.json.code, 'ORDERER_ORGANIZATION_CONSENTERS', held.text);
  assert.match(held.json.message, 'Rule orderer-organization-consenters');
  assert.match(held.json.message, org2Orderer.config.externalEndpoint);
  const proposed = await api('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'remove_orderer_organization', msp_id: 'Org2MSP' } });
  assert.is(proposed.status, 409, proposed.text);
  assert.is(proposed.json.code, 'ORDERER_ORGANIZATION_CONSENTERS', 'a proposal is planned by the same rules');
  assert.is((await config()).sequence, c0.sequence, 'nothing submitted');

  const removedConsenter = await submitted('Org2\'s orderer removed from the consenters', () => api('DELETE', `${base()}/consenters/${org2Orderer.id}`));
  assert.is(removedConsenter.json.status, 'updated', removedConsenter.text);
  await commits('with four consenters');
  // A client of Org2 and Org2's orderer read the channel from an Org1 orderer while Org2 is an orderer organization.
  const c1 = await config();
  const tlsRoot = Buffer.from(c1.group.groups.Orderer.groups.Org1MSP.values.MSP.value.config.tls_root_certs[0], 'base64').toString();
  const source = { kind: 'orderer' as const, endpoint: { host: '127.0.0.1', port: orderers[0].config.port, tlsCaCertPem: tlsRoot, serverName: 'localhost' } };
  const client = await issuedIdentity(api, org2.id, 'bfto-org2-client');
  const clientSigner = privateKeyFabricSigner(createPrivateKey(client.privateKey), 'Org2MSP', client.certificate);
  // Org2's orderer's own identity, as its MSP directory holds it (a process engine node).
  const mspDir = path.join(server().dataDir, 'nodes', `node-${org2Orderer.id}`, 'msp');
  const ordererSigner = privateKeyFabricSigner(createPrivateKey(readFileSync(path.join(mspDir, 'keystore', 'priv_sk'))), 'Org2MSP', readFileSync(path.join(mspDir, 'signcerts', 'cert.pem'), 'utf8'));
  for (const [who, signer] of [['an Org2 client', clientSigner], ['Org2\'s orderer', ordererSigner]] as const) {
    assert.ok((await fetchConfig(source, signer, channel)).blockNumber > 0, `${who} is served the channel's config block before`);
  }

  const dry = await api('DELETE', `${base()}/orderer-organizations/Org2MSP?dry_run=true`);
  assert.is(dry.status, 200, dry.text);
  assert.is(dry.json.status, 'dry_run');
  const paths: string[] = dry.json.diff.map((d: { path: string }) => d.path);
  assert.ok(dry.json.diff.some((d: { path: string; before: unknown; after: unknown }) => d.path === 'channel_group.groups.Orderer.groups.Org2MSP' && d.after === null && d.before !== null), paths.join(' '));
  assert.not.ok(paths.some((p) => p.includes('BlockValidation') || p.includes('consenter_mapping')), `BlockValidation and the ConsenterMapping are already Org1's: ${paths.join(' ')}`);
  assert.is((await config()).sequence, c1.sequence, 'a dry run submits nothing');
  const prepared = await api('POST', '/nodesharing/proposals', { network_id: networkId, change: { type: 'remove_orderer_organization', msp_id: 'Org2MSP' } });
  assert.is(prepared.status, 400, prepared.text);
  assert.equal(prepared.json.details, [{ field: 'change', message: 'no signature missing' }], 'the proposal is planned and prepared against the BFT channel; both orderer organizations\' admins are held here');

  const removed = await submitted('Org2 removed as orderer organization', () => api('DELETE', `${base()}/orderer-organizations/Org2MSP`));
  assert.is(removed.json.status, 'updated', removed.text);
  assert.equal([...removed.json.signed_by].sort(), ['Org1MSP', 'Org2MSP'], '/Channel/Orderer/Admins: MAJORITY of both');
  assert.equal(removed.json.diff, dry.json.diff);
  const after = await config();
  const ordererGroup = after.group.groups.Orderer;
  assert.equal(Object.keys(ordererGroup.groups), ['Org1MSP']);
  assert.not.ok(JSON.stringify(ordererGroup.policies).includes('Org2MSP'), 'no orderer policy names Org2 (BlockValidation: Org1\'s four consenters)');
  assert.is(ordererGroup.policies.BlockValidation.policy.value.identities.length, 4);
  assert.not.ok(JSON.stringify(after.group).includes('"Org2MSP"'), 'nothing in the channel config names Org2 any more');
  const network = await api('GET', `/networks/consortium/${networkId}`);
  assert.equal(network.json.orderer_organizations.map((o: { msp_id: string }) => o.msp_id), ['Org1MSP']);
  const audit = (await api('GET', '/audit-logs?action=NETWORK_UPDATE&limit=100')).json.items as Array<{ after: { change?: { kind?: string; mspId?: string } } | null }>;
  assert.ok(audit.some((e) => e.after?.change?.kind === 'removeOrdererOrganization' && e.after.change.mspId === 'Org2MSP'), 'audited');

  const h = await commits('after Org2 left the orderer group');
  for (const o of orderers) await until(`${o.name} at height ${h}`, async () => (((await relationOf(o))?.height ?? 0) >= h ? true : null), 120_000, 2000);
  for (const [who, signer] of [['an Org2 client', clientSigner], ['Org2\'s orderer', ordererSigner]] as const) {
    const refused = await fetchConfig(source, signer, channel).then(() => null, (e: unknown) => e);
    assert.instance(refused, FabricRefusedError, `the orderers refuse ${who} after the removal`);
    assert.is((refused as FabricRefusedError).fabricStatus, 'FORBIDDEN');
  }

  const last = await api('DELETE', `${base()}/orderer-organizations/Org1MSP`);
  assert.is(last.status, 409, last.text);
  assert.is(last.json.code, 'LAST_ORDERER_ORGANIZATION');
});

t.run();
