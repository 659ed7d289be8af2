// Shared queries: the lists several pages show, polled where their state changes by itself
// (node status and block height move without anyone clicking).
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Json } from './client';

export type NodeList = Json<'/api/v1/nodes', 'get'>;
export type NodeItem = NodeList['items'][number];
export type EvmNetwork = Json<'/api/v1/networks/evm/{id}', 'get'>;
export type ConsortiumNetwork = Json<'/api/v1/networks/consortium', 'get'>['items'][number];

export const POLL_MS = 2_000;
const PAGE = 500; // the API's largest page

/** Every node (the list pages through the API 500 at a time), polled. */
export function useAllNodes(platform?: 'CONSORTIUM' | 'EVM' | 'LEDGERX') {
  return useQuery({
    queryKey: ['nodes', 'all', platform ?? ''],
    refetchInterval: POLL_MS,
    queryFn: async () => {
      const items: NodeItem[] = [];
      for (let offset = 0; ; offset += PAGE) {
        const page = await unwrap(api.GET('/api/v1/nodes', { params: { query: { limit: PAGE, offset, ...(platform ? { platform } : {}) } } }));
        items.push(...page.items);
        if (items.length >= page.total || page.items.length === 0 || offset >= 20_000) return { items, total: page.total };
      }
    },
  });
}

export const NODE_STATUSES = ['created', 'starting', 'running', 'stopping', 'stopped', 'error', 'down'] as const;
export type NodeStatusFilter = (typeof NODE_STATUSES)[number];

/** One page of nodes, filtered by the server (GET /nodes?platform=&status=), polled. */
export function useNodePage(f: { platform?: 'CONSORTIUM' | 'EVM' | 'LEDGERX'; status?: NodeStatusFilter; limit: number; offset: number }) {
  return useQuery({
    queryKey: ['nodes', 'page', f.platform ?? '', f.status ?? '', f.limit, f.offset],
    refetchInterval: POLL_MS,
    placeholderData: (previous) => previous,
    // A platform picked: the platform's own list (GET /nodes/platform/{platform}); otherwise every node.
    queryFn: () => {
      const query = { limit: f.limit, offset: f.offset, ...(f.status ? { status: f.status } : {}) };
      return f.platform ? unwrap(api.GET('/api/v1/nodes/platform/{platform}', { params: { path: { platform: f.platform }, query } })) : unwrap(api.GET('/api/v1/nodes', { params: { query } }));
    },
  });
}

export function useEvmNetworks() {
  return useQuery({
    queryKey: ['networks', 'evm'],
    refetchInterval: 5_000,
    queryFn: () => unwrap(api.GET('/api/v1/networks/evm', { params: { query: { limit: PAGE } } })),
  });
}

export function useConsortiumNetworks() {
  return useQuery({
    queryKey: ['networks', 'consortium'],
    refetchInterval: 5_000,
    queryFn: () => unwrap(api.GET('/api/v1/networks/consortium', { params: { query: { limit: PAGE } } })),
  });
}

export const HOSTS_POLL_MS = 5_000;

/** Every node host (GET /hosts; only asked with HOST_READ), polled: their status is re-checked by the service. */
export function useHosts(enabled = true) {
  return useQuery({ queryKey: ['hosts', 'all'], enabled, refetchInterval: HOSTS_POLL_MS, queryFn: () => unwrap(api.GET('/api/v1/hosts', { params: { query: { limit: PAGE } } })) });
}
