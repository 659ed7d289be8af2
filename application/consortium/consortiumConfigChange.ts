// Submitting a channel config change: one config update transaction built from the current
// config, signed by every admin of the channel's organizations this service holds, sent to a
// running joined orderer. A 409 names the organizations whose admin signatures are missing
// (nothing is submitted then). A dry run (previewConfigChange) computes the same update and its
// diff and submits nothing. Used by the anchor-peer, channel-config and consenter use cases.
import type { AppDeps } from '../deps.ts';
import { ConflictError } from '../../domain/shared/errors.ts';
import type { ChannelConfigChange, ConfigDiffEntry, ConfigUpdatePreview } from '../../domain/consortium/consortiumChannelPorts.ts';
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

/** The update a change would make, with its diff and the signatures it would miss; nothing submitted. */
export async function previewConfigChange(deps: AppDeps, network: ConsortiumNetworkRow, change: ChannelConfigChange | ChannelConfigChange[], opts: { avoidOrdererId?: number } = {}): Promise<ConfigUpdatePreview> {
  const orderer = await orderingOrderer(deps, network, opts.avoidOrdererId);
  const signers = await networkSigners(deps, network);
  return consortiumOf(deps).channels.previewConfigUpdate({ orderer: orderer.endpoint, channelName: network.channelName, change, signers });
}

/** `avoidOrdererId`: submit through another consenter when there is one (a consenter being removed). */
export async function submitConfigChange(deps: AppDeps, network: ConsortiumNetworkRow, change: ChannelConfigChange | ChannelConfigChange[], opts: { avoidOrdererId?: number } = {}) {
  const orderer = await orderingOrderer(deps, network, opts.avoidOrdererId);
  const signers = await networkSigners(deps, network);
  const result = await consortiumOf(deps).channels.updateChannelConfig({ orderer: orderer.endpoint, channelName: network.channelName, change, signers });
  if (result.status === 'signatures-missing') {
    throw new ConflictError(
      `Channel ${network.channelName} needs admin signatures this service does not hold: ${result.missingOrganizations.join(', ')} (${result.unmet.map((u) => `${u.policyPath}: ${u.rule}, ${u.moreNeeded} more`).join('; ')}). Nothing was submitted.`,
      { missingOrganizations: result.missingOrganizations, unmet: result.unmet },
      'SIGNATURES_MISSING',
    );
  }
  return result;
}
