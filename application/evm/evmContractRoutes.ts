// The routes of EVM contract calls, kept between requests: which contract (its address and ABI),
// network and running node (its JSON-RPC URL) a POST /sc/evm/contracts/{id}/query or /invoke goes
// through. Without them every call made three or four projection reads before its one eth_call.
// Kept in a projected cache (application/projectedCache.ts) that is emptied when the projector
// applies an event that changes what they were read from, whoever appended it: any event the
// nodes, evm networks or evm contracts projections handle (a node started, stopped, reconfigured
// or deleted; a network created or deleted; a contract deployed) and any event of a key stream
// (the key an invoke signs with). A failed look-up (404, 409) is not kept.
import type { AppDeps } from '../deps.ts';
import { projectedCacheOf, type ProjectedCache } from '../projectedCache.ts';
import type { Projector } from '../../projections/projector.ts';
import { nodesProjection } from '../../projections/nodes.ts';
import { evmNetworksProjection } from '../../projections/evm/evmNetworks.ts';
import { evmContractsProjection } from '../../projections/evm/evmContracts.ts';

const ROUTE_TYPES = new Set([nodesProjection, evmNetworksProjection, evmContractsProjection].flatMap((p) => (p.handles === '*' ? [] : p.handles)));

/** Whether an applied event may change a cached contract route. */
export const changesContractRoutes = (e: { streamId: string; type: string }) => ROUTE_TYPES.has(e.type) || e.streamId.startsWith('key-');

const caches = new WeakMap<Pick<Projector, 'onApplied'>, ProjectedCache>();

/** The contract-call route cache of this server (one per projector). */
export function evmContractRoutes(deps: Pick<AppDeps, 'projector'>): ProjectedCache {
  return projectedCacheOf(caches, deps.projector, changesContractRoutes);
}
