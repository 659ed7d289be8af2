// Fabric signers: signatures verify as ECDSA P-256 over SHA-256 of the message, are always low-S
// (Fabric refuses high-S), and a key Fabric cannot use is refused with the MSP named.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPairSync, sign as nodeSign, verify } from 'node:crypto';
import { p256 } from '@noble/curves/nist';
import { msp } from '@hyperledger/fabric-protos';
import { keyProviderFabricSigner, privateKeyFabricSigner, serializedIdentity } from '../../../adapters/consortium/fabricSigning.ts';
import { rsToDer } from '../../../adapters/keyProviders/signingEcdsa.ts';
import type { KeyProvider } from '../../../domain/keys/keyProvider.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

const test = suite('Fabric signers (low-S ECDSA P-256)');
const n = p256.Point.Fn.ORDER;
const sOf = (der: Uint8Array) => p256.Signature.fromBytes(der, 'der').s;

test('a local key signs messages that verify with its public key, every signature low-S', async () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signer = privateKeyFabricSigner(privateKey, 'Org1MSP', 'CERT');
  for (let i = 0; i < 40; i++) {
    const message = Buffer.from(`proposal ${i}`);
    const signature = await signer.sign(message);
    assert.ok(verify('sha256', message, { key: publicKey, dsaEncoding: 'der' }, signature), `signature ${i} does not verify`);
    assert.ok(sOf(signature) <= n >> 1n, `signature ${i} is high-S`);
  }
});

test('a key provider returning high-S signatures is normalized to low-S and still verifies', async () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  let highSeen = 0;
  // The port's sign: DER ECDSA over SHA-256 of data; this one always answers with the high-S twin.
  const provider = {
    sign: async (_handle: string, _spec: unknown, input: { data: Buffer }) => {
      const sig = p256.Signature.fromBytes(nodeSign('sha256', input.data, { key: privateKey, dsaEncoding: 'der' }), 'der');
      highSeen++;
      return rsToDer(sig.r, sig.s > n >> 1n ? sig.s : n - sig.s, 'P-256');
    },
  } as unknown as KeyProvider;
  const signer = keyProviderFabricSigner(provider, 'key-1', { algorithm: 'EC', curve: 'P-256' }, 'Org2MSP', 'CERT');
  const message = Buffer.from('config update');
  const signature = await signer.sign(message);
  assert.is(highSeen, 1);
  assert.ok(sOf(signature) <= n >> 1n);
  assert.ok(verify('sha256', message, { key: publicKey, dsaEncoding: 'der' }, signature));
});

test('a key that is not EC P-256 is refused, naming the organization', () => {
  const provider = {} as KeyProvider;
  for (const spec of [{ algorithm: 'EC' as const, curve: 'P-384' as const }, { algorithm: 'RSA' as const, keySize: 2048 as const }]) {
    try {
      keyProviderFabricSigner(provider, 'h', spec, 'Org3MSP', 'CERT');
      assert.unreachable('accepted a key Fabric cannot verify');
    } catch (err) {
      assert.instance(err, ValidationError);
      assert.match((err as Error).message, /Org3MSP/);
    }
  }
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
  assert.throws(() => privateKeyFabricSigner(privateKey, 'Org3MSP', 'CERT'), /Org3MSP/);
});

test('the serialized identity is the MSP id and the certificate PEM', () => {
  const identity = msp.SerializedIdentity.deserializeBinary(serializedIdentity({ mspId: 'Org1MSP', certificatePem: '-----BEGIN CERTIFICATE-----\n' }));
  assert.is(identity.getMspid(), 'Org1MSP');
  assert.is(Buffer.from(identity.getIdBytes_asU8()).toString(), '-----BEGIN CERTIFICATE-----\n');
});

test.run();
