// Chaincode definitions shared across instances (node sharing): the instance that defined a
// chaincode on a channel sends its definition (name, version, sequence, endorsement policy,
// collections, initRequired) and its source (not secret) to a peer instance whose organization
// is a member of that channel (sharing.chaincode.shared / .received). The peer records it as a
// chaincode of its own copy of the channel, marked as shared from that instance; its operator
// then installs it on its own peers (its own chaincode server, so its own package id: only the
// definition must match) and approves it for its organization. The defining instance commits
// once enough organizations approved, with the peer's peer among the endorsers.
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AppError, ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { NODE_SHARING_STREAM, nodeSharing } from '../../domain/sharing/nodeSharing.ts';
import { getSharingPeer, listSharingPeers, type SharingPeerRow } from '../../projections/nodeSharing.ts';
import { getChaincode } from '../../projections/consortium/consortiumChaincodes.ts';
import { runCommand } from '../commands.ts';
import type { CommandInput } from '../keys/keyCreation.ts';
import { chaincodeOr404, chaincodeRecord, commitOn, heldOrganizations, joinedPeers, peerAccess } from '../consortium/consortiumChaincodeSteps.ts';
import { consortiumOf } from '../consortium/consortiumContext.ts';
import { registerChaincode } from '../consortium/consortiumChaincodeDeploy.ts';
import { consortiumNetworkOr404 } from '../consortium/consortiumChannelAccess.ts';
import { Collection, SourceFile } from '../consortium/chaincodeSchemas.ts';
import { getConsortiumNetworkByChannel } from './sharingNetworks.ts';
import { post } from './configProposals.ts';

/** What travels: the definition and the source, nothing else. */
const SharedChaincodeBody = Type.Object({
  chaincodeId: Type.Integer({ minimum: 1 }),
  channelName: Type.String({ minLength: 1, maxLength: 249 }),
  name: Type.String({ minLength: 1, maxLength: 128 }),
  version: Type.String({ minLength: 1, maxLength: 64 }),
  sequence: Type.Integer({ minimum: 1 }),
  endorsementPolicy: Type.Union([Type.String({ minLength: 1, maxLength: 2000 }), Type.Null()]),
  initRequired: Type.Boolean(),
  collections: Type.Union([Type.Array(Collection, { maxItems: 50 }), Type.Null()]),
  /** The source: its files, or the name of a chaincode-as-a-service image (which the receiving instance's Docker host must have). */
  files: Type.Optional(Type.Array(SourceFile, { minItems: 1, maxItems: 200 })),
  image: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
}, { additionalProperties: false });

/** A: send a chaincode definition of a channel to the peer instance holding another member organization. */
export async function shareChaincode(input: CommandInput, chaincodeId: number, peerId: number | undefined) {
  const { deps } = input;
  const chaincode = await chaincodeOr404(deps, chaincodeId);
  if (chaincode.sharedFrom) {
    throw new ValidationError(`Chaincode ${chaincode.name} ${chaincode.version} was shared with this instance by instance ${chaincode.sharedFrom.instanceId}: only the instance that defined it shares it.`, [{ field: 'chaincode_id', message: 'a chaincode received from a peer' }]);
  }
  const network = await consortiumNetworkOr404(deps, chaincode.networkId);
  // Members of the channel whose organization this instance does not hold: held by a peer instance.
  const remote = network.organizations.filter((o) => typeof o.organizationId !== 'number').map((o) => o.mspId);
  const isMember = (p: SharingPeerRow) => p.organizations.some((o) => remote.includes(o.mspId));
  let peer: SharingPeerRow | undefined;
  if (peerId !== undefined) {
    const p = await getSharingPeer(deps.pool, peerId);
    if (!p) throw new NotFoundError('Peer', peerId);
    if (p.status !== 'active') throw new ForbiddenError(`Peer ${p.id} was revoked.`);
    if (!isMember(p)) throw new ConflictError(`Peer ${p.id} (${p.instanceId}) shares no organization of channel ${network.channelName} (${network.organizations.map((o) => o.mspId).join(', ')}): add its organization to the channel first.`, { peerId: p.id }, 'PEER_NOT_IN_CHANNEL');
    peer = p;
  } else {
    peer = (await listSharingPeers(deps.pool, 1000, 0)).items.find((p) => p.status === 'active' && isMember(p));
    if (!peer) throw new ConflictError(`No active sharing peer holds an organization of channel ${network.channelName}: add the peer's organization to the channel first.`, { networkId: network.id }, 'PEER_NOT_IN_CHANNEL');
  }
  const record = await chaincodeRecord(deps, chaincode.id);
  const body = {
    chaincodeId: chaincode.id, channelName: network.channelName, name: chaincode.name, version: chaincode.version, sequence: chaincode.sequence,
    endorsementPolicy: chaincode.endorsementPolicy, initRequired: chaincode.initRequired, collections: chaincode.collections,
    ...(record.source.kind === 'files' ? { files: record.source.files } : { image: record.source.image }),
  };
  const answer = await post(input, peer, '/sharing/v1/chaincodes', body);
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'RecordChaincodeShared', peerId: peer.id, chaincodeId: chaincode.id, channelName: network.channelName, name: chaincode.name, version: chaincode.version, sequence: chaincode.sequence, at: deps.clock().toISOString() });
  return { chaincode_id: chaincode.id, peer_id: peer.id, instance_id: peer.instanceId, channel_name: network.channelName, status: 'shared', peer_chaincode_id: Number(answer?.chaincodeId) || null };
}

/** B (peer API): record a definition for a channel this instance records, from a peer holding one of its member organizations. */
export async function receiveChaincode(input: CommandInput, peer: SharingPeerRow, body: unknown) {
  const { deps } = input;
  if (!Value.Check(SharedChaincodeBody, body)) {
    const first = [...Value.Errors(SharedChaincodeBody, body)][0];
    throw new ValidationError(`The shared chaincode is not valid: ${first ? `${first.path} ${first.message}` : 'bad body'}.`, [{ field: first?.path || 'body', message: first?.message ?? 'invalid' }]);
  }
  const network = await getConsortiumNetworkByChannel(deps.pool, body.channelName);
  if (!network) throw new ValidationError(`This instance records no channel ${body.channelName}.`, [{ field: 'channelName', message: 'unknown channel' }]);
  if (!network.organizations.some((o) => typeof o.organizationId !== 'number' && peer.organizations.some((p) => p.mspId === o.mspId))) {
    throw new ForbiddenError(`Instance ${peer.instanceId} holds no organization of channel ${body.channelName} here.`);
  }
  const existing = (await deps.pool.query('SELECT id FROM consortium_chaincodes WHERE network_id = $1 AND name = $2 AND version = $3', [network.id, body.name, body.version])).rows[0];
  if (existing) {
    const row = (await getChaincode(deps.pool, existing.id))!;
    // The same share again is no news; anything else under that version is a conflict.
    if (row.sharedFrom?.instanceId === peer.instanceId && row.sharedFrom.chaincodeId === body.chaincodeId) return { chaincodeId: row.id };
    throw new ConflictError(`Channel ${body.channelName} already has ${body.name} version ${body.version} here (record ${row.id}).`, { chaincodeId: row.id }, 'CHAINCODE_VERSION_EXISTS');
  }
  const row = await registerChaincode(input, {
    networkId: network.id, name: body.name, version: body.version, sequence: body.sequence, endorsementPolicy: body.endorsementPolicy ?? undefined,
    initRequired: body.initRequired, collections: body.collections ?? undefined, source: body.files ? { files: body.files } : { image: body.image },
  }, { sharingPeerId: peer.id, instanceId: peer.instanceId, chaincodeId: body.chaincodeId });
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'RecordChaincodeReceived', peerId: peer.id, peerChaincodeId: body.chaincodeId, localChaincodeId: row.id, channelName: body.channelName, name: body.name, version: body.version, sequence: body.sequence, at: deps.clock().toISOString() });
  return { chaincodeId: row.id };
}

const COMMIT_SEEN_WITHIN_MS = 8_000;

/**
 * B (peer API): the instance that shared a chaincode committed it. Once this instance's peer sees
 * the committed definition (its blocks come from the channel's orderer, shortly after), the
 * commit is recorded here and this instance's chaincode server started, so its peers can endorse.
 * Answered within the peer's request timeout: a peer that is slower gets a 409 and the operator
 * finishes with POST /sc/consortium/peer/{peerId}/chaincode/commit here.
 */
export async function receiveChaincodeCommitted(input: CommandInput, peer: SharingPeerRow, body: Record<string, unknown>) {
  const { deps } = input;
  if (!Number.isSafeInteger(body.chaincodeId)) throw new ValidationError('chaincodeId is required.', [{ field: 'chaincodeId', message: 'an integer' }]);
  const found = await deps.pool.query(`SELECT id FROM consortium_chaincodes WHERE shared_from->>'instanceId' = $1 AND shared_from->>'chaincodeId' = $2`, [peer.instanceId, String(body.chaincodeId)]);
  if (!found.rows[0]) throw new NotFoundError('Shared chaincode', Number(body.chaincodeId));
  const chaincode = (await getChaincode(deps.pool, found.rows[0].id))!;
  const network = await consortiumNetworkOr404(deps, chaincode.networkId);
  const held = new Set((await heldOrganizations(deps, network)).map((o) => o.mspId));
  const local = (await joinedPeers(deps, network)).filter((p) => held.has(p.mspId) && chaincode.installedOn[String(p.id)]);
  if (!local.length) throw new ConflictError(`Chaincode ${chaincode.name} ${chaincode.version} is installed on no running peer of this instance: install and approve it here first.`, { chaincodeId: chaincode.id }, 'CHAINCODE_NOT_INSTALLED');
  const access = await peerAccess(deps, local[0]);
  const until = Date.now() + COMMIT_SEEN_WITHIN_MS;
  for (;;) {
    const committed = await consortiumOf(deps).chaincodes.committedDefinition(access, network.channelName, chaincode.name);
    if (committed && committed.sequence >= chaincode.sequence) break;
    if (Date.now() > until) throw new ConflictError(`Peer ${local[0].name} does not show ${chaincode.name} sequence ${chaincode.sequence} committed yet.`, { chaincodeId: chaincode.id }, 'COMMIT_NOT_SEEN');
    await new Promise((r) => setTimeout(r, 500));
  }
  const r = await commitOn(input, chaincode, local[0].id);
  if (r.status !== 'already-committed') throw new AppError(500, 'INTERNAL', 'The commit was made here instead of recorded.');
  return { chaincodeId: chaincode.id, status: r.status, serverStatus: r.server_status };
}
