// The consortium platform's node operations for the lifecycle saga and the health monitor: a
// Fabric peer or orderer is started with its MSP and TLS material (assembled at start from the
// organization's keys, never kept in memory), and is healthy when its /healthz says OK. A
// chaincode server is started with its chaincode's source (files or image, from the chaincode's record)
// and its TLS material (assembled at start as a peer's is) and is healthy when its port accepts connections.
import type { ConsortiumCredentials, ConsortiumNodeRuntime, ConsortiumNodeTarget } from '../../domain/consortium/consortiumPorts.ts';
import type { NodeOperationsFor } from '../../domain/nodes/nodeOperations.ts';
import type { EventStore } from '../../domain/shared/eventStore.ts';
import { loadState } from '../../domain/shared/commandHandler.ts';
import { chaincodeStream, consortiumChaincode } from '../../domain/consortium/consortiumChaincode.ts';
import type { ChaincodeServerRuntime } from '../../domain/consortium/consortiumChaincodePorts.ts';

export function consortiumNodeOperations(runtime: ConsortiumNodeRuntime, credentials: ConsortiumCredentials, chaincode?: { store: EventStore; servers: ChaincodeServerRuntime }): NodeOperationsFor {
  return async (node) => {
    if (node.platform !== 'CONSORTIUM') return null;
    if (node.role === 'chaincode') {
      if (!chaincode) return null;
      const { store, servers } = chaincode;
      return {
        start: async () => {
          const { state } = await loadState(store, chaincodeStream(node.config.chaincodeId), consortiumChaincode);
          if (!state.chaincode) throw new Error(`chaincode ${node.config.chaincodeId} of server ${node.name} is not recorded`);
          return servers.start(node, state.chaincode.source, await credentials.chaincodeServerTls(node));
        },
        stop: () => servers.stop(node),
        remove: () => servers.remove(node),
        status: () => servers.status(node),
        probe: async (timeoutMs) => {
          await servers.live(node, timeoutMs);
          return { blockHeight: null, peerCount: null };
        },
      };
    }
    const target: ConsortiumNodeTarget = { node, organization: { organizationId: node.organizationId, name: node.mspId, mspId: node.mspId } };
    return {
      start: async () => runtime.start(target, await credentials.nodeMaterial(node)),
      ...(runtime.restart ? { restart: async () => runtime.restart!(target, await credentials.nodeMaterial(node)) } : {}),
      stop: () => runtime.stop(target),
      remove: (o) => runtime.remove(target, o),
      status: () => runtime.status(target),
      probe: async (timeoutMs, opts) => {
        // Between two ledger readings (the health monitor's nodeReadingIntervalSeconds): /healthz alone.
        if (opts?.readings === false) {
          await runtime.live(target, timeoutMs);
          return { blockHeight: null, peerCount: null };
        }
        // /healthz and /metrics together (healthy is /healthz's word; the ledger readings may fail on their own).
        const { ledgers } = await runtime.observe(target, timeoutMs);
        return { blockHeight: ledgers?.blockHeight ?? null, peerCount: ledgers?.peerCount ?? null };
      },
    };
  };
}
