// The one query of a consortium network's channel configuration (GET /networks/consortium/{id}/channel-config,
// decoded), shared by the channel configuration page and the channel change sections (one cache entry,
// refreshed every 15 s and after each change they submit, which invalidate ['channel-config', id]).
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { ChannelConfigJson, ConfigGroup } from '../../components/channelPolicies';

export function useChannelConfig(networkId: number) {
  return useQuery({ queryKey: ['channel-config', networkId], refetchInterval: 15_000, retry: false, queryFn: () => unwrap(api.GET('/api/v1/networks/consortium/{id}/channel-config', { params: { path: { id: networkId } } })) });
}

/** An organization's group: under Application, else under Orderer. */
export function organizationGroup(config: ChannelConfigJson | undefined, mspId: string, under?: 'Application' | 'Orderer'): ConfigGroup | undefined {
  const groups = config?.channel_group?.groups;
  return under ? groups?.[under]?.groups?.[mspId] : (groups?.Application?.groups?.[mspId] ?? groups?.Orderer?.groups?.[mspId]);
}
