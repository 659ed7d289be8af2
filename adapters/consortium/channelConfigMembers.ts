// Who a channel's config says is in it: application organizations with their anchor peers,
// orderer organizations with their endpoints, and the consenters (raft or BFT) (for the explorer's map,
// read from the decoded config rather than from what the service recorded).
//   channelMembers(config: ChannelConfigJson) -> ChannelMembers
import type { ChannelConfigJson, ChannelMembers, ConfigGroupJson } from '../../domain/consortium/consortiumChannelPorts.ts';

type AnchorPeersJson = { anchor_peers?: { host: string; port: number }[] } | null;
type EndpointsJson = { addresses?: string[] } | null;
type ConsensusJson = { metadata?: { consenters?: { host: string; port: number }[] } | string | null } | null;

function groupsOf(group: ConfigGroupJson | undefined): [string, ConfigGroupJson][] {
  return Object.entries(group?.groups ?? {});
}

export function channelMembers(config: ChannelConfigJson): ChannelMembers {
  const channel = config.channel_group;
  const application = channel.groups.Application;
  const orderer = channel.groups.Orderer;
  const consensus = orderer?.values.ConsensusType?.value as ConsensusJson;
  const metadata = consensus?.metadata;
  const mapping = (orderer?.values.Orderers?.value as { consenter_mapping?: { host: string; port: number }[] } | undefined)?.consenter_mapping;
  return {
    peerOrganizations: groupsOf(application).map(([mspId, org]) => ({
      mspId,
      anchorPeers: ((org.values.AnchorPeers?.value as AnchorPeersJson)?.anchor_peers ?? []).map((a) => ({ host: a.host, port: a.port })),
    })),
    ordererOrganizations: groupsOf(orderer).map(([mspId, org]) => ({ mspId, endpoints: (org.values.Endpoints?.value as EndpointsJson)?.addresses ?? [] })),
    // etcdraft: the raft metadata's consenters; BFT: the Orderers value's ConsenterMapping.
    consenters: (mapping ?? (typeof metadata === 'object' && metadata ? metadata.consenters ?? [] : [])).map((c) => ({ host: c.host, port: c.port })),
    sequence: Number(config.sequence),
  };
}
