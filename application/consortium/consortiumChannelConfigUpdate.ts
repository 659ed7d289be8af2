// Changing a consortium network's channel configuration: organizations added to its application
// group (an organization of this service, or one a sharing peer shares; removing one is
// removeChannelOrganization, below, one organization per update), application, orderer and channel
// policies and the Application ACLs (checked first: domain/consortium/policyRules.ts), the orderer's batch settings, a BFT
// channel's SmartBFT options, an etcdraft channel's raft options and the capabilities of the channel, orderer and application levels set, in one config update
// transaction signed by the admins this service holds, recorded with RecordConfigUpdate when the
// config changed. Capabilities are checked first (domain/consortium/capabilityRules.ts): never
// lowered (400), channel V3_0 only once every node of the channel runs Fabric 3.x (409 naming
// those that do not). `dryRun`: the diff and the signatures missing, nothing submitted.
import type { CommandInput } from '../commands.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import type { ChannelConfigChange } from '../../domain/consortium/consortiumChannelPorts.ts';
import type { ChannelBatchSettings, ChannelPolicy, OrganizationMsp, RaftOptions, SmartBftOptions } from '../../domain/consortium/consortiumPorts.ts';
import { assertAcls, assertPolicies, policyTreeOf } from '../../domain/consortium/policyRules.ts';
import { getOrganizationByMspId } from '../../projections/organizations.ts';
import { sharedOrganization } from '../../projections/nodeSharing.ts';
import { consortiumOf } from './consortiumContext.ts';
import { channelNetworkOr404 } from './consortiumChannelAccess.ts';
import type { AppDeps } from '../deps.ts';
import type { ChannelConfigJson, ConfigGroupJson } from '../../domain/consortium/consortiumChannelPorts.ts';
import { assertCapabilityLevels, assertV3Nodes, capabilityLevelOf, V3_CAPABILITY, type CapabilityLevel, type ChannelCapabilities } from '../../domain/consortium/capabilityRules.ts';
import { consortiumNetworkMembers, type ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import { listNodes } from '../../projections/nodes.ts';
import { applyPlannedChange, type PlannedConfigChange } from './consortiumConfigChange.ts';

export interface ChannelConfigRequest {
  /** mspIds the channel's application group should have: those not yet in it are added. */
  organizations?: string[];
  /** Application policies by name (Readers, Writers, Admins, Endorsement, LifecycleEndorsement). */
  policies?: Record<string, { type: 'ImplicitMeta' | 'Signature'; rule: string }>;
  /** The orderer's batch settings (batch timeout, batch size); those not given are kept. */
  batch?: Partial<ChannelBatchSettings>;
  /** The capability per level (channel, orderer, application); those not given are kept. */
  capabilities?: ChannelCapabilities;
  /** A smartbft channel's SmartBFT options; those not given are kept, the result checked as at creation. */
  smartBftOptions?: Partial<SmartBftOptions>;
  /** An etcdraft channel's options (etcdraft.Options); those not given are kept, the result checked as Fabric does. */
  raftOptions?: Partial<RaftOptions>;
  /** /Channel/Orderer policies by name (Readers, Writers, Admins, BlockValidation: not on a BFT channel). */
  ordererPolicies?: Record<string, ChannelPolicy>;
  /** /Channel policies by name (Readers, Writers, Admins). */
  channelPolicies?: Record<string, ChannelPolicy>;
  /** The Application group's ACLs: Fabric resource name to a policy reference (absolute, or relative to /Channel/Application). */
  acls?: Record<string, string>;
}

const nonEmpty = (r: Record<string, unknown> | undefined): r is Record<string, unknown> => !!r && Object.keys(r).length > 0;

/**
 * The policies and ACLs of a request against the channel's current config
 * (domain/consortium/policyRules.ts): each rule valid, naming only organizations of its group,
 * the group still modifiable; ACL resources known and their policies defined.
 */
function checkPolicies(network: ConsortiumNetworkRow, config: ChannelConfigJson, req: ChannelConfigRequest): void {
  const tree = policyTreeOf(config);
  const bft = network.consensus === 'smartbft';
  for (const level of ['policies', 'ordererPolicies', 'channelPolicies'] as const) {
    if (req[level]) assertPolicies(tree, level, req[level]!, { bft });
  }
  if (req.acls) assertAcls(tree, req.acls);
}

/** The capabilities each level of the channel's current config has (configtxlator's JSON). */
function capabilitiesOf(config: ChannelConfigJson): Record<CapabilityLevel, string[]> {
  const names = (group: ConfigGroupJson | undefined) => Object.keys((group?.values?.Capabilities?.value as { capabilities?: Record<string, unknown> } | undefined)?.capabilities ?? {});
  const root = config.channel_group;
  return { channel: names(root), orderer: names(root.groups?.Orderer), application: names(root.groups?.Application) };
}

/**
 * The capability rules, against the channel's current config: a level lowered is a 400; channel
 * V3_0 asked where the channel is below it is a 409 while a node of the channel (this service's
 * peers and orderers joined to it) records a release older than 3.0, naming each.
 */
async function checkCapabilities(deps: AppDeps, network: ConsortiumNetworkRow, config: ChannelConfigJson, asked: ChannelCapabilities): Promise<void> {
  const current = capabilitiesOf(config);
  assertCapabilityLevels(current, asked);
  if (asked.channel !== V3_CAPABILITY || capabilityLevelOf('channel', current.channel) === V3_CAPABILITY) return;
  const joined = (await consortiumNetworkMembers(deps.pool, network.id)).filter((m) => m.joinedAt !== null);
  const rows = joined.length ? (await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: joined.map((m) => m.nodeId) })).items : [];
  assertV3Nodes(network.channelName, joined.map((m) => {
    const row = rows.find((r) => r.id === m.nodeId);
    return { nodeId: m.nodeId, name: row?.name ?? `node ${m.nodeId}`, role: m.role === 'orderer' ? 'orderer' : 'peer', fabricVersion: row?.consortiumConfig?.fabricVersion ?? null };
  }));
}

/**
 * The MSP of an organization a channel takes in: one of this service (organizationId), or one a
 * sharing peer shares (its public MSP as the peer shared it; organizationId null); a 400 on
 * `field` otherwise.
 */
export async function memberMsp(deps: AppDeps, mspId: string, field: string): Promise<{ msp: OrganizationMsp; organizationId: number | null }> {
  const org = await getOrganizationByMspId(deps.pool, mspId);
  const shared = org ? null : await sharedOrganization(deps.pool, mspId);
  if (!org && !shared) throw new ValidationError(`Organization ${mspId} is neither an organization of this service nor one a sharing peer shares: its MSP cannot be added.`, [{ field, message: 'unknown mspId' }]);
  return { msp: org ? await consortiumOf(deps).credentials.organizationMsp(org.id) : shared!, organizationId: org?.id ?? null };
}

/** The change a channel config request makes (organizations checked), nothing signed. */
export async function planChannelConfig(deps: AppDeps, target: { networkId: number; channelName: string }, req: ChannelConfigRequest): Promise<PlannedConfigChange> {
  const network = await channelNetworkOr404(deps, target.networkId, target.channelName);
  const batchGiven = req.batch && Object.values(req.batch).some((v) => v !== undefined);
  const capabilitiesGiven = req.capabilities && Object.values(req.capabilities).some((v) => v !== undefined);
  const bftGiven = req.smartBftOptions && Object.values(req.smartBftOptions).some((v) => v !== undefined);
  const raftGiven = req.raftOptions && Object.values(req.raftOptions).some((v) => v !== undefined);
  const policiesGiven = nonEmpty(req.policies) || nonEmpty(req.ordererPolicies) || nonEmpty(req.channelPolicies) || nonEmpty(req.acls);
  if (!req.organizations && !req.policies && !policiesGiven && !batchGiven && !capabilitiesGiven && !bftGiven && !raftGiven) throw new ValidationError('Give organizations, policies, orderer or channel policies, ACLs, batch settings, capabilities, SmartBFT or raft options to change.', [{ field: 'organizations', message: 'nothing to change' }]);
  if (bftGiven && network.consensus !== 'smartbft') throw new ValidationError(`smartBftOptions are the options of a smartbft channel; channel ${network.channelName} is ${network.consensus}.`, [{ field: 'smartBftOptions', message: 'only on a smartbft channel' }]);
  if (raftGiven && network.consensus === 'smartbft') throw new ValidationError(`raftOptions are the options of an etcdraft channel; channel ${network.channelName} is ${network.consensus}.`, [{ field: 'raftOptions', message: 'only on an etcdraft channel' }]);
  const changes: Array<{ change: ChannelConfigChange; record: Record<string, unknown> }> = [];
  if (req.organizations) {
    const current = network.organizations.map((o) => o.mspId);
    const removed = current.filter((m) => !req.organizations!.includes(m));
    if (removed.length) throw new ValidationError(`This body only adds organizations (${removed.join(', ')} would be removed): list every current organization, and remove one with the channel's "Remove an organization" action.`, [{ field: 'organizations', message: `would remove ${removed.join(', ')}` }]);
    for (const [i, mspId] of req.organizations.entries()) {
      if (current.includes(mspId)) continue;
      const { msp, organizationId } = await memberMsp(deps, mspId, `organizations[${i}]`);
      changes.push({ change: { kind: 'addOrganization', organization: msp }, record: { kind: 'addOrganization', organization: { organizationId, mspId } } });
    }
  }
  if (req.policies) changes.push({ change: { kind: 'policies', policies: req.policies }, record: { kind: 'policies', policies: req.policies } });
  if (nonEmpty(req.ordererPolicies)) changes.push({ change: { kind: 'policies', policies: req.ordererPolicies, groupPath: ['Orderer'] }, record: { kind: 'policies', group: '/Channel/Orderer', policies: req.ordererPolicies } });
  if (nonEmpty(req.channelPolicies)) changes.push({ change: { kind: 'policies', policies: req.channelPolicies, groupPath: [] }, record: { kind: 'policies', group: '/Channel', policies: req.channelPolicies } });
  if (nonEmpty(req.acls)) changes.push({ change: { kind: 'acls', acls: req.acls }, record: { kind: 'acls', acls: req.acls } });
  if (batchGiven) changes.push({ change: { kind: 'batch', batch: req.batch! }, record: { kind: 'batch', batch: req.batch } });
  if (capabilitiesGiven) changes.push({ change: { kind: 'capabilities', capabilities: req.capabilities! }, record: { kind: 'capabilities', capabilities: req.capabilities } });
  if (bftGiven) changes.push({ change: { kind: 'smartBftOptions', options: req.smartBftOptions! }, record: { kind: 'smartBftOptions', options: req.smartBftOptions } });
  if (raftGiven) changes.push({ change: { kind: 'raftOptions', options: req.raftOptions! }, record: { kind: 'raftOptions', options: req.raftOptions } });
  // The capability and policy rules run on the config the update is computed from (one read).
  const check = capabilitiesGiven || policiesGiven ? async (config: ChannelConfigJson) => {
    if (capabilitiesGiven) await checkCapabilities(deps, network, config, req.capabilities!);
    if (policiesGiven) checkPolicies(network, config, req);
  } : undefined;
  // One config transaction for the whole request: one set of signatures, one new config.
  return { network, changes: changes.map((c) => c.change), record: { changes: changes.map((c) => c.record) }, check };
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
