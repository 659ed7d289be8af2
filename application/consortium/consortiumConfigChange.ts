// Submitting a channel config change: one config update transaction built from the current
// config, signed by every admin of the channel's organizations this service holds, sent to a
// running joined orderer. A 409 names the organizations whose admin signatures are missing
// (nothing is submitted then). A dry run (previewConfigChange) computes the same update and its
// diff and submits nothing. Used by the anchor-peer, channel-config and consenter use cases.
// Each of those computes its change as a PlannedConfigChange first (rules checked, nothing
// signed), so the same change can also become a signing proposal (application/sharing/
// configProposals.ts) when this service does not hold every signature it needs; recordSubmitted
// records a submitted change the one way, whichever path submitted it.
import type { AppDeps } from '../deps.ts';
import { runCommand, type CommandInput } from '../commands.ts';
import { CONSORTIUM_NETWORKS_STREAM, consortiumNetworks } from '../../domain/consortium/consortiumNetwork.ts';
import { ConflictError } from '../../domain/shared/errors.ts';
import type { ChannelConfigChange, ConfigCheck, ConfigDiffEntry, ConfigUpdatePreview, SignatureRequirement } from '../../domain/consortium/consortiumChannelPorts.ts';
import type { ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import { consortiumOf } from './consortiumContext.ts';
import { orderingOrderer, networkSigners } from './consortiumChannelAccess.ts';

/** What a config update use case answers: updated (new sequence and block, who signed) or unchanged. */
export interface ChannelConfigUpdated {
  network: ConsortiumNetworkRow;
  status: 'updated' | 'unchanged';
  sequence: number;
  blockNumber: number | null;
  signedBy: string[];
  /** What the update changed (empty when unchanged). */
  diff: ConfigDiffEntry[];
}

/** A change a use case computed (its rules checked), not yet signed or submitted. */
export interface PlannedConfigChange {
  network: ConsortiumNetworkRow;
  changes: ChannelConfigChange[];
  /** What the network's record keeps of it once submitted (RecordConfigUpdate's change; kind anchorPeers: RecordAnchorPeers). */
  record: Record<string, unknown>;
  /** Submit through another orderer when there is one (a consenter being removed). */
  avoidOrdererId?: number;
  /** Rules checked against the config the update is computed from (read once, by the port), before anything is computed or signed. */
  check?: ConfigCheck;
}

/** Records a submitted change on the network: RecordAnchorPeers for anchor peers (the network's map shows them), RecordConfigUpdate otherwise. */
export async function recordSubmitted(input: CommandInput, network: ConsortiumNetworkRow, record: Record<string, unknown>, result: { sequence: number; blockNumber: number; signedBy: string[] }, extra: Record<string, unknown> = {}): Promise<void> {
  const at = input.deps.clock().toISOString();
  if (record.kind === 'anchorPeers' && !Object.keys(extra).length) {
    await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'RecordAnchorPeers', networkId: network.id, mspId: String(record.mspId), anchorPeers: record.anchorPeers as { host: string; port: number }[], configSequence: result.sequence, blockNumber: result.blockNumber, at });
    return;
  }
  if (record.kind === 'anchorPeers') {
    await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'RecordAnchorPeers', networkId: network.id, mspId: String(record.mspId), anchorPeers: record.anchorPeers as { host: string; port: number }[], configSequence: result.sequence, blockNumber: result.blockNumber, at });
  }
  await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'RecordConfigUpdate', networkId: network.id, change: { ...record, ...extra }, configSequence: result.sequence, blockNumber: result.blockNumber, signedBy: result.signedBy, at });
}

/** A planned change submitted with the signatures this service holds (409 naming the missing ones), or with `dryRun` only computed: its diff and whose signatures it needs. */
export async function applyPlannedChange(input: CommandInput, planned: PlannedConfigChange, opts: { dryRun?: boolean } = {}): Promise<ChannelConfigUpdated & { dryRun: boolean; requirement: SignatureRequirement | null }> {
  const { deps } = input;
  const { network } = planned;
  if (opts.dryRun) {
    const p = await previewConfigChange(deps, network, planned.changes, { avoidOrdererId: planned.avoidOrdererId, check: planned.check });
    const { sequence, unchanged, diff, ...requirement } = p;
    return { network, status: unchanged ? 'unchanged' : 'updated', sequence, blockNumber: null, signedBy: [], diff, dryRun: true, requirement };
  }
  const result = await submitConfigChange(deps, network, planned.changes, { avoidOrdererId: planned.avoidOrdererId, check: planned.check });
  if (result.status !== 'updated') return { network, status: 'unchanged', sequence: result.sequence, blockNumber: null, signedBy: [], diff: [], dryRun: false, requirement: null };
  await recordSubmitted(input, network, planned.record, result);
  return { network, status: 'updated', sequence: result.sequence, blockNumber: result.blockNumber, signedBy: result.signedBy, diff: result.diff, dryRun: false, requirement: null };
}

/** The 409 of a change this service cannot sign alone: the organizations missing, whose signatures count, which are held here. */
export function signaturesMissing(channelName: string, r: SignatureRequirement, what = 'Nothing was submitted.'): ConflictError {
  return new ConflictError(
    `Channel ${channelName} needs admin signatures this service does not hold: ${r.missingOrganizations.join(', ')} (${r.unmet.map((u) => `${u.policyPath}: ${u.rule}, ${u.moreNeeded} more`).join('; ')}). ${what}`,
    { missingOrganizations: r.missingOrganizations, requiredOrganizations: r.requiredOrganizations, heldOrganizations: r.heldOrganizations, policies: r.policies, unmet: r.unmet },
    'SIGNATURES_MISSING',
  );
}

/** The update a change would make, with its diff and the signatures it would miss; nothing submitted. */
export async function previewConfigChange(deps: AppDeps, network: ConsortiumNetworkRow, change: ChannelConfigChange | ChannelConfigChange[], opts: { avoidOrdererId?: number; check?: ConfigCheck } = {}): Promise<ConfigUpdatePreview> {
  const orderer = await orderingOrderer(deps, network, opts.avoidOrdererId);
  const signers = await networkSigners(deps, network);
  return consortiumOf(deps).channels.previewConfigUpdate({ orderer: orderer.endpoint, channelName: network.channelName, change, signers, check: opts.check });
}

/** `avoidOrdererId`: submit through another consenter when there is one (a consenter being removed); `check`: rules run on the config the update is computed from; `timeoutMs`: how long to wait for the new config block once submitted (the adapter's default, 60 s, if absent). */
export async function submitConfigChange(deps: AppDeps, network: ConsortiumNetworkRow, change: ChannelConfigChange | ChannelConfigChange[], opts: { avoidOrdererId?: number; check?: ConfigCheck; timeoutMs?: number } = {}) {
  const orderer = await orderingOrderer(deps, network, opts.avoidOrdererId);
  const signers = await networkSigners(deps, network);
  const result = await consortiumOf(deps).channels.updateChannelConfig({ orderer: orderer.endpoint, consenters: orderer.consenters, channelName: network.channelName, change, signers, check: opts.check, timeoutMs: opts.timeoutMs });
  if (result.status === 'signatures-missing') throw signaturesMissing(network.channelName, result, 'Nothing was submitted: create a signing proposal (POST /nodesharing/proposals) to collect them.');
  return result;
}
