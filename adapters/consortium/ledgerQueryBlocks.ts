// What a block says, for the explorer: its hash as Fabric computes it (SHA-256 of the ASN.1 DER
// of SEQUENCE { number INTEGER, previous_hash OCTET STRING, data_hash OCTET STRING }, the value the
// next block's previous_hash holds), and its transactions with id, type, creator MSP, timestamp
// and the validation code the committing peer wrote into TRANSACTIONS_FILTER.
//   blockHeaderHash(header)     -> Uint8Array
//   blockDetail(block)          -> BlockDetail (BlockSummary + transactions)
//   decodeBlock(block, decodeTransaction) -> a Fabric-shaped block's header fields and transactions (Fabric-X's too)
//   envelopeTransaction(envelopeBytes, validationCode | null) -> BlockTransaction
//   blockTransaction(block, txId) -> TransactionDetail | null (the first envelope with that id)
import { createHash } from 'node:crypto';
import { common, msp, peer } from '@hyperledger/fabric-protos';
import type { BlockDetail, BlockTransaction, TransactionDetail } from '../../domain/consortium/consortiumChannelPorts.ts';

// Fabric hashes the header with Go's encoding/asn1; three fields need only these DER rules, so a
// library would add a dependency for twenty lines.
function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function derInteger(value: bigint): Buffer {
  // Minimal two's complement, as asn1.Marshal writes an int64 (block numbers are never negative).
  let hex = value.toString(16);
  if (hex.length % 2) hex = '0' + hex;
  let body = Buffer.from(hex, 'hex');
  if (body[0] & 0x80) body = Buffer.concat([Buffer.from([0]), body]);
  return Buffer.concat([Buffer.from([0x02]), derLength(body.length), body]);
}

const derOctets = (bytes: Uint8Array) => Buffer.concat([Buffer.from([0x04]), derLength(bytes.length), Buffer.from(bytes)]);

export function blockHeaderHash(header: common.BlockHeader): Uint8Array {
  const body = Buffer.concat([derInteger(BigInt(header.getNumber())), derOctets(header.getPreviousHash_asU8()), derOctets(header.getDataHash_asU8())]);
  return createHash('sha256').update(Buffer.concat([Buffer.from([0x30]), derLength(body.length), body])).digest();
}

const headerTypeNames = Object.fromEntries(Object.entries(common.HeaderType).map(([name, code]) => [code, name]));
const validationNames = Object.fromEntries(Object.entries(peer.TxValidationCode).map(([name, code]) => [code, name]));

export function validationCodeName(code: number): string {
  return validationNames[code] ?? String(code);
}

export function envelopeTransaction(envelopeBytes: Uint8Array, validationCode: number | null): BlockTransaction {
  const payload = common.Payload.deserializeBinary(common.Envelope.deserializeBinary(envelopeBytes).getPayload_asU8());
  const header = payload.getHeader();
  const channelHeader = common.ChannelHeader.deserializeBinary(header?.getChannelHeader_asU8() ?? new Uint8Array());
  const creator = common.SignatureHeader.deserializeBinary(header?.getSignatureHeader_asU8() ?? new Uint8Array()).getCreator_asU8();
  const timestamp = channelHeader.getTimestamp();
  return {
    txId: channelHeader.getTxId(),
    type: headerTypeNames[channelHeader.getType()] ?? String(channelHeader.getType()),
    // configtxgen's genesis block has no creator.
    creatorMspId: creator.length ? msp.SerializedIdentity.deserializeBinary(creator).getMspid() : null,
    timestamp: timestamp ? timestamp.toDate().toISOString() : null,
    validationCode: validationCode === null ? null : validationCodeName(validationCode),
  };
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** A block's header fields (its hash as Fabric computes it) and each envelope decoded by `decodeTransaction` with its code in TRANSACTIONS_FILTER (null where the filter has none). */
export function decodeBlock<T>(block: common.Block, decodeTransaction: (envelope: Uint8Array, code: number | null) => T) {
  const header = block.getHeader() ?? new common.BlockHeader();
  const data = block.getData()?.getDataList_asU8() ?? [];
  const filter = block.getMetadata()?.getMetadataList_asU8()[common.BlockMetadataIndex.TRANSACTIONS_FILTER] ?? new Uint8Array();
  return {
    number: header.getNumber(),
    hash: hex(blockHeaderHash(header)),
    previousHash: hex(header.getPreviousHash_asU8()),
    dataHash: hex(header.getDataHash_asU8()),
    transactionCount: data.length,
    transactions: data.map((envelope, i) => decodeTransaction(envelope, filter.length > i ? filter[i] : null)),
  };
}

export function blockDetail(block: common.Block): BlockDetail {
  const { transactions, ...fields } = decodeBlock(block, envelopeTransaction);
  return { ...fields, timestamp: transactions[0]?.timestamp ?? null, transactions };
}

/**
 * The transaction `txId` of a block (qscc's GetBlockByTxID answer) with its validation code from
 * the block's TRANSACTIONS_FILTER and the block's number: what GetTransactionByID says plus the
 * number, from one answer. The first envelope with that id: a later one in the same block is a
 * DUPLICATE_TXID, and the peer's index (which GetTransactionByID reads) holds the first.
 */
export function blockTransaction(block: common.Block, txId: string): TransactionDetail | null {
  const data = block.getData()?.getDataList_asU8() ?? [];
  const filter = block.getMetadata()?.getMetadataList_asU8()[common.BlockMetadataIndex.TRANSACTIONS_FILTER] ?? new Uint8Array();
  for (let i = 0; i < data.length; i++) {
    const t = envelopeTransaction(data[i], filter.length > i ? filter[i] : null);
    if (t.txId === txId) return { ...t, blockNumber: block.getHeader()?.getNumber() ?? 0 };
  }
  return null;
}
