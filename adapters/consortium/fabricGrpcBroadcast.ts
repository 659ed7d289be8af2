// Submits one envelope to an orderer's Broadcast service and waits for its answer. SUCCESS means
// the orderer accepted it for ordering (not yet that a block holds it); anything else comes back as
// an error naming the orderer, the channel and Fabric's status and info.
//   broadcastEnvelope(orderer, channelName, envelope) -> void
import { common, orderer } from '@hyperledger/fabric-protos';
import { FabricNodeUnreachableError, FabricRefusedError, FabricUnavailableError } from '../../domain/consortium/consortiumChannelPorts.ts';
import { retryableStatuses, retryWhileUnavailable } from './fabricRetry.ts';
import type { Endpoint } from '../../domain/consortium/consortiumPorts.ts';
import { atomicBroadcastClient, deadline, nodeName, withClient } from './fabricGrpc.ts';

const statusNames = Object.fromEntries(Object.entries(common.Status).map(([name, code]) => [code, name]));

/** A "not now" from the orderer (no raft leader yet) is retried for a while (fabricRetry.ts): it accepted nothing. */
export function broadcastEnvelope(ordererEndpoint: Endpoint, channelName: string, envelope: common.Envelope, timeoutMs = 30_000): Promise<void> {
  return retryWhileUnavailable(() => broadcastOnce(ordererEndpoint, channelName, envelope, timeoutMs));
}

async function broadcastOnce(ordererEndpoint: Endpoint, channelName: string, envelope: common.Envelope, timeoutMs: number): Promise<void> {
  const node = nodeName(ordererEndpoint);
  const who = `Orderer ${node}`;
  await withClient(atomicBroadcastClient, ordererEndpoint, (client) => {
    const stream = client.broadcast({ deadline: deadline(timeoutMs) });
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const finish = (err: Error | null) => {
        if (settled) return;
        settled = true;
        stream.end();
        if (err) reject(err);
        else resolve();
      };
      stream.on('data', (response: orderer.BroadcastResponse) => {
        const status = response.getStatus();
        if (status === common.Status.SUCCESS) return finish(null);
        const info = response.getInfo();
        const name = statusNames[status] ?? String(status);
        // SERVICE_UNAVAILABLE: no raft leader right now (election under way, quorum lost); retried by broadcastEnvelope.
        if (retryableStatuses.has(status)) {
          return finish(new FabricUnavailableError(`${who} cannot order for channel "${channelName}" now: ${name}${info ? ` (${info})` : ''}; retry shortly.`, node, channelName, name));
        }
        finish(new FabricRefusedError(`${who} refused the transaction for channel "${channelName}": ${name}${info ? ` (${info})` : ''}.`, node, channelName, name, info, status === common.Status.BAD_REQUEST ? 400 : 409));
      });
      stream.on('error', (err: Error) => finish(new FabricNodeUnreachableError(`Broadcasting to orderer ${node} for channel "${channelName}" failed: ${err.message}`, node, channelName)));
      stream.on('end', () => finish(new FabricNodeUnreachableError(`${who} closed the broadcast stream for channel "${channelName}" without an answer.`, node, channelName)));
      stream.write(envelope);
    });
  });
}
