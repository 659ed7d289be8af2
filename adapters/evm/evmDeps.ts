// Wiring of the evm ports (domain/evm/evmPorts.ts) for the composition root: the node
// runtime over the process and docker engines, and the contract deployer that signs with the
// key provider holding the deployer key (validator keys are ordinary keys of the key services).
// The runtime also gets read access to database-provider secp256k1 keys (same key_material
// table and KEY_ENCRYPTION_KEY as the key services): besu reads a validator's node key from a
// file, so that key, and only that one, is written into the validator node's directory.
//
// Environment: LNM_NODE_ENGINE (process | docker, default process), LNM_EVM_CLIENT
// (auto | besu | geth | anvil, default auto), LNM_GETH_BIN (the directory holding geth; else the PATH).
import type { NodeEngine } from '../../domain/nodes/nodeEngine.ts';
import type { EvmDeps, EvmDefaults } from '../../domain/evm/evmPorts.ts';
import type { KeyServices } from '../../domain/keys/keyServices.ts';
import { databaseSecp256k1PrivateKey, type SqlQueryable } from '../keyProviders/databaseKeyProvider.ts';
import { resolveKeyEncryptionKey } from '../keyProviders/keyEncryptionKeyFile.ts';
import { createEvmNodeRuntime } from './evmNodeRuntime.ts';
import { createEvmContractDeployer } from './evmContractDeployer.ts';
import { createEvmRpcPort } from './jsonRpc.ts';

export class EvmConfigError extends Error {}

export function evmDefaultsFromEnv(env: Record<string, string | undefined>): EvmDefaults {
  const engine = env.LNM_NODE_ENGINE?.trim() || 'process';
  const client = env.LNM_EVM_CLIENT?.trim() || 'auto';
  if (engine !== 'process' && engine !== 'docker') throw new EvmConfigError(`LNM_NODE_ENGINE must be process or docker, got ${engine}`);
  if (client !== 'auto' && client !== 'besu' && client !== 'geth' && client !== 'anvil') throw new EvmConfigError(`LNM_EVM_CLIENT must be auto, besu, geth or anvil, got ${client}`);
  return { engine, client };
}

export async function createEvmDeps(opts: { pool: SqlQueryable; dataDir: string; keys: KeyServices; env?: Record<string, string | undefined>; hostEngine?: (hostId: number) => Promise<NodeEngine | null> }): Promise<EvmDeps> {
  const env = opts.env ?? process.env;
  // openKeyServices resolved and verified the same key at start-up (KEY_ENCRYPTION_KEY, else the data-dir file).
  const kek = resolveKeyEncryptionKey({ env, dataDir: opts.dataDir });
  return {
    runtime: createEvmNodeRuntime({
      dataDir: opts.dataDir,
      env,
      // Callers (besuLaunch.ts) check first that the validator's provider is the database one.
      validatorKey: (v) => databaseSecp256k1PrivateKey({ pool: opts.pool, keyEncryptionKey: kek.key }, v.keyHandle ?? ''),
      hostEngine: opts.hostEngine,
    }),
    contracts: createEvmContractDeployer((providerId) => opts.keys.providers.get(providerId)),
    rpc: createEvmRpcPort(),
    defaults: evmDefaultsFromEnv(env),
  };
}
