import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPairSync } from 'node:crypto';
import { SigningKey } from 'ethers';
import { enodeId, enodeUrl, parseEnodeUrl } from '../../../domain/evm/enode.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

// The public key of private key 1 is the secp256k1 generator point G.
const G = '79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8';

test('the node id is the uncompressed public key without 04, from 65-byte, 64-byte or compressed hex', () => {
  assert.is(enodeId('0x04' + G), G);
  assert.is(enodeId(G), G);
  assert.is(enodeId('0x0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798'), G);
});

test('the node id of an SPKI PEM key equals the one of its raw key', () => {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const jwk = publicKey.export({ format: 'jwk' });
  const raw = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  assert.is(enodeId(pem), raw.subarray(1).toString('hex'));
  assert.is(enodeId(pem), SigningKey.computePublicKey(raw, false).slice(4));
});

test('enode URL: enode://<id>@ip:port, with discport only when it differs', () => {
  assert.is(enodeUrl(G, '127.0.0.1', 30303), `enode://${G}@127.0.0.1:30303`);
  assert.is(enodeUrl(G, '10.0.0.5', 30303, 30301), `enode://${G}@10.0.0.5:30303?discport=30301`);
  assert.is(enodeUrl(G, '::1', 30303), `enode://${G}@[::1]:30303`);
});

test('enode URLs parse back into id, host and ports', () => {
  assert.equal(parseEnodeUrl(`enode://${G}@10.0.0.5:30303?discport=30301`), { nodeId: G, host: '10.0.0.5', port: 30303, discport: 30301 });
  assert.equal(parseEnodeUrl(`enode://${G}@[::1]:30303`), { nodeId: G, host: '::1', port: 30303, discport: 30303 });
});

test('a point not on the curve, a 32-byte private key, a host name or a bad port is refused', () => {
  const refused = (fn: () => unknown) => assert.throws(fn, (e: unknown) => e instanceof ValidationError);
  refused(() => enodeId('04' + '11'.repeat(64)));
  refused(() => enodeId('0x' + '01'.padStart(64, '0')));
  refused(() => enodeUrl(G, 'node1.example.com', 30303));
  refused(() => enodeUrl(G, '127.0.0.1', 0));
  refused(() => parseEnodeUrl(`enode://${G}@127.0.0.1`));
});

test.run();
