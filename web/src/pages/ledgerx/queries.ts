// ledgerX (Fabric-X) data for the console: networks (polled: joins change them), a network's
// groups and their role nodes, its map. Types come from the service's OpenAPI document.
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Json } from '../../api/client';
import { POLL_MS } from '../../api/queries';

export type LedgerXNetwork = Json<'/api/v1/networks/ledgerx/{id}', 'get'>;
export type LedgerXMember = LedgerXNetwork['nodes'][number];
export type LedgerXNode = Json<'/api/v1/networks/ledgerx/{id}/nodes', 'get'>['items'][number];
export type LedgerXMap = Json<'/api/v1/networks/ledgerx/{id}/map', 'get'>;
export type LedgerXBlock = Json<'/api/v1/networks/ledgerx/{id}/blocks/{blockNum}', 'get'>;
export type LedgerXTransaction = Json<'/api/v1/networks/ledgerx/{id}/transactions/{txId}', 'get'>;
export type LedgerXNamespace = Json<'/api/v1/networks/ledgerx/{id}/namespaces', 'get'>['items'][number];

/** The four roles of an orderer group and the five services of a committer, in the order they are shown. */
export const ORDERER_ROLES = ['router', 'batcher', 'consenter', 'assembler'] as const;
export const COMMITTER_SERVICES = ['sidecar', 'coordinator', 'vc', 'verifier', 'query'] as const;
export const ROLE_LABEL: Record<string, string> = {
  router: 'Router',
  batcher: 'Batcher',
  consenter: 'Consenter',
  assembler: 'Assembler',
  sidecar: 'Sidecar',
  coordinator: 'Coordinator',
  vc: 'Validator-committer',
  verifier: 'Verifier',
  query: 'Query service',
};

export function useLedgerXNetworks() {
  return useQuery({
    queryKey: ['networks', 'ledgerx'],
    refetchInterval: 5_000,
    queryFn: () => unwrap(api.GET('/api/v1/networks/ledgerx', { params: { query: { limit: 500 } } })),
  });
}

export function useLedgerXNetwork(id: number) {
  return useQuery({
    queryKey: ['networks', 'ledgerx', id],
    refetchInterval: POLL_MS,
    queryFn: () => unwrap(api.GET('/api/v1/networks/ledgerx/{id}', { params: { path: { id } } })),
  });
}

export function useLedgerXNetworkNodes(id: number) {
  return useQuery({
    queryKey: ['nodes', 'ledgerx-network', id],
    refetchInterval: POLL_MS,
    queryFn: () => unwrap(api.GET('/api/v1/networks/ledgerx/{id}/nodes', { params: { path: { id } } })),
  });
}
