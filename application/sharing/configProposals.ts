// Channel config updates whose signatures come from another instance (node sharing). The
// proposing instance prepares the ConfigUpdate, signs it with the admins it holds and sends it to
// the peer that shares the organizations still missing (sharing.proposal.shared / .received);
// an operator of that instance signs it there with its organization's admin, and the signatures
// travel back (sharing.signature.shared / .received); the proposer then submits it to its orderer
// with every signature. The private keys stay where they are: only ConfigSignatures travel.
import { createHash } from 'node:crypto';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { NODE_SHARING_STREAM, nodeSharing } from '../../domain/sharing/nodeSharing.ts';
import { CONSORTIUM_NETWORKS_STREAM, consortiumNetworks } from '../../domain/consortium/consortiumNetwork.ts';
import type { ChannelConfigChange, DetachedConfigSignature } from '../../domain/consortium/consortiumChannelPorts.ts';
import type { ChannelPolicy } from '../../domain/consortium/consortiumPorts.ts';
import { getSharingPeer, listSharingPeers, type SharingPeerRow } from '../../projections/nodeSharing.ts';
import { getConsortiumNetworkByChannel } from './sharingNetworks.ts';
import { getOrganizationByMspId } from '../../projections/organizations.ts';
import { runCommand } from '../commands.ts';
import type { CommandInput } from '../keys/keyCreation.ts';
import { consortiumOf } from '../consortium/consortiumContext.ts';
import { consortiumNetworkOr404, joinedOrderer, networkSigners } from '../consortium/consortiumChannelAccess.ts';
import { instanceIdentity, peerRequestToken, sharingOf, sharingState } from './sharingContext.ts';
import { peerMessage } from './peerCalls.ts';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('base64url');

function distributed(input: CommandInput) {
  const c = consortiumOf(input.deps).channels;
  if (!c.prepareConfigUpdate || !c.signConfigUpdate || !c.submitConfigUpdate || !c.describeConfigUpdate) throw new AppError(503, 'UNAVAILABLE', 'This consortium adapter cannot gather signatures from other instances.');
  return c as Required<typeof c>;
}

/** A signed request to a peer's sharing listener; a 409 there is a 409 here, any other refusal a 502. */
export async function post(input: CommandInput, peer: SharingPeerRow, path: string, body: unknown): Promise<any> {
  const me = await instanceIdentity(input);
  const token = await peerRequestToken(input.deps, me, peer.instanceId, sha256(Buffer.from(JSON.stringify(body))));
  let r;
  try {
    r = await sharingOf(input.deps).postPinned(peer.url, peer.tlsCertificate, path, body, token);
  } catch (err) {
    throw new AppError(502, 'PEER_UNREACHABLE', `The peer instance at ${peer.url} could not be reached: ${(err as Error).message}`, { expose: true });
  }
  if (r.status === 409) throw new ConflictError(`The peer instance refused: ${peerMessage(r)}`, { peerId: peer.id }, String(r.body?.code ?? 'CONFLICT'));
  if (r.status < 200 || r.status >= 300) throw new AppError(502, 'PEER_REFUSED', `The peer instance refused: ${peerMessage(r)}`, { expose: true });
  return r.body;
}

/** A: prepare, sign what this instance can, send to the one peer sharing every missing organization. */
export async function proposeConfigUpdate(input: CommandInput, networkId: number, policies: Record<string, ChannelPolicy>, description: string) {
  const { deps } = input;
  const network = await consortiumNetworkOr404(deps, networkId);
  const orderer = await joinedOrderer(deps, network);
  const signers = await networkSigners(deps, network);
  const change: ChannelConfigChange = { kind: 'policies', policies };
  const d = distributed(input);
  const prepared = await d.prepareConfigUpdate({ orderer: orderer.endpoint, channelName: network.channelName, change, signers });
  if (prepared.status === 'unchanged') return { status: 'unchanged' as const, proposal_id: null, missing_organizations: [], peer_id: null };
  if (!prepared.missingOrganizations.length) throw new ValidationError('This instance holds every signature the update needs: change the channel configuration directly, no proposal is needed.', [{ field: 'policies', message: 'no signature missing' }]);
  const { items } = await listSharingPeers(deps.pool, 1000, 0);
  const holders = items.filter((p) => p.status === 'active' && p.peerShares && prepared.missingOrganizations.every((m) => p.organizations.some((o) => o.mspId === m)));
  if (!holders.length) throw new ConflictError(`No sharing peer shares every organization whose signature is missing (${prepared.missingOrganizations.join(', ')}).`, { missingOrganizations: prepared.missingOrganizations }, 'SIGNATURES_MISSING');
  const peer = holders[0];
  const localSignatures: DetachedConfigSignature[] = [];
  for (const s of signers.filter((x) => prepared.signWith.includes(x.mspId))) {
    if (!localSignatures.some((l) => l.mspId === s.mspId)) localSignatures.push(await d.signConfigUpdate(prepared.updateBytes, s));
  }
  const proposalId = deps.newId();
  const update = Buffer.from(prepared.updateBytes).toString('base64');
  await post(input, peer, '/sharing/v1/proposals', { proposalId, channelName: network.channelName, update, missingOrganizations: prepared.missingOrganizations, description });
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'ShareProposal', proposalId, peerId: peer.id, networkId: network.id, channelName: network.channelName, update, missingOrganizations: prepared.missingOrganizations, description, localSignatures, at: deps.clock().toISOString() });
  return { status: 'awaiting-signatures' as const, proposal_id: proposalId, missing_organizations: prepared.missingOrganizations, peer_id: peer.id };
}

/** B (peer API): a proposal for a channel this instance records, missing signatures of its own organizations only. */
export async function receiveProposal(input: CommandInput, peer: SharingPeerRow, body: Record<string, any>) {
  const { deps } = input;
  if (typeof body.proposalId !== 'string' || typeof body.update !== 'string' || !Array.isArray(body.missingOrganizations)) throw new ValidationError('proposalId, update and missingOrganizations are required.');
  let channelName: string;
  try {
    ({ channelName } = distributed(input).describeConfigUpdate(Buffer.from(body.update, 'base64')));
  } catch (err) {
    // Bytes from another instance: what does not decode as a ConfigUpdate is its error, not ours.
    throw new ValidationError('update is not a channel ConfigUpdate.', [{ field: 'update', message: (err as Error).message.split('\n')[0].slice(0, 200) }]);
  }
  if (channelName !== body.channelName || !(await getConsortiumNetworkByChannel(deps.pool, channelName))) throw new ValidationError(`This instance records no channel ${channelName}.`, [{ field: 'channelName', message: 'unknown channel' }]);
  for (const m of body.missingOrganizations) if (!(await getOrganizationByMspId(deps.pool, String(m)))) throw new ValidationError(`${m} is not an organization of this instance.`, [{ field: 'missingOrganizations', message: String(m) }]);
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'ReceiveProposal', proposalId: body.proposalId, peerId: peer.id, channelName, update: body.update, missingOrganizations: body.missingOrganizations.map(String), description: String(body.description ?? '').slice(0, 1000), at: deps.clock().toISOString() });
}

/** B: an operator signs a received proposal with the admins of the organizations it asks for; the signatures go back. */
export async function signProposal(input: CommandInput, proposalId: string) {
  const { deps } = input;
  const p = (await sharingState(deps)).proposals?.[proposalId];
  if (!p || p.role !== 'signer') throw new NotFoundError('Received proposal', proposalId);
  if (p.status !== 'awaiting-signatures') throw new ConflictError(`Proposal ${proposalId} was already signed here.`);
  const d = distributed(input);
  const bytes = Buffer.from(p.update, 'base64');
  const signatures: DetachedConfigSignature[] = [];
  for (const mspId of p.missingOrganizations) {
    const org = (await getOrganizationByMspId(deps.pool, mspId))!;
    signatures.push(await d.signConfigUpdate(bytes, await consortiumOf(deps).credentials.adminSigner(org.id)));
  }
  const peer = (await getSharingPeer(deps.pool, p.sharingPeerId))!;
  await post(input, peer, '/sharing/v1/signatures', { proposalId, signatures });
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'ShareSignature', proposalId, signatures, at: deps.clock().toISOString() });
  return { proposal_id: proposalId, status: 'signed', signed_by: signatures.map((s) => s.mspId) };
}

/** A (peer API): signatures for a proposal sent to that peer. */
export async function receiveSignatures(input: CommandInput, peer: SharingPeerRow, body: Record<string, any>) {
  if (typeof body.proposalId !== 'string' || !Array.isArray(body.signatures)) throw new ValidationError('proposalId and signatures are required.');
  const signatures = body.signatures.map((s: any) => ({ mspId: String(s?.mspId), signatureHeader: String(s?.signatureHeader), signature: String(s?.signature) }));
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'ReceiveSignature', proposalId: body.proposalId, peerId: peer.id, signatures, at: input.deps.clock().toISOString() });
}

/** A: submit with every signature once the missing ones arrived. */
export async function submitProposal(input: CommandInput, proposalId: string) {
  const { deps } = input;
  const p = (await sharingState(deps)).proposals?.[proposalId];
  if (!p || p.role !== 'proposer') throw new NotFoundError('Proposal', proposalId);
  if (p.status === 'submitted') throw new ConflictError(`Proposal ${proposalId} was already submitted.`);
  const missing = p.missingOrganizations.filter((m) => !p.received.some((r) => r.mspId === m));
  if (missing.length) throw new ConflictError(`Signatures of ${missing.join(', ')} have not arrived yet.`, { missingOrganizations: missing }, 'SIGNATURES_MISSING');
  const network = await consortiumNetworkOr404(deps, p.networkId!);
  const orderer = await joinedOrderer(deps, network);
  const r = await distributed(input).submitConfigUpdate({ orderer: orderer.endpoint, channelName: network.channelName, updateBytes: Buffer.from(p.update, 'base64'), signatures: [...p.localSignatures, ...p.received], submitter: orderer.signer });
  const signedBy = [...p.localSignatures, ...p.received].map((s) => s.mspId);
  await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'RecordConfigUpdate', networkId: network.id, change: { changes: [{ kind: 'proposal', proposalId }] }, configSequence: r.sequence, blockNumber: r.blockNumber, signedBy, at: deps.clock().toISOString() });
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'RecordProposalSubmitted', proposalId, sequence: r.sequence, blockNumber: r.blockNumber, at: deps.clock().toISOString() });
  return { proposal_id: proposalId, status: 'submitted', sequence: r.sequence, block_number: r.blockNumber, signed_by: signedBy };
}
