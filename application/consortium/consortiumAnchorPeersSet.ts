// Setting an organization's anchor peers on a consortium network's channel: a config update
// signed by the admins this service holds, sent to a joined orderer, recorded with
// RecordAnchorPeers when the config changed.
import { runCommand, type CommandInput } from '../commands.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { CONSORTIUM_NETWORKS_STREAM, consortiumNetworks } from '../../domain/consortium/consortiumNetwork.ts';
import { channelNetworkOr404, consortiumNetworkOr404 } from './consortiumChannelAccess.ts';
import { submitConfigChange, type ChannelConfigUpdated } from './consortiumConfigChange.ts';

export interface AnchorPeersRequest {
  /** The organization's mspId. */
  organizationId: string;
  /** Host and port of its anchor peers; [] removes them. */
  anchorPeers: { host: string; port: number }[];
}

/** The network by id; with a channel name, that must be its channel (404 otherwise). */
export async function setAnchorPeers(input: CommandInput, target: { networkId: number; channelName?: string }, req: AnchorPeersRequest): Promise<ChannelConfigUpdated> {
  const { deps } = input;
  const network = target.channelName === undefined ? await consortiumNetworkOr404(deps, target.networkId) : await channelNetworkOr404(deps, target.networkId, target.channelName);
  if (!network.organizations.some((o) => o.mspId === req.organizationId)) {
    throw new ValidationError(`${req.organizationId} is not an application organization of channel ${network.channelName}.`, [{ field: 'organizationId', message: `not an organization of ${network.channelName} (${network.organizations.map((o) => o.mspId).join(', ')})` }]);
  }
  const result = await submitConfigChange(deps, network, { kind: 'anchorPeers', mspId: req.organizationId, anchorPeers: req.anchorPeers });
  if (result.status === 'updated') {
    await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'RecordAnchorPeers', networkId: network.id, mspId: req.organizationId, anchorPeers: req.anchorPeers, configSequence: result.sequence, blockNumber: result.blockNumber, at: deps.clock().toISOString() });
    return { network, status: 'updated', sequence: result.sequence, blockNumber: result.blockNumber, signedBy: result.signedBy, diff: result.diff };
  }
  return { network, status: 'unchanged', sequence: result.sequence, blockNumber: null, signedBy: [], diff: [] };
}
