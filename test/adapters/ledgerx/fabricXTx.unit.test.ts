// Fabric-X transaction encoding: the DER bytes an endorser signs for a namespace (as Go's
// encoding/asn1 writes fabric-x-common's asn1Namespace), namespace policies both ways, the signed
// meta-namespace transaction creating a namespace (ids, endorsements and envelope signature
// verified here with the public key), and a block read back with its statuses.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash, generateKeyPairSync, verify } from 'node:crypto';
import { common } from '@hyperledger/fabric-protos';
import { derInteger, namespaceCreationTx, namespacePolicyBytes, namespaceSigningBytes, readNamespacePolicy } from '../../../adapters/ledgerx/fabricXTx.ts';
import { decode, fx } from '../../../adapters/ledgerx/fabricXProtos.ts';
import { fabricXBlock } from '../../../adapters/ledgerx/fabricXLedger.ts';
import { privateKeyFabricSigner } from '../../../adapters/consortium/fabricSigning.ts';

const test = suite('ledgerX transactions: ASN.1 signing bytes, namespace policies, the meta-namespace transaction');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

test('INTEGER as Go writes an int64: minimal two\'s complement', () => {
  const cases: [bigint, string][] = [[0n, '020100'], [-1n, '0201ff'], [127n, '02017f'], [128n, '02020080'], [256n, '02020100'], [-128n, '020180'], [-129n, '0202ff7f'], [2n ** 40n, '02060100000000 00'.replace(/ /g, '')]];
  for (const [v, want] of cases) assert.is(hex(derInteger(v)), want, String(v));
});

test('the signed bytes of a namespace: txID, namespace id and version, reads, read-writes (absent version left out), writes; no metadata field when there is none', () => {
  const bytes = namespaceSigningBytes('ab', { nsId: '_meta', nsVersion: 0, readWrites: [{ key: Buffer.from('ns1'), value: Buffer.from([0x0a, 0x0b]), version: null }] });
  assert.is(hex(bytes), '301f' + '0c026162' + '0c055f6d657461' + '020100' + '3000' + '300b3009' + '04036e7331' + '04020a0b' + '3000');
  // A version present is written after the value; a read's after its key; metadata after the id.
  const full = namespaceSigningBytes('t', { nsId: 'n', nsVersion: 2, readsOnly: [{ key: Buffer.from('k'), version: 5 }], readWrites: [{ key: Buffer.from('k2'), value: Buffer.alloc(0), version: 0 }], blindWrites: [{ key: Buffer.from('w'), value: Buffer.from('v') }] }, [Buffer.from('m')]);
  assert.is(hex(full), '302f' + '0c0174' + '3003' + '04016d' + '0c016e' + '020102' + '3008' + '3006' + '04016b' + '020105' + '300b' + '3009' + '04026b32' + '0400' + '020100' + '3008' + '3006' + '040177' + '040176');
});

test('namespace policies: an MSP rule (n of the organizations\' members) and an ECDSA key, read back as written', () => {
  const msp = { type: 'MSP' as const, principals: [{ mspId: 'Org1MSP', role: 'member' as const }, { mspId: 'Org2MSP', role: 'admin' as const }], signaturesRequired: 2 };
  assert.equal(readNamespacePolicy(namespacePolicyBytes(msp)), msp);
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const threshold = { type: 'THRESHOLD' as const, scheme: 'ECDSA', publicKeyPem: pem };
  assert.equal(readNamespacePolicy(namespacePolicyBytes(threshold)), threshold);
  assert.equal(readNamespacePolicy(Buffer.from([0xff, 0xff, 0xff])), { type: 'UNKNOWN' });
});

test('the transaction creating a namespace: MESSAGE envelope signed by the first signer, its id from nonce and creator, a _meta read-write of the name carrying the policy, endorsed by every signer over the ASN.1 bytes', async () => {
  const keys = [generateKeyPairSync('ec', { namedCurve: 'P-256' }), generateKeyPairSync('ec', { namedCurve: 'P-256' })];
  const signers = keys.map((k, i) => privateKeyFabricSigner(k.privateKey, `Org${i + 1}MSP`, `-----BEGIN CERTIFICATE-----\ncert${i}\n-----END CERTIFICATE-----\n`));
  const policy = { type: 'MSP' as const, principals: [{ mspId: 'Org1MSP', role: 'member' as const }], signaturesRequired: 1 };
  const { txId, envelope } = await namespaceCreationTx({ channel: 'arma', name: 'assets', policy, metaVersion: 3, signers });
  const env = common.Envelope.deserializeBinary(envelope);
  assert.ok(verify('sha256', env.getPayload_asU8(), keys[0].publicKey, env.getSignature_asU8()), 'the envelope is signed by the first signer');
  const payload = common.Payload.deserializeBinary(env.getPayload_asU8());
  const ch = common.ChannelHeader.deserializeBinary(payload.getHeader()!.getChannelHeader_asU8());
  const sh = common.SignatureHeader.deserializeBinary(payload.getHeader()!.getSignatureHeader_asU8());
  assert.is(ch.getType(), common.HeaderType.MESSAGE);
  assert.is(ch.getChannelId(), 'arma');
  assert.is(ch.getTxId(), txId);
  assert.is(txId, createHash('sha256').update(sh.getNonce_asU8()).update(sh.getCreator_asU8()).digest('hex'));
  const tx = decode<any>(fx.Tx, payload.getData_asU8());
  assert.is(tx.namespaces.length, 1);
  const ns = tx.namespaces[0];
  assert.is(ns.ns_id, '_meta');
  assert.is(ns.ns_version, 3);
  assert.is(ns.read_writes[0].key.toString(), 'assets');
  const raw = fx.Tx.decode(Buffer.from(payload.getData_asU8())) as any;
  assert.not.ok(Object.prototype.hasOwnProperty.call(raw.namespaces[0].read_writes[0], 'version'), 'no version on the wire: the key must not exist yet');
  assert.equal(readNamespacePolicy(ns.read_writes[0].value), policy);
  const signed = namespaceSigningBytes(txId, { nsId: '_meta', nsVersion: 3, readWrites: [{ key: Buffer.from('assets'), value: ns.read_writes[0].value, version: null }] });
  const endorsements = tx.endorsements[0].endorsements_with_identity;
  assert.is(endorsements.length, 2);
  for (const [i, e] of endorsements.entries()) {
    assert.is(e.identity.msp_id, `Org${i + 1}MSP`);
    assert.is(e.identity.certificate.toString(), signers[i].certificatePem);
    assert.ok(verify('sha256', signed, keys[i].publicKey, e.endorsement), `endorsement ${i} verifies`);
  }

  // The block the sidecar stores holds the envelope and, in TRANSACTIONS_FILTER, one status byte per transaction.
  const block = new common.Block();
  const header = new common.BlockHeader();
  header.setNumber(7);
  header.setPreviousHash(Buffer.alloc(32, 1));
  header.setDataHash(Buffer.alloc(32, 2));
  block.setHeader(header);
  const data = new common.BlockData();
  data.setDataList([envelope, envelope]);
  block.setData(data);
  const metadata = new common.BlockMetadata();
  metadata.setMetadataList([new Uint8Array(), new Uint8Array(), Buffer.from([1, 3])]);
  block.setMetadata(metadata);
  const b = fabricXBlock(block);
  assert.is(b.number, 7);
  assert.is(b.transactionCount, 2);
  assert.is(b.previousHash, '01'.repeat(32));
  assert.equal(b.transactions.map((t) => t.status), ['COMMITTED', 'ABORTED_MVCC_CONFLICT']);
  assert.is(b.transactions[0].txId, txId);
  assert.is(b.transactions[0].creatorMspId, 'Org1MSP');
  assert.equal(b.transactions[0].namespaces, [{ nsId: '_meta', nsVersion: 3, readsOnly: 0, readWrites: 1, blindWrites: 0, keys: ['assets'] }]);
});

test.run();
