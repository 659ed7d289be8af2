// Config groups of a channel: the shape every level shares (values, policies, sub-groups, the
// policy that may modify it) and the two kinds of organization group configtxgen writes.
//   configGroup({values, policies, groups, modPolicy})   -> common.ConfigGroup
//   peerOrganizationGroup(org)     MSP, AnchorPeers (when given); Readers/Writers/Admins/Endorsement
//   ordererOrganizationGroup(org)  MSP, Endpoints; Readers/Writers/Admins
// Organization policies are signature policies by NodeOU role, as in Fabric's test network.
import { common } from '@hyperledger/fabric-protos';
import type { ChannelOrganization, OrdererOrganization } from '../../domain/consortium/consortiumPorts.ts';
import { configPolicy } from './channelConfigPolicies.ts';
import { anchorPeersMessage, configValue, mspConfig, ordererAddresses } from './channelConfigValues.ts';

export interface GroupParts {
  values?: Record<string, common.ConfigValue>;
  policies?: Record<string, common.ConfigPolicy>;
  groups?: Record<string, common.ConfigGroup>;
  modPolicy?: string;
}

// Keys are written sorted so the same input always gives the same bytes.
function fill<T>(map: { set(key: string, value: T): unknown }, entries: Record<string, T> | undefined): void {
  for (const key of Object.keys(entries ?? {}).sort()) map.set(key, entries![key]);
}

export function configGroup(parts: GroupParts): common.ConfigGroup {
  const group = new common.ConfigGroup();
  fill(group.getValuesMap(), parts.values);
  fill(group.getPoliciesMap(), parts.policies);
  fill(group.getGroupsMap(), parts.groups);
  group.setModPolicy(parts.modPolicy ?? 'Admins');
  return group;
}

const signature = (rule: string) => configPolicy({ type: 'Signature', rule });

export function peerOrganizationGroup(org: ChannelOrganization): common.ConfigGroup {
  const id = org.mspId;
  const values: Record<string, common.ConfigValue> = { MSP: configValue(mspConfig(org)) };
  if (org.anchorPeers?.length) values.AnchorPeers = configValue(anchorPeersMessage(org.anchorPeers));
  return configGroup({
    values,
    policies: {
      Readers: signature(`OR('${id}.admin', '${id}.peer', '${id}.client')`),
      Writers: signature(`OR('${id}.admin', '${id}.client')`),
      Admins: signature(`OR('${id}.admin')`),
      Endorsement: signature(`OR('${id}.peer')`),
    },
  });
}

export function ordererOrganizationGroup(org: OrdererOrganization): common.ConfigGroup {
  const id = org.mspId;
  return configGroup({
    values: { MSP: configValue(mspConfig(org)), Endpoints: configValue(ordererAddresses(org.endpoints)) },
    policies: {
      Readers: signature(`OR('${id}.member')`),
      Writers: signature(`OR('${id}.member')`),
      Admins: signature(`OR('${id}.admin')`),
    },
  });
}
