// The node and network records a saga needs to act on a node, read from the event store (the
// sagas' own source of truth, independent of projection lag), with the network's other nodes
// (besu nodes are started with their peers' enodes).
//
// Which nodes belong to a network: NodeCreated carries the networkId and a node never changes
// network, so an index networkId -> node ids, built by reading the global log once and then
// only the events appended since, stays exact. Each peer's current record (config changes,
// deletion) then comes from its own stream.
import { loadState } from '../../domain/shared/commandHandler.ts';
import type { EventStore } from '../../domain/shared/eventStore.ts';
import { nodeAggregate, nodeStream, type NodeState } from '../../domain/nodes/node.ts';
import { type EvmNodeCreatedData } from '../../domain/evm/evmNode.ts';
import { EVM_NETWORKS_STREAM, type EvmNetworkCreatedData } from '../../domain/evm/evmNetwork.ts';
import type { EvmNodeRuntime, EvmNodeTarget } from '../../domain/evm/evmPorts.ts';
import type { NodeOperationsFor } from '../../domain/nodes/nodeOperations.ts';

interface NetworkNodeIndex {
  position: number;
  byNetwork: Map<number, Set<number>>;
  /** Serializes catch-ups, so two concurrent loads never read the same events twice. */
  busy: Promise<unknown>;
}

const indexes = new WeakMap<EventStore, NetworkNodeIndex>();
const PAGE = 1000;

async function catchUp(store: EventStore, index: NetworkNodeIndex): Promise<void> {
  // A store that went back (a test database reset) starts the index again.
  if ((await store.headPosition()) < index.position) {
    index.position = 0;
    index.byNetwork.clear();
  }
  for (;;) {
    const batch = await store.readAll(index.position, PAGE);
    for (const e of batch) {
      if (e.type === 'NodeCreated' && typeof e.data.networkId === 'number' && typeof e.data.nodeId === 'number') {
        const ids = index.byNetwork.get(e.data.networkId) ?? new Set<number>();
        ids.add(e.data.nodeId);
        index.byNetwork.set(e.data.networkId, ids);
      }
      index.position = e.position;
    }
    if (batch.length < PAGE) return;
  }
}

async function nodeIdsOf(store: EventStore, networkId: number): Promise<number[]> {
  let index = indexes.get(store);
  if (!index) {
    index = { position: 0, byNetwork: new Map(), busy: Promise.resolve() };
    indexes.set(store, index);
  }
  const i = index;
  const run = i.busy.then(() => catchUp(store, i));
  i.busy = run.catch(() => undefined);
  await run;
  return [...(i.byNetwork.get(networkId) ?? [])];
}

/** The network's nodes other than `exceptNodeId`, as they are now (deleted ones left out). */
export async function loadNetworkPeers(store: EventStore, networkId: number, exceptNodeId: number): Promise<EvmNodeCreatedData[]> {
  const ids = (await nodeIdsOf(store, networkId)).filter((id) => id !== exceptNodeId).sort((a, b) => a - b);
  const states = await Promise.all(ids.map((id) => loadState(store, nodeStream(id), nodeAggregate)));
  return states.flatMap(({ state }) => (state.node?.platform === 'EVM' && !state.deleted ? [state.node] : []));
}

/**
 * The node's runtime target. `peers: false` leaves the network's other nodes out: only a start
 * needs them (besu seeds), and the health monitor probes every node every few seconds.
 */
export async function loadEvmNodeTarget(store: EventStore, nodeId: number, opts: { peers?: boolean } = {}): Promise<{ target: EvmNodeTarget | null; state: NodeState }> {
  const { state } = await loadState(store, nodeStream(nodeId), nodeAggregate);
  if (!state.node || state.node.platform !== 'EVM') return { target: null, state };
  const node = state.node;
  const network = await networkCreated(store, node.networkId);
  if (!network) return { target: null, state };
  const peers = opts.peers === false ? [] : await loadNetworkPeers(store, node.networkId, nodeId);
  return { target: { node, network, peers }, state };
}

// A network's NetworkCreated data never changes once appended (settings changes are events of
// their own that the target does not read), so it is read from the networks stream once per
// network: the health monitor asks for it at every probe of every node, and that stream grows
// with every network.
const createdNetworks = new WeakMap<EventStore, Map<number, EvmNetworkCreatedData>>();

async function networkCreated(store: EventStore, networkId: number): Promise<EvmNetworkCreatedData | null> {
  let known = createdNetworks.get(store);
  if (!known) createdNetworks.set(store, (known = new Map()));
  const cached = known.get(networkId);
  if (cached) return cached;
  const events = await store.readStream(EVM_NETWORKS_STREAM);
  for (const e of events) if (e.type === 'NetworkCreated') known.set(Number(e.data.networkId), e.data as unknown as EvmNetworkCreatedData);
  return known.get(networkId) ?? null;
}

/** The evm platform's node operations for the lifecycle saga and the health monitor. */
export function evmNodeOperations(store: EventStore, runtime: EvmNodeRuntime): NodeOperationsFor {
  return async (node, purpose) => {
    if (node.platform !== 'EVM') return null;
    // The health monitor hands in the record it has just folded from the node's stream: an
    // observation needs nothing more than that and the network (no second read of the stream).
    const network = purpose === 'observe' ? await networkCreated(store, node.networkId) : null;
    const target = network ? { node, network, peers: [] } : (await loadEvmNodeTarget(store, node.nodeId, { peers: purpose === 'start' })).target;
    if (!target) return null;
    return {
      start: () => runtime.start(target),
      ...(runtime.restart ? { restart: () => runtime.restart!(target) } : {}),
      stop: () => runtime.stop(target),
      remove: (o) => runtime.remove(target, o),
      status: () => runtime.status(target),
      probe: (timeoutMs) => runtime.live(target, timeoutMs),
    };
  };
}
