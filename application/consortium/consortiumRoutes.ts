// The routes of the consortium's hot read paths, kept between requests: which record, network,
// committed version, organization, peer and peer endpoint a chaincode query or invoke goes
// through, and which network and peer reader an explorer read (a block, a transaction, the chain
// information) goes through. Without them every request made five to seven projection reads
// before its one gateway call. Kept in a projected cache (application/projectedCache.ts) that is
// emptied when the projector applies an event that changes what they were read from, whoever
// appended it: any event the nodes, consortium networks or chaincode projections handle (a node's
// status, configuration or deletion; members, joins, anchor peers; a new committed version, a
// server assigned) and any event of an organization or key stream (the admin signer and the TLS
// CA). A chaincode's invocation log is none of these (every invoke appends to it).
import type { AppDeps } from '../deps.ts';
import { projectedCacheOf, type ProjectedCache } from '../projectedCache.ts';
import type { Projector } from '../../projections/projector.ts';
import { nodesProjection } from '../../projections/nodes.ts';
import { consortiumNetworksProjection } from '../../projections/consortium/consortiumNetworks.ts';
import { consortiumChaincodesProjection } from '../../projections/consortium/consortiumChaincodes.ts';

const ROUTE_TYPES = new Set([nodesProjection, consortiumNetworksProjection, consortiumChaincodesProjection].flatMap((p) => (p.handles === '*' ? [] : p.handles)));

/** Whether an applied event may change a cached route. */
export const changesRoutes = (e: { streamId: string; type: string }) =>
  ROUTE_TYPES.has(e.type) || e.streamId.startsWith('organization-') || e.streamId.startsWith('key-');

const caches = new WeakMap<Pick<Projector, 'onApplied'>, ProjectedCache>();

/** The route cache of this server (one per projector). */
export function consortiumRoutes(deps: Pick<AppDeps, 'projector'>): ProjectedCache {
  return projectedCacheOf(caches, deps.projector, changesRoutes);
}
