// Changing a consortium network's channel configuration: organizations added to its application
// group (an organization of this service, or one a sharing peer shares; removing one is
// removeChannelOrganization, below, one organization per update), application policies and the orderer's batch settings set, in one config update transaction signed by the
// admins this service holds, recorded with RecordConfigUpdate when the config changed.
import type { CommandInput } from '../commands.ts';
import type { AppDeps } from '../deps.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import type { ChannelConfigChange } from '../../domain/consortium/consortiumChannelPorts.ts';
import type { ChannelBatchSettings } from '../../domain/consortium/consortiumPorts.ts';
import { getOrganizationByMspId } from '../../projections/organizations.ts';
import { sharedOrganization } from '../../projections/nodeSharing.ts';
import { consortiumOf } from './consortiumContext.ts';
import { channelNetworkOr404 } from './consortiumChannelAccess.ts';
import { applyPlannedChange, type PlannedConfigChange } from './consortiumConfigChange.ts';

export interface ChannelConfigRequest {
  /** mspIds the channel's application group should have: those not yet in it are added. */
  organizations?: string[];
  /** Application policies by name (Readers, Writers, Admins, Endorsement, LifecycleEndorsement). */
  policies?: Record<string, { type: 'ImplicitMeta' | 'Signature'; rule: string }>;
  /** The orderer's batch settings (batch timeout, batch size); those not given are kept. */
  batch?: Partial<ChannelBatchSettings>;
}

/** The change a channel config request makes (organizations checked), nothing signed. */
export async function planChannelConfig(deps: AppDeps, target: { networkId: number; channelName: string }, req: ChannelConfigRequest): Promise<PlannedConfigChange> {
  const network = await channelNetworkOr404(deps, target.networkId, target.channelName);
  const batchGiven = req.batch && Object.values(req.batch).some((v) => v !== undefined);
  if (!req.organizations && !req.policies && !batchGiven) throw new ValidationError('Give organizations, policies or batch settings to change.', [{ field: 'organizations', message: 'nothing to change' }]);
  const changes: Array<{ change: ChannelConfigChange; record: Record<string, unknown> }> = [];
  if (req.organizations) {
    const current = network.organizations.map((o) => o.mspId);
    const removed = current.filter((m) => !req.organizations!.includes(m));
    if (removed.length) throw new ValidationError(`This body only adds organizations (${removed.join(', ')} would be removed): list every current organization, and remove one with the channel's "Remove an organization" action.`, [{ field: 'organizations', message: `would remove ${removed.join(', ')}` }]);
    for (const [i, mspId] of req.organizations.entries()) {
      if (current.includes(mspId)) continue;
      const org = await getOrganizationByMspId(deps.pool, mspId);
      // An organization of a peer instance (node sharing): its public MSP as the peer shared it.
      const shared = org ? null : await sharedOrganization(deps.pool, mspId);
      if (!org && !shared) throw new ValidationError(`Organization ${mspId} is neither an organization of this service nor one a sharing peer shares: its MSP cannot be added.`, [{ field: `organizations[${i}]`, message: 'unknown mspId' }]);
      const msp = org ? await consortiumOf(deps).credentials.organizationMsp(org.id) : shared!;
      changes.push({ change: { kind: 'addOrganization', organization: msp }, record: { kind: 'addOrganization', organization: { organizationId: org?.id ?? null, mspId } } });
    }
  }
  if (req.policies) changes.push({ change: { kind: 'policies', policies: req.policies }, record: { kind: 'policies', policies: req.policies } });
  if (batchGiven) changes.push({ change: { kind: 'batch', batch: req.batch! }, record: { kind: 'batch', batch: req.batch } });
  // One config transaction for the whole request: one set of signatures, one new config.
  return { network, changes: changes.map((c) => c.change), record: { changes: changes.map((c) => c.record) } };
}

export async function updateChannelConfig(input: CommandInput, target: { networkId: number; channelName: string }, req: ChannelConfigRequest, opts: { dryRun?: boolean } = {}) {
  return applyPlannedChange(input, await planChannelConfig(input.deps, target, req), opts);
}

/** Removing an application organization, checked (a member of the channel, not the last one), nothing signed. */
export async function planOrganizationRemoval(deps: AppDeps, target: { networkId: number; channelName: string }, mspId: string): Promise<PlannedConfigChange> {
  const network = await channelNetworkOr404(deps, target.networkId, target.channelName);
  if (!network.organizations.some((o) => o.mspId === mspId)) throw new NotFoundError('Application organization', `${mspId} of channel ${network.channelName}`);
  if (network.organizations.length === 1) {
    throw new ConflictError(`${mspId} is the last application organization of channel ${network.channelName}: a channel without one has no members to read or write it. Nothing was submitted.`, { rule: 'last-organization' }, 'LAST_ORGANIZATION');
  }
  return { network, changes: [{ kind: 'removeOrganization', mspId }], record: { kind: 'removeOrganization', mspId } };
}

/**
 * Removes an application organization from the channel: its group (MSP, policies, anchor peers)
 * leaves /Channel/Application in one config update, signed as /Channel/Application/Admins
 * requires (MAJORITY of the organizations' admins, the leaving one counted). The orderer then
 * refuses that organization's peers and clients (deliver answers FORBIDDEN). The last
 * organization is never removed. `dryRun`: the diff and the signatures missing, nothing submitted.
 */
export async function removeChannelOrganization(input: CommandInput, target: { networkId: number; channelName: string }, mspId: string, opts: { dryRun?: boolean } = {}) {
  return applyPlannedChange(input, await planOrganizationRemoval(input.deps, target, mspId), opts);
}
