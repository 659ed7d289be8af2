// secp256k1 keys for validators and deployers, generated or imported through a KeyProvider
// (the database provider unless another is passed), so the private key never leaves it.
// Stands in for the organizations/keys service until that exists; the handles it returns are
// the provider's own, so keys made here stay usable from there.
import type { KeyProvider, KeySpec } from '../../domain/keys/keyProvider.ts';
import type { EvmKeyStore } from '../../domain/evm/evmPorts.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { ethereumAddressOf } from '../keyProviders/signingEthereum.ts';
import { parsePrivateKeyPem } from '../keyProviders/privateKeyPem.ts';
import { describeKeySpec } from '../keyProviders/signingAlgorithms.ts';

const SECP256K1: KeySpec = { algorithm: 'EC', curve: 'secp256k1' };

export function createEvmKeyStore(provider: KeyProvider): EvmKeyStore {
  return {
    providerName: provider.type,
    async generate(name) {
      const k = await provider.generateKey(name, SECP256K1);
      return { handle: k.handle, publicKeyPem: k.publicKeyPem, address: ethereumAddressOf(k.publicKeyPem) };
    },
    async importPem(name, privateKeyPem) {
      const { spec } = parsePrivateKeyPem(privateKeyPem, 'validatorKeys');
      if (spec.algorithm !== 'EC' || spec.curve !== 'secp256k1') {
        throw new ValidationError(`A validator key must be an EC secp256k1 key; this one is ${describeKeySpec(spec)}.`, [
          { field: 'validatorKeys', message: `must be secp256k1, got ${describeKeySpec(spec)}` },
        ]);
      }
      const k = await provider.importKey(name, privateKeyPem);
      return { handle: k.handle, publicKeyPem: k.publicKeyPem, address: ethereumAddressOf(k.publicKeyPem) };
    },
  };
}
