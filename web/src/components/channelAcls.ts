// The Application ACLs and the /Channel and /Channel/Orderer policies as the decoded channel config
// (GET .../channel-config, configtxlator's JSON) has them, for the channel page's panel
// (web/src/pages/networks/ChannelPolicies.tsx).

interface Group {
  groups?: Record<string, Group>;
  policies?: Record<string, { policy?: { type: number; value: unknown } | null }>;
  values?: Record<string, { value?: unknown }>;
}
/** The decoded config, as much of it as is read here (web/src/components/channelPolicies.ts's ChannelConfigJson fits). */
export interface ConfigJson {
  channel_group?: Group;
}

/** The channel resources Fabric 2.5's configtx.yaml lists (the service refuses others). */
export const ACL_RESOURCES = [
  '_lifecycle/CheckCommitReadiness', '_lifecycle/CommitChaincodeDefinition', '_lifecycle/QueryChaincodeDefinition', '_lifecycle/QueryChaincodeDefinitions',
  'lscc/ChaincodeExists', 'lscc/GetDeploymentSpec', 'lscc/GetChaincodeData', 'lscc/GetInstantiatedChaincodes',
  'qscc/GetChainInfo', 'qscc/GetBlockByNumber', 'qscc/GetBlockByHash', 'qscc/GetTransactionByID', 'qscc/GetBlockByTxID',
  'cscc/GetConfigBlock', 'cscc/GetChannelConfig', 'peer/Propose', 'peer/ChaincodeToChaincode', 'event/Block', 'event/FilteredBlock',
];
export const LEVELS = { ordererPolicies: { label: 'Orderer (/Channel/Orderer)', names: ['Readers', 'Writers', 'Admins', 'BlockValidation'] }, channelPolicies: { label: 'Channel (/Channel)', names: ['Readers', 'Writers', 'Admins'] } } as const;
export type Level = keyof typeof LEVELS;

/** The Application group's ACLs as the decoded config has them, sorted by resource. */
export function aclRows(config: ConfigJson): Array<{ resource: string; policyRef: string }> {
  const acls = (config.channel_group?.groups?.Application?.values?.ACLs?.value as { acls?: Record<string, { policy_ref?: string }> } | undefined)?.acls ?? {};
  return Object.entries(acls).map(([resource, a]) => ({ resource, policyRef: a.policy_ref ?? '' })).sort((a, b) => a.resource.localeCompare(b.resource));
}

/** The policies of /Channel (level channelPolicies) or /Channel/Orderer, sorted by name (format each with channelPolicies.ts's policyText). */
export function levelPolicyRows(config: ConfigJson, level: Level): Array<{ name: string; policy: { type: number; value: unknown } | null | undefined }> {
  const group = level === 'channelPolicies' ? config.channel_group : config.channel_group?.groups?.Orderer;
  return Object.entries(group?.policies ?? {}).map(([name, p]) => ({ name, policy: p.policy })).sort((a, b) => a.name.localeCompare(b.name));
}
