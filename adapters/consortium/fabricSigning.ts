// Fabric signers: an organization's admin (or any member) signing proposals, envelopes and config
// updates. Fabric verifies ECDSA P-256 over SHA-256 and refuses high-S signatures (it normalizes
// its own, and a high-S one is treated as malleable), so every signature leaves here low-S.
//   keyProviderFabricSigner(provider, handle, spec, mspId, certPem) -> FabricSigner over KeyProvider.sign
//   privateKeyFabricSigner(keyObject, mspId, certPem)              -> FabricSigner over a local key (tests)
//   serializedIdentity(signer)   -> msp.SerializedIdentity bytes (the "creator" of Fabric headers)
import { sign as nodeSign, type KeyObject } from 'node:crypto';
import { msp } from '@hyperledger/fabric-protos';
import type { KeyProvider, KeySpec } from '../../domain/keys/keyProvider.ts';
import type { FabricSigner } from '../../domain/consortium/consortiumPorts.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { toLowS } from '../keyProviders/signingEcdsa.ts';

function requireP256(spec: KeySpec, mspId: string): void {
  if (spec.algorithm !== 'EC' || spec.curve !== 'P-256') {
    throw new ValidationError(`The signing key of ${mspId} must be EC P-256 for Fabric (it is ${spec.algorithm}${spec.curve ? ' ' + spec.curve : ''}).`, [
      { field: 'key', message: 'Fabric signs with ECDSA P-256' },
    ]);
  }
}

export function keyProviderFabricSigner(provider: KeyProvider, handle: string, spec: KeySpec, mspId: string, certPem: string): FabricSigner {
  requireP256(spec, mspId);
  return {
    mspId,
    certificatePem: certPem,
    sign: async (message) => toLowS(await provider.sign(handle, spec, { data: Buffer.from(message), hash: 'sha256' }), 'P-256'),
  };
}

export function privateKeyFabricSigner(key: KeyObject, mspId: string, certPem: string): FabricSigner {
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType !== 'ec' || (curve !== 'prime256v1' && curve !== 'P-256')) requireP256({ algorithm: 'RSA' }, mspId);
  return {
    mspId,
    certificatePem: certPem,
    sign: async (message) => toLowS(nodeSign('sha256', message, { key, dsaEncoding: 'der' }), 'P-256'),
  };
}

export function serializedIdentity(signer: Pick<FabricSigner, 'mspId' | 'certificatePem'>): Uint8Array {
  const identity = new msp.SerializedIdentity();
  identity.setMspid(signer.mspId);
  identity.setIdBytes(Buffer.from(signer.certificatePem));
  return identity.serializeBinary();
}
