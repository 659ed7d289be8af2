// The consortium platform's node operations for the lifecycle saga and the health monitor: a
// Fabric peer or orderer is started with its MSP and TLS material (assembled at start from the
// organization's keys, never kept in memory), and is healthy when its /healthz says OK.
import type { ConsortiumCredentials, ConsortiumNodeRuntime, ConsortiumNodeTarget } from '../../domain/consortium/consortiumPorts.ts';
import type { NodeOperationsFor } from '../../domain/nodes/nodeOperations.ts';

export function consortiumNodeOperations(runtime: ConsortiumNodeRuntime, credentials: ConsortiumCredentials): NodeOperationsFor {
  return async (node) => {
    if (node.platform !== 'CONSORTIUM') return null;
    const target: ConsortiumNodeTarget = { node, organization: { organizationId: node.organizationId, name: node.mspId, mspId: node.mspId } };
    return {
      start: async () => runtime.start(target, await credentials.nodeMaterial(node)),
      stop: () => runtime.stop(target),
      remove: () => runtime.remove(target),
      status: () => runtime.status(target),
      probe: async (timeoutMs) => {
        await runtime.live(target, timeoutMs);
        return { blockHeight: null, peerCount: null };
      },
    };
  };
}
