// Reads a channel's ledger from a peer through the Fabric Gateway (@hyperledger/fabric-gateway,
// the peer's gateway service) by evaluating the query system chaincode (qscc), as an identity
// that satisfies the channel's Readers policy. No ledger data is kept: every call asks the peer
// (over the peer's one kept connection).
//   chainInfo({peer, signer}, channel)        -> { height, currentBlockHash, previousBlockHash } (hex)
//   block({peer, signer}, channel, number)    -> BlockDetail
//   transaction({peer, signer}, channel, txId) -> TransactionDetail (validation code + block number)
import { connect, GatewayError, hash, type Gateway } from '@hyperledger/fabric-gateway';
import { common } from '@hyperledger/fabric-protos';
import * as grpc from '@grpc/grpc-js';
import { FabricNodeUnreachableError, FabricRefusedError, type BlockDetail, type ChainInfo, type PeerReader, type TransactionDetail } from '../../domain/consortium/consortiumChannelPorts.ts';
import { dropSharedClient, nodeName, sharedGrpcClient } from './fabricGrpc.ts';
import { NotFoundError } from '../../domain/shared/errors.ts';
import { blockDetail, blockTransaction } from './ledgerQueryBlocks.ts';

async function evaluateQscc(reader: PeerReader, channelName: string, fn: string, args: string[]): Promise<Uint8Array> {
  // The peer's connection is shared with the chaincode gateway and kept (fabricGrpc.ts).
  const client = sharedGrpcClient(reader.peer);
  let gateway: Gateway | undefined;
  try {
    gateway = connect({
      client,
      identity: { mspId: reader.signer.mspId, credentials: Buffer.from(reader.signer.certificatePem) },
      // FabricSigner hashes (SHA-256) itself: the gateway hands it the whole message.
      hash: hash.none,
      signer: (message) => reader.signer.sign(message),
      evaluateOptions: () => ({ deadline: Date.now() + 30_000 }),
    });
    return await gateway.getNetwork(channelName).getContract('qscc').evaluateTransaction(fn, channelName, ...args);
  } catch (err) {
    const details = err instanceof GatewayError ? err.details.map((d) => `${d.address}: ${d.message}`).join('; ') : '';
    const message = `${(err as Error).message}${details ? ` (${details})` : ''}`;
    const node = nodeName(reader.peer);
    const code = err instanceof GatewayError ? err.code : null;
    if (code === null || code === grpc.status.UNAVAILABLE || code === grpc.status.DEADLINE_EXCEEDED) {
      dropSharedClient(reader.peer);
      throw new FabricNodeUnreachableError(`Peer ${node} did not answer qscc ${fn} on channel "${channelName}": ${message}`, node, channelName);
    }
    // qscc answers an unknown block or transaction as an error of the evaluate call (gRPC UNKNOWN), with its message.
    throw new FabricRefusedError(`Peer ${node} refused qscc ${fn} on channel "${channelName}" for ${reader.signer.mspId}: ${message}`, node, channelName, `grpc ${grpc.status[code] ?? code}`, message);
  } finally {
    gateway?.close();
  }
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

export async function chainInfo(reader: PeerReader, channelName: string): Promise<ChainInfo> {
  const info = common.BlockchainInfo.deserializeBinary(await evaluateQscc(reader, channelName, 'GetChainInfo', []));
  return { height: info.getHeight(), currentBlockHash: hex(info.getCurrentblockhash_asU8()), previousBlockHash: hex(info.getPreviousblockhash_asU8()) };
}

export async function block(reader: PeerReader, channelName: string, blockNumber: number): Promise<BlockDetail> {
  return blockDetail(common.Block.deserializeBinary(await evaluateQscc(reader, channelName, 'GetBlockByNumber', [String(blockNumber)])));
}

export async function transaction(reader: PeerReader, channelName: string, txId: string): Promise<TransactionDetail> {
  // One question: the block that holds the transaction. It carries the envelope, the validation
  // code (the block's TRANSACTIONS_FILTER, which the peer's index that GetTransactionByID reads
  // was written from) and the block's number; GetTransactionByID has no number, so asking it too
  // cost a second proposal, signature and round trip.
  const bytes = await evaluateQscc(reader, channelName, 'GetBlockByTxID', [txId]).catch((err: unknown) => {
    // qscc: "Failed to get block for txID ..., error entry not found in index" for an id the ledger does not have.
    if (err instanceof FabricRefusedError && /no such transaction ID|not found/i.test(err.fabricMessage)) throw new NotFoundError('Transaction', txId);
    throw err;
  });
  const found = blockTransaction(common.Block.deserializeBinary(bytes), txId);
  if (!found) {
    const node = nodeName(reader.peer);
    throw new FabricRefusedError(`Peer ${node} answered GetBlockByTxID for transaction ${txId} of channel "${channelName}" with a block that does not hold it.`, node, channelName, null, '');
  }
  return found;
}
