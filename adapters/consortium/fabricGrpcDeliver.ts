// Reads blocks of a channel through the Deliver service of an orderer (AtomicBroadcast.Deliver)
// or a peer (Deliver.Deliver): a signed DELIVER_SEEK_INFO envelope asking for a range, answered by
// the blocks then a status. The signer must satisfy the channel's Readers policy.
//   deliverBlocks({kind, endpoint}, signer, channelName, from, to) -> common.Block[]
//       from/to: a block number or 'newest'
import { common, orderer, peer } from '@hyperledger/fabric-protos';
import { FabricNodeUnreachableError, FabricRefusedError, FabricUnavailableError, type ChannelBlockSource } from '../../domain/consortium/consortiumChannelPorts.ts';
import { retryableStatuses, retryWhileUnavailable } from './fabricRetry.ts';
import type { FabricSigner } from '../../domain/consortium/consortiumPorts.ts';
import { atomicBroadcastClient, deadline, nodeName, peerDeliverClient, withClient } from './fabricGrpc.ts';
import { signedEnvelope } from './fabricSigningEnvelope.ts';

export type DeliverSource = ChannelBlockSource;

export type SeekTarget = number | 'newest';

const statusNames = Object.fromEntries(Object.entries(common.Status).map(([name, code]) => [code, name]));

function seekPosition(target: SeekTarget): orderer.SeekPosition {
  const position = new orderer.SeekPosition();
  if (target === 'newest') position.setNewest(new orderer.SeekNewest());
  else {
    const specified = new orderer.SeekSpecified();
    specified.setNumber(target);
    position.setSpecified(specified);
  }
  return position;
}

function seekInfo(from: SeekTarget, to: SeekTarget): orderer.SeekInfo {
  const info = new orderer.SeekInfo();
  info.setStart(seekPosition(from));
  info.setStop(seekPosition(to));
  // FAIL_IF_NOT_READY: asking for a block the node does not have is an answer, not a wait.
  info.setBehavior(orderer.SeekInfo.SeekBehavior.FAIL_IF_NOT_READY);
  return info;
}

interface DeliverResponseLike {
  getTypeCase(): number;
  getStatus(): number;
  getBlock(): common.Block | undefined;
}

interface DeliverStream {
  write(envelope: common.Envelope): boolean;
  end(): void;
  cancel(): void;
  on(event: 'data', listener: (response: DeliverResponseLike) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  on(event: 'end', listener: () => void): this;
}

/** Blocks from..to; a "not now" from the node (no raft leader yet) is retried for a while (fabricRetry.ts). */
export function deliverBlocks(
  source: DeliverSource,
  signer: FabricSigner,
  channelName: string,
  from: SeekTarget,
  to: SeekTarget,
  timeoutMs = 15_000,
): Promise<common.Block[]> {
  return retryWhileUnavailable(() => deliverOnce(source, signer, channelName, from, to, timeoutMs));
}

async function deliverOnce(
  source: DeliverSource,
  signer: FabricSigner,
  channelName: string,
  from: SeekTarget,
  to: SeekTarget,
  timeoutMs = 15_000,
): Promise<common.Block[]> {
  const node = nodeName(source.endpoint);
  const who = `${source.kind} ${node}`;
  const envelope = await signedEnvelope(signer, common.HeaderType.DELIVER_SEEK_INFO, channelName, seekInfo(from, to).serializeBinary());
  // Both services have the same deliver call: Envelope in, DeliverResponse (block | status) out.
  const factory = source.kind === 'orderer' ? atomicBroadcastClient : peerDeliverClient;
  return withClient<orderer.AtomicBroadcastClient | peer.DeliverClient, common.Block[]>(factory, source.endpoint, (client) => {
    const stream = client.deliver({ deadline: deadline(timeoutMs) }) as unknown as DeliverStream;
    return new Promise<common.Block[]>((resolve, reject) => {
      const blocks: common.Block[] = [];
      let settled = false;
      const finish = (err: Error | null) => {
        if (settled) return;
        settled = true;
        if (err) {
          stream.cancel();
          reject(err);
        } else {
          stream.end();
          resolve(blocks);
        }
      };
      stream.on('data', (response) => {
        const block = response.getBlock();
        if (block) {
          blocks.push(block);
          return;
        }
        const status = response.getStatus();
        if (status === common.Status.SUCCESS) finish(null);
        else {
          const name = statusNames[status] ?? String(status);
          if (retryableStatuses.has(status)) return finish(new FabricUnavailableError(`The ${who} cannot deliver blocks of channel "${channelName}" now: ${name} (no raft leader yet, or an election under way); retry shortly.`, node, channelName, name));
          // NOT_FOUND: the node has not joined the channel (or has not the block); FORBIDDEN: the signer is no reader.
          finish(new FabricRefusedError(`The ${who} refused to deliver blocks ${from}..${to} of channel "${channelName}": ${name}.`, node, channelName, name, name));
        }
      });
      stream.on('error', (err) => finish(new FabricNodeUnreachableError(`Delivering blocks of channel "${channelName}" from the ${who} failed: ${err.message}`, node, channelName)));
      stream.on('end', () => finish(new FabricNodeUnreachableError(`The ${who} closed the deliver stream of channel "${channelName}" without a status.`, node, channelName)));
      stream.write(envelope);
    });
  });
}
