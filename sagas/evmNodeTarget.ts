// The node and network records a saga needs to act on a node, read from the event store (the
// sagas' own source of truth, independent of projection lag).
import { loadState } from '../domain/shared/commandHandler.ts';
import type { EventStore } from '../domain/shared/eventStore.ts';
import { evmNode, evmNodeStream, type EvmNodeState } from '../domain/evm/evmNode.ts';
import { EVM_NETWORKS_STREAM, type EvmNetworkCreatedData } from '../domain/evm/evmNetwork.ts';
import type { EvmNodeTarget } from '../domain/evm/evmPorts.ts';

export async function loadEvmNodeTarget(store: EventStore, nodeId: number): Promise<{ target: EvmNodeTarget | null; state: EvmNodeState }> {
  const { state } = await loadState(store, evmNodeStream(nodeId), evmNode);
  if (!state.node) return { target: null, state };
  const events = await store.readStream(EVM_NETWORKS_STREAM);
  const created = events.find((e) => e.type === 'NetworkCreated' && Number(e.data.networkId) === state.node!.networkId);
  if (!created) return { target: null, state };
  return { target: { node: state.node, network: created.data as unknown as EvmNetworkCreatedData }, state };
}
