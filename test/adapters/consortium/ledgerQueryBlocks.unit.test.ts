// Block decoding for the explorer: the header hash is SHA-256 of Fabric's ASN.1 encoding of
// (number, previous_hash, data_hash), and transactions carry type, creator MSP and the validation
// code of the TRANSACTIONS_FILTER slot. (The integration test checks the hash against a peer.)
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { common } from '@hyperledger/fabric-protos';
import { blockDetail, blockHeaderHash, blockTransaction } from '../../../adapters/consortium/ledgerQueryBlocks.ts';
import { signedEnvelope } from '../../../adapters/consortium/fabricSigningEnvelope.ts';

const test = suite('block header hash and block decoding');

function header(number: number, previous: Buffer, data: Buffer): common.BlockHeader {
  const h = new common.BlockHeader();
  h.setNumber(number);
  h.setPreviousHash(previous);
  h.setDataHash(data);
  return h;
}

test('the hash is SHA-256 of the DER SEQUENCE { INTEGER, OCTET STRING, OCTET STRING }', () => {
  const previous = Buffer.alloc(32, 0xab);
  const data = Buffer.alloc(32, 0xcd);
  // Written out byte by byte: 30 len | 02 02 00 80 (128 needs a leading zero) | 04 20 .. | 04 20 ..
  const der = Buffer.concat([Buffer.from([0x30, 4 + 34 + 34, 0x02, 0x02, 0x00, 0x80, 0x04, 0x20]), previous, Buffer.from([0x04, 0x20]), data]);
  assert.is(Buffer.from(blockHeaderHash(header(128, previous, data))).toString('hex'), createHash('sha256').update(der).digest('hex'));
  const genesisDer = Buffer.concat([Buffer.from([0x30, 3 + 2 + 34, 0x02, 0x01, 0x00, 0x04, 0x00, 0x04, 0x20]), data]);
  assert.is(Buffer.from(blockHeaderHash(header(0, Buffer.alloc(0), data))).toString('hex'), createHash('sha256').update(genesisDer).digest('hex'));
});

test('transactions are decoded with id, type, creator MSP, timestamp and validation code', async () => {
  const signer = { mspId: 'Org1MSP', certificatePem: 'CERT', sign: async () => new Uint8Array([1]) };
  const envelopes = [
    await signedEnvelope(signer, common.HeaderType.ENDORSER_TRANSACTION, 'ch', new Uint8Array()),
    await signedEnvelope(signer, common.HeaderType.CONFIG, 'ch', new Uint8Array()),
  ].map((e) => e.serializeBinary());
  const block = new common.Block();
  block.setHeader(header(7, Buffer.alloc(32, 1), Buffer.alloc(32, 2)));
  const data = new common.BlockData();
  data.setDataList(envelopes);
  block.setData(data);
  const metadata = new common.BlockMetadata();
  metadata.setMetadataList([new Uint8Array(), new Uint8Array(), new Uint8Array([0, 11]), new Uint8Array(), new Uint8Array()]);
  block.setMetadata(metadata);
  const detail = blockDetail(block);
  assert.is(detail.number, 7);
  assert.is(detail.transactionCount, 2);
  assert.is(detail.previousHash, '01'.repeat(32));
  assert.equal(detail.transactions.map((t) => [t.type, t.creatorMspId, t.validationCode]), [
    ['ENDORSER_TRANSACTION', 'Org1MSP', 'VALID'],
    ['CONFIG', 'Org1MSP', 'MVCC_READ_CONFLICT'],
  ]);
  assert.match(detail.transactions[0].txId, /^[0-9a-f]{64}$/);
  assert.is(detail.timestamp, detail.transactions[0].timestamp);
});

test('a transaction is found in its block by id, with the validation code of its slot and the block number', async () => {
  const signer = { mspId: 'Org2MSP', certificatePem: 'CERT', sign: async () => new Uint8Array([1]) };
  const made = await Promise.all([0, 1].map(() => signedEnvelope(signer, common.HeaderType.ENDORSER_TRANSACTION, 'ch', new Uint8Array())));
  const ids = made.map((e) => blockDetail(blockOf(9, [e.serializeBinary()], [0])).transactions[0].txId);
  // The second transaction twice: the later copy is the duplicate (code 9, DUPLICATE_TXID).
  const block = blockOf(9, [made[0], made[1], made[1]].map((e) => e.serializeBinary()), [0, 11, 9]);
  const second = blockTransaction(block, ids[1]);
  assert.is(second?.blockNumber, 9);
  assert.is(second?.validationCode, 'MVCC_READ_CONFLICT');
  assert.is(second?.creatorMspId, 'Org2MSP');
  assert.is(blockTransaction(block, ids[0])?.validationCode, 'VALID');
  assert.is(blockTransaction(block, 'f'.repeat(64)), null);
  // A block without a filter (never so on a committing peer): no code rather than a wrong one.
  assert.is(blockTransaction(blockOf(3, [made[0].serializeBinary()], []), ids[0])?.validationCode, null);
});

function blockOf(number: number, envelopes: Uint8Array[], codes: number[]): common.Block {
  const block = new common.Block();
  block.setHeader(header(number, Buffer.alloc(32, 1), Buffer.alloc(32, 2)));
  const data = new common.BlockData();
  data.setDataList(envelopes);
  block.setData(data);
  const metadata = new common.BlockMetadata();
  metadata.setMetadataList([new Uint8Array(), new Uint8Array(), new Uint8Array(codes), new Uint8Array(), new Uint8Array()]);
  block.setMetadata(metadata);
  return block;
}

test.run();
