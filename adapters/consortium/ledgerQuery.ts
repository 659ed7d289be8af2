// Reads a channel's ledger from a peer through the Fabric Gateway (@hyperledger/fabric-gateway,
// the peer's gateway service) by evaluating the query system chaincode (qscc), as an identity
// that satisfies the channel's Readers policy. Nothing is kept: every call asks the peer.
//   chainInfo({peer, signer}, channel)        -> { height, currentBlockHash, previousBlockHash } (hex)
//   block({peer, signer}, channel, number)    -> BlockDetail
//   transaction({peer, signer}, channel, txId) -> TransactionDetail (validation code + block number)
import { connect, GatewayError, hash, type Gateway } from '@hyperledger/fabric-gateway';
import { common, peer } from '@hyperledger/fabric-protos';
import type { BlockDetail, ChainInfo, PeerReader, TransactionDetail } from '../../domain/consortium/consortiumChannelPorts.ts';
import { grpcClient, nodeName } from './fabricGrpc.ts';
import { blockDetail, envelopeTransaction } from './ledgerQueryBlocks.ts';

export class LedgerQueryError extends Error {
  constructor(
    message: string,
    /** gRPC status code of the gateway's answer (5 = NOT_FOUND is not used by qscc: it answers 2 UNKNOWN with a message). */
    readonly grpcCode: number | null,
    readonly fabricMessage: string,
  ) {
    super(message);
  }
}

async function evaluateQscc(reader: PeerReader, channelName: string, fn: string, args: string[]): Promise<Uint8Array> {
  const client = grpcClient(reader.peer);
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
    throw new LedgerQueryError(
      `Peer ${nodeName(reader.peer)} did not answer qscc ${fn} on channel "${channelName}" for ${reader.signer.mspId}: ${message}`,
      err instanceof GatewayError ? err.code : null,
      message,
    );
  } finally {
    gateway?.close();
    client.close();
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
  const processed = peer.ProcessedTransaction.deserializeBinary(await evaluateQscc(reader, channelName, 'GetTransactionByID', [txId]));
  const envelope = processed.getTransactionenvelope();
  if (!envelope) throw new LedgerQueryError(`Peer ${nodeName(reader.peer)} returned transaction ${txId} of channel "${channelName}" without its envelope.`, null, '');
  const containing = common.Block.deserializeBinary(await evaluateQscc(reader, channelName, 'GetBlockByTxID', [txId]));
  return { ...envelopeTransaction(envelope.serializeBinary(), processed.getValidationcode()), blockNumber: containing.getHeader()?.getNumber() ?? 0 };
}
