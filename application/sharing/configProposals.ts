// Channel config updates whose signatures come from another instance (node sharing). The
// proposing instance prepares the ConfigUpdate, signs it with the admins it holds and sends it to
// the peer that shares the organizations still missing (sharing.proposal.shared / .received);
// an operator of that instance signs it there with its organization's admin, and the signatures
// travel back (sharing.signature.shared / .received); the proposer then submits it to its orderer
// with every signature. The private keys stay where they are: only ConfigSignatures travel.
// Every change type of a channel (application config, organization removal, anchor peers,
// consenters, revocation lists, an organization's MSP update, orderer organizations added, their
// endpoints and removal) can be proposed; a proposal can also stay on this instance and
// collect detached signatures its operators upload (verified against the channel's MSPs), and
// it is submitted only once its policy, evaluated again against the current config, is met.
import { createHash } from 'node:crypto';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { NODE_SHARING_STREAM, nodeSharing } from '../../domain/sharing/nodeSharing.ts';
import { CONSORTIUM_NETWORKS_STREAM, consortiumNetworks } from '../../domain/consortium/consortiumNetwork.ts';
import type { DetachedConfigSignature, MspUpdate, SignatureRequirement, UnmetPolicy } from '../../domain/consortium/consortiumChannelPorts.ts';
import type { ChannelBatchSettings, ChannelPolicy } from '../../domain/consortium/consortiumPorts.ts';
import { getSharingPeer, listSharingPeers, type SharingPeerRow } from '../../projections/nodeSharing.ts';
import { getConsortiumNetworkByChannel } from './sharingNetworks.ts';
import { getOrganizationByMspId } from '../../projections/organizations.ts';
import { runCommand } from '../commands.ts';
import type { CommandInput } from '../keys/keyCreation.ts';
import { consortiumOf } from '../consortium/consortiumContext.ts';
import { consortiumNetworkOr404, networkSigners, orderingOrderer } from '../consortium/consortiumChannelAccess.ts';
import { recordSubmitted, signaturesMissing, type PlannedConfigChange } from '../consortium/consortiumConfigChange.ts';
import { planChannelConfig, planOrganizationRemoval } from '../consortium/consortiumChannelConfigUpdate.ts';
import { planAnchorPeers } from '../consortium/consortiumAnchorPeersSet.ts';
import { planConsenterChange, rejoinedView, rejoinRemovedConsenter, type ConsenterAction } from '../consortium/consortiumConsenters.ts';
import { planOrganizationCrl } from '../consortium/consortiumOrgCrlPush.ts';
import { planOrganizationMspUpdate } from '../consortium/consortiumOrgMspUpdate.ts';
import { planOrdererEndpoints, planOrdererOrganizationAdd, planOrdererOrganizationRemoval } from '../consortium/consortiumOrdererOrganizations.ts';
import { instanceIdentity, peerRequestToken, sharingOf, sharingState } from './sharingContext.ts';
import { peerMessage } from './peerCalls.ts';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('base64url');

function distributed(input: CommandInput) {
  const c = consortiumOf(input.deps).channels;
  if (!c.prepareConfigUpdate || !c.signConfigUpdate || !c.submitConfigUpdate || !c.describeConfigUpdate || !c.evaluateConfigUpdate || !c.verifyDetachedSignature || !c.configUpdateFile || !c.signaturesOfConfigUpdateFile) throw new AppError(503, 'UNAVAILABLE', 'This consortium adapter cannot gather signatures from other instances.');
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

/** Every change type a signing proposal carries (the bodies of the channel's own change routes). */
export type ProposalChange =
  | { type: 'channel_config'; organizations?: string[]; policies?: Record<string, ChannelPolicy>; ordererPolicies?: Record<string, ChannelPolicy>; channelPolicies?: Record<string, ChannelPolicy>; acls?: Record<string, string>; batch?: Partial<ChannelBatchSettings> }
  | { type: 'remove_organization'; mspId: string }
  | { type: 'anchor_peers'; organizationId: string; anchorPeers: { host: string; port: number }[] }
  | { type: 'consenter'; action: ConsenterAction; nodeId: number }
  | { type: 'revocation_list'; organizationId: number }
  | { type: 'msp_update'; mspId: string; update: MspUpdate }
  | { type: 'orderer_endpoints'; mspId: string; endpoints: string[] }
  | { type: 'add_orderer_organization'; mspId: string; endpoints: string[] }
  | { type: 'remove_orderer_organization'; mspId: string };

/** The change computed by the use case that owns it (its rules checked), nothing signed. */
async function planProposalChange(input: CommandInput, networkId: number, change: ProposalChange): Promise<PlannedConfigChange> {
  const network = await consortiumNetworkOr404(input.deps, networkId);
  const target = { networkId, channelName: network.channelName };
  switch (change.type) {
    case 'channel_config':
      return planChannelConfig(input.deps, target, change);
    case 'remove_organization':
      return planOrganizationRemoval(input.deps, target, change.mspId);
    case 'anchor_peers':
      return planAnchorPeers(input.deps, target, change);
    case 'consenter':
      return planConsenterChange(input, target, change.action, change.nodeId);
    case 'revocation_list':
      return planOrganizationCrl(input, networkId, change.organizationId);
    case 'msp_update':
      return planOrganizationMspUpdate(input.deps, target, change.mspId, change.update);
    case 'orderer_endpoints':
      return planOrdererEndpoints(input.deps, target, change.mspId, change.endpoints);
    case 'add_orderer_organization':
      return planOrdererOrganizationAdd(input.deps, target, change.mspId, change.endpoints);
    case 'remove_orderer_organization':
      return planOrdererOrganizationRemoval(input.deps, target, change.mspId);
  }
}

/** The active sharing peer sharing the most of `missing` (at least one), or null. */
async function peerFor(input: CommandInput, missing: string[]): Promise<{ peer: SharingPeerRow; organizations: string[] } | null> {
  const { items } = await listSharingPeers(input.deps.pool, 1000, 0);
  const ranked = items
    .filter((p) => p.status === 'active' && p.peerShares)
    .map((peer) => ({ peer, organizations: missing.filter((m) => peer.organizations.some((o) => o.mspId === m)) }))
    .filter((x) => x.organizations.length)
    .sort((a, b) => b.organizations.length - a.organizations.length);
  return ranked[0] ?? null;
}

/**
 * A: a signing proposal for any change type. The change is computed by its use case, prepared
 * against the channel's current config (the ConfigUpdate every signer signs, the config sequence
 * it was computed at) and its modification policy evaluated; the admins of this instance sign at
 * once (one ConfigProposalSigned each). `collect: 'peer'` sends it to the sharing peer holding the
 * most of the missing organizations (409 when none does); `collect: 'upload'` keeps it here for
 * detached signatures uploaded by the organizations' operators.
 */
export async function createProposal(input: CommandInput, networkId: number, change: ProposalChange, opts: { description: string; collect: 'peer' | 'upload' }) {
  const { deps } = input;
  const planned = await planProposalChange(input, networkId, change);
  const { network } = planned;
  const orderer = await orderingOrderer(deps, network, planned.avoidOrdererId);
  const signers = await networkSigners(deps, network);
  const d = distributed(input);
  const prepared = await d.prepareConfigUpdate({ orderer: orderer.endpoint, channelName: network.channelName, change: planned.changes, signers, check: planned.check });
  if (prepared.status === 'unchanged') return { status: 'unchanged' as const, proposal_id: null, missing_organizations: [], peer_id: null };
  if (!prepared.missingOrganizations.length) throw new ValidationError('This instance holds every signature the update needs: make the change directly, no proposal is needed.', [{ field: 'change', message: 'no signature missing' }]);
  const holder = opts.collect === 'peer' ? await peerFor(input, prepared.missingOrganizations) : null;
  if (opts.collect === 'peer' && !holder) throw new ConflictError(`No sharing peer shares an organization whose signature is missing (${prepared.missingOrganizations.join(', ')}): create the proposal with collect "upload" and have their operators upload signatures.`, { missingOrganizations: prepared.missingOrganizations }, 'SIGNATURES_MISSING');
  const proposalId = deps.newId();
  const update = Buffer.from(prepared.updateBytes).toString('base64');
  const at = deps.clock().toISOString();
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, {
    type: 'PrepareProposal', proposalId, networkId: network.id, channelName: network.channelName, update, sequence: prepared.sequence, record: planned.record,
    kinds: planned.changes.map((c) => c.kind), diff: prepared.diff, avoidOrdererId: planned.avoidOrdererId ?? null, policies: prepared.policies,
    requiredOrganizations: prepared.requiredOrganizations, missingOrganizations: prepared.missingOrganizations, description: opts.description, at,
  });
  const signedBy: string[] = [];
  // Only the signatures the policies count (an organization-level change of another organization needs none of ours).
  for (const s of signers.filter((x) => prepared.heldOrganizations.includes(x.mspId))) {
    if (signedBy.includes(s.mspId)) continue;
    await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'AddProposalSignature', proposalId, source: 'admin', signature: await d.signConfigUpdate(prepared.updateBytes, s), at: deps.clock().toISOString() });
    signedBy.push(s.mspId);
  }
  if (holder) {
    await post(input, holder.peer, '/sharing/v1/proposals', { proposalId, channelName: network.channelName, update, missingOrganizations: holder.organizations, description: opts.description });
    await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'ShareProposal', proposalId, peerId: holder.peer.id, networkId: network.id, channelName: network.channelName, update, missingOrganizations: holder.organizations, description: opts.description, localSignatures: [], at: deps.clock().toISOString() });
  }
  return {
    status: 'awaiting-signatures' as const, proposal_id: proposalId, peer_id: holder?.peer.id ?? null, sequence: prepared.sequence,
    policies: prepared.policies, required_organizations: prepared.requiredOrganizations, held_organizations: prepared.heldOrganizations,
    missing_organizations: prepared.missingOrganizations, signed_by: signedBy, unmet: unmetView(prepared.unmet),
  };
}

const unmetView = (unmet: UnmetPolicy[]) => unmet.map((u) => ({ policy_path: u.policyPath, rule: u.rule, missing_organizations: u.missingOrganizations, more_needed: u.moreNeeded }));

/** A (legacy body): application policies, sent to a peer. */
export async function proposeConfigUpdate(input: CommandInput, networkId: number, policies: Record<string, ChannelPolicy>, description: string) {
  return createProposal(input, networkId, { type: 'channel_config', policies }, { description, collect: 'peer' });
}

async function ownProposal(input: CommandInput, proposalId: string) {
  const p = (await sharingState(input.deps)).proposals?.[proposalId];
  if (!p || p.role !== 'proposer') throw new NotFoundError('Proposal', proposalId);
  return p;
}

/** A: the proposal evaluated against the channel's current config: whose signatures count, which are collected, which are missing, whether the config moved on since it was prepared. */
export async function proposalStatus(input: CommandInput, proposalId: string) {
  const { deps } = input;
  const p = await ownProposal(input, proposalId);
  const network = await consortiumNetworkOr404(deps, p.networkId!);
  const collected = [...p.localSignatures, ...p.received].map((s) => s.mspId);
  let evaluation: { sequence: number; requirement: SignatureRequirement } | null = null;
  if (p.status !== 'submitted') {
    const orderer = await orderingOrderer(deps, network, p.prepared?.avoidOrdererId ?? undefined);
    evaluation = await distributed(input).evaluateConfigUpdate({ orderer: orderer.endpoint, channelName: network.channelName, updateBytes: Buffer.from(p.update, 'base64'), signedBy: collected, reader: orderer.signer });
  }
  const q = evaluation?.requirement;
  return {
    id: proposalId, network_id: p.networkId, channel_name: p.channelName, description: p.description, status: p.status, peer_id: p.sharingPeerId,
    kinds: p.prepared?.kinds ?? ['policies'], diff: p.prepared?.diff ?? [], changes: distributed(input).describeConfigUpdate(Buffer.from(p.update, 'base64')).changes,
    prepared_sequence: p.prepared?.sequence ?? null, current_sequence: evaluation?.sequence ?? null,
    stale: !!(evaluation && p.prepared && evaluation.sequence !== p.prepared.sequence),
    policies: q?.policies ?? p.prepared?.policies ?? [], required_organizations: q?.requiredOrganizations ?? p.prepared?.requiredOrganizations ?? [],
    signed_by: collected, missing_organizations: q?.missingOrganizations ?? [], unmet: unmetView(q?.unmet ?? []), satisfied: !!q && q.unmet.length === 0, created_at: p.at,
    rejoined: rejoinedView(p.rejoined),
    signatures: [...p.localSignatures, ...p.received].map((s) => {
      const log = p.signatureLog?.find((l) => l.mspId === s.mspId);
      return { msp_id: s.mspId, signer: distributed(input).signerOfConfigSignature?.(s.signatureHeader) ?? null, source: log?.source ?? null, at: log?.at ?? null };
    }),
  };
}

/** A: the update to sign offline: its bytes and the CONFIG_UPDATE file (with the signatures so far) `peer channel signconfigtx -f` signs. */
export async function proposalFile(input: CommandInput, proposalId: string) {
  const p = await ownProposal(input, proposalId);
  const bytes = Buffer.from(p.update, 'base64');
  const d = distributed(input);
  return { id: proposalId, channel_name: p.channelName, update: p.update, envelope: Buffer.from(d.configUpdateFile(p.channelName, bytes, [...p.localSignatures, ...p.received])).toString('base64'), changes: d.describeConfigUpdate(bytes).changes };
}

/**
 * A: a detached signature uploaded by an organization's operator (a ConfigSignature's two fields,
 * or the file signconfigtx signed): verified against the organization's MSP in the channel's
 * current config (400 naming why not), one signature per organization (409 for a second), one
 * ConfigProposalSigned event each.
 */
export async function uploadProposalSignature(input: CommandInput, proposalId: string, body: { signature_header?: string; signature?: string; envelope?: string }) {
  const { deps } = input;
  const p = await ownProposal(input, proposalId);
  if (p.status === 'submitted') throw new ConflictError(`Proposal ${proposalId} was already submitted.`, { proposalId }, 'PROPOSAL_SUBMITTED');
  const d = distributed(input);
  const bytes = Buffer.from(p.update, 'base64');
  const held = [...p.localSignatures, ...p.received];
  let candidates: Array<{ signatureHeader: string; signature: string }>;
  if (body.envelope !== undefined) {
    // signconfigtx keeps the signatures the file had: only the ones not held yet are new.
    candidates = d.signaturesOfConfigUpdateFile(Buffer.from(body.envelope, 'base64'), bytes).filter((c) => !held.some((h) => h.signatureHeader === c.signatureHeader));
    if (!candidates.length) throw new ValidationError('The file carries no signature this proposal does not hold already.', [{ field: 'envelope', message: 'no new signature' }]);
  } else if (body.signature_header && body.signature) {
    candidates = [{ signatureHeader: body.signature_header, signature: body.signature }];
  } else {
    throw new ValidationError('Give signature_header and signature (a ConfigSignature, base64), or envelope (the file peer channel signconfigtx signed, base64).', [{ field: 'signature', message: 'missing' }]);
  }
  const network = await consortiumNetworkOr404(deps, p.networkId!);
  const orderer = await orderingOrderer(deps, network, p.prepared?.avoidOrdererId ?? undefined);
  const verified: DetachedConfigSignature[] = [];
  for (const c of candidates) {
    const v = await d.verifyDetachedSignature({ orderer: orderer.endpoint, channelName: network.channelName, updateBytes: bytes, signature: c, reader: orderer.signer, now: deps.clock() });
    const required = p.prepared?.requiredOrganizations ?? p.missingOrganizations;
    if (!required.includes(v.mspId)) throw new ValidationError(`The signature of ${v.mspId} does not count towards this update's policies (${required.join(', ')} do).`, [{ field: 'signature', message: `${v.mspId} is not required` }], 'SIGNATURE_INVALID');
    verified.push(v);
  }
  for (const v of verified) await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'AddProposalSignature', proposalId, source: 'upload', signature: v, at: deps.clock().toISOString() });
  return { proposal_id: proposalId, added: verified.map((v) => v.mspId), signed_by: [...held, ...verified].map((s) => s.mspId) };
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
export async function signProposal(input: CommandInput, proposalId: string, organizations?: string[]) {
  const { deps } = input;
  const p = (await sharingState(deps)).proposals?.[proposalId];
  if (!p || p.role !== 'signer' || p.sharingPeerId === null) throw new NotFoundError('Received proposal', proposalId);
  if (p.status !== 'awaiting-signatures') throw new ConflictError(`Proposal ${proposalId} was already signed here.`);
  // The operator may sign with some of the organizations asked for (a policy that needs any 2 of 3 needs one here).
  const chosen = organizations ?? p.missingOrganizations;
  const stray = chosen.filter((m) => !p.missingOrganizations.includes(m));
  if (stray.length || !chosen.length) throw new ValidationError(`The proposal asks for signatures of ${p.missingOrganizations.join(', ')}${stray.length ? `, not ${stray.join(', ')}` : ''}.`, [{ field: 'organizations', message: stray.length ? `not asked for: ${stray.join(', ')}` : 'none chosen' }]);
  const d = distributed(input);
  const bytes = Buffer.from(p.update, 'base64');
  const signatures: DetachedConfigSignature[] = [];
  for (const mspId of [...new Set(chosen)]) {
    const org = (await getOrganizationByMspId(deps.pool, mspId))!;
    signatures.push(await d.signConfigUpdate(bytes, await consortiumOf(deps).credentials.adminSigner(org.id)));
  }
  const peer = (await getSharingPeer(deps.pool, p.sharingPeerId!))!;
  await post(input, peer, '/sharing/v1/signatures', { proposalId, signatures });
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'ShareSignature', proposalId, signatures, at: deps.clock().toISOString() });
  return { proposal_id: proposalId, status: 'signed', signed_by: signatures.map((s) => s.mspId) };
}

/** A (peer API): signatures for a proposal sent to that peer. */
export async function receiveSignatures(input: CommandInput, peer: SharingPeerRow, body: Record<string, any>) {
  if (typeof body.proposalId !== 'string' || !Array.isArray(body.signatures)) throw new ValidationError('proposalId and signatures are required.');
  const signatures: DetachedConfigSignature[] = body.signatures.slice(0, 50).map((s: any) => ({ mspId: String(s?.mspId), signatureHeader: String(s?.signatureHeader), signature: String(s?.signature) }));
  // Verified against the channel's MSPs before they are kept: the peer's word on whose they are is not taken.
  const p = (await sharingState(input.deps)).proposals?.[body.proposalId];
  if (p?.role === 'proposer' && p.networkId !== null) {
    const network = await consortiumNetworkOr404(input.deps, p.networkId);
    const orderer = await orderingOrderer(input.deps, network, p.prepared?.avoidOrdererId ?? undefined);
    for (const s of signatures) {
      const v = await distributed(input).verifyDetachedSignature({ orderer: orderer.endpoint, channelName: network.channelName, updateBytes: Buffer.from(p.update, 'base64'), signature: s, reader: orderer.signer, now: input.deps.clock() });
      if (v.mspId !== s.mspId) throw new ValidationError(`A signature said to be of ${s.mspId} is of ${v.mspId}.`, [{ field: 'signatures', message: 'mspId does not match the signer' }], 'SIGNATURE_INVALID');
    }
  }
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'ReceiveSignature', proposalId: body.proposalId, peerId: peer.id, signatures, at: input.deps.clock().toISOString() });
}

/**
 * A: submit once the policy is satisfied, evaluated again against the channel's current config:
 * 409 PROPOSAL_STALE when the config moved on since the proposal was prepared (its read set no
 * longer matches: propose again), 409 SIGNATURES_MISSING naming the organizations otherwise.
 * A BFT consenter removed by it is then rejoined as a follower (rejoinRemovedConsenter, as
 * DELETE .../consenters/{nodeId} does): the answer's `rejoined`.
 */
export async function submitProposal(input: CommandInput, proposalId: string) {
  const { deps } = input;
  const p = await ownProposal(input, proposalId);
  if (p.status === 'submitted') throw new ConflictError(`Proposal ${proposalId} was already submitted.`, { proposalId }, 'PROPOSAL_SUBMITTED');
  const network = await consortiumNetworkOr404(deps, p.networkId!);
  const orderer = await orderingOrderer(deps, network, p.prepared?.avoidOrdererId ?? undefined);
  const signatures = [...p.localSignatures, ...p.received];
  const signedBy = signatures.map((s) => s.mspId);
  const d = distributed(input);
  const updateBytes = Buffer.from(p.update, 'base64');
  const evaluation = await d.evaluateConfigUpdate({ orderer: orderer.endpoint, channelName: network.channelName, updateBytes, signedBy, reader: orderer.signer });
  if (p.prepared && evaluation.sequence !== p.prepared.sequence) {
    throw new ConflictError(`Proposal ${proposalId} is stale: it was prepared against config sequence ${p.prepared.sequence} of channel ${network.channelName}, which is now at ${evaluation.sequence}. Nothing was submitted: propose the change again.`, { preparedSequence: p.prepared.sequence, currentSequence: evaluation.sequence }, 'PROPOSAL_STALE');
  }
  if (evaluation.requirement.unmet.length) throw signaturesMissing(network.channelName, evaluation.requirement, `Collected: ${signedBy.join(', ') || 'none'}. Nothing was submitted.`);
  const r = await d.submitConfigUpdate({ orderer: orderer.endpoint, consenters: orderer.consenters, channelName: network.channelName, updateBytes, signatures, submitter: orderer.signer });
  const result = { sequence: r.sequence, blockNumber: r.blockNumber, signedBy };
  if (p.prepared) await recordSubmitted(input, network, p.prepared.record, result, { proposalId });
  else await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'RecordConfigUpdate', networkId: network.id, change: { changes: [{ kind: 'proposal', proposalId }] }, configSequence: r.sequence, blockNumber: r.blockNumber, signedBy, at: deps.clock().toISOString() });
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'RecordProposalSubmitted', proposalId, sequence: r.sequence, blockNumber: r.blockNumber, at: deps.clock().toISOString() });
  // A consenter removed through the proposal is rejoined as a follower as the direct removal does (BFT).
  const record = p.prepared?.record;
  // Recorded on the proposal (ConfigProposalRejoined) so that its GET and the list say it too.
  const nodeId = Number(record?.nodeId);
  const rejoined = record?.kind === 'removeConsenter' ? await rejoinRemovedConsenter(input, network, nodeId) : null;
  if (rejoined) await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'RecordProposalRejoin', proposalId, nodeId, steps: rejoined.steps, status: rejoined.status, consensusRelation: rejoined.consensusRelation, height: rejoined.height, at: deps.clock().toISOString() });
  return { proposal_id: proposalId, status: 'submitted', sequence: r.sequence, block_number: r.blockNumber, signed_by: signedBy, rejoined: rejoinedView(rejoined) };
}
