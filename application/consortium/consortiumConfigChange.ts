// Submitting a channel config change: one config update transaction built from the current
// config, signed by every admin of the channel's organizations this service holds, sent to a
// running joined orderer. A 409 names the organizations whose admin signatures are missing
// (nothing is submitted then). Used by the anchor-peer and channel-config use cases.
import type { AppDeps } from '../deps.ts';
import { ConflictError } from '../../domain/shared/errors.ts';
import type { ChannelConfigChange } from '../../domain/consortium/consortiumChannelPorts.ts';
import type { ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import { consortiumOf } from './consortiumContext.ts';
import { joinedOrderer, networkSigners } from './consortiumChannelAccess.ts';

/** What a config update use case answers: updated (new sequence and block, who signed) or unchanged. */
export interface ChannelConfigUpdated {
  network: ConsortiumNetworkRow;
  status: 'updated' | 'unchanged';
  sequence: number;
  blockNumber: number | null;
  signedBy: string[];
}

export async function submitConfigChange(deps: AppDeps, network: ConsortiumNetworkRow, change: ChannelConfigChange | ChannelConfigChange[]) {
  const orderer = await joinedOrderer(deps, network);
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
