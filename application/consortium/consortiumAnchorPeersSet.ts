// Setting an organization's anchor peers on a consortium network's channel: a config update
// signed by the admins this service holds, sent to a joined orderer, recorded with
// RecordAnchorPeers when the config changed.
import type { CommandInput } from '../commands.ts';
import type { AppDeps } from '../deps.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { channelNetworkOr404, consortiumNetworkOr404 } from './consortiumChannelAccess.ts';
import { applyPlannedChange, type PlannedConfigChange } from './consortiumConfigChange.ts';

export interface AnchorPeersRequest {
  /** The organization's mspId. */
  organizationId: string;
  /** Host and port of its anchor peers; [] removes them. */
  anchorPeers: { host: string; port: number }[];
}

/** The network by id; with a channel name, that must be its channel (404 otherwise). The change, checked, nothing signed. */
export async function planAnchorPeers(deps: AppDeps, target: { networkId: number; channelName?: string }, req: AnchorPeersRequest): Promise<PlannedConfigChange> {
  const network = target.channelName === undefined ? await consortiumNetworkOr404(deps, target.networkId) : await channelNetworkOr404(deps, target.networkId, target.channelName);
  if (!network.organizations.some((o) => o.mspId === req.organizationId)) {
    throw new ValidationError(`${req.organizationId} is not an application organization of channel ${network.channelName}.`, [{ field: 'organizationId', message: `not an organization of ${network.channelName} (${network.organizations.map((o) => o.mspId).join(', ')})` }]);
  }
  return { network, changes: [{ kind: 'anchorPeers', mspId: req.organizationId, anchorPeers: req.anchorPeers }], record: { kind: 'anchorPeers', mspId: req.organizationId, anchorPeers: req.anchorPeers } };
}

export async function setAnchorPeers(input: CommandInput, target: { networkId: number; channelName?: string }, req: AnchorPeersRequest, opts: { dryRun?: boolean } = {}) {
  return applyPlannedChange(input, await planAnchorPeers(input.deps, target, req), opts);
}
