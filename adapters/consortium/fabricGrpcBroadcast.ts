// Submits one envelope to an orderer's Broadcast service and waits for its answer. SUCCESS means
// the orderer accepted it for ordering (not yet that a block holds it); anything else comes back as
// an error naming the orderer, the channel and Fabric's status and info.
//   broadcastEnvelope(orderer, channelName, envelope) -> void
import { common, orderer } from '@hyperledger/fabric-protos';
import type { Endpoint } from '../../domain/consortium/consortiumPorts.ts';
import { atomicBroadcastClient, deadline, nodeName, withClient } from './fabricGrpc.ts';

const statusNames = Object.fromEntries(Object.entries(common.Status).map(([name, code]) => [code, name]));

export class BroadcastError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly info: string,
  ) {
    super(message);
  }
}

export async function broadcastEnvelope(ordererEndpoint: Endpoint, channelName: string, envelope: common.Envelope, timeoutMs = 30_000): Promise<void> {
  const who = `Orderer ${nodeName(ordererEndpoint)}`;
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
        finish(new BroadcastError(`${who} refused the transaction for channel "${channelName}": ${statusNames[status] ?? status}${info ? ` (${info})` : ''}.`, status, info));
      });
      stream.on('error', (err: Error) => finish(new BroadcastError(`Broadcasting to ${who.toLowerCase()} for channel "${channelName}" failed: ${err.message}`, null, err.message)));
      stream.on('end', () => finish(new BroadcastError(`${who} closed the broadcast stream for channel "${channelName}" without an answer.`, null, '')));
      stream.write(envelope);
    });
  });
}
