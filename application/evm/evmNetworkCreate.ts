// Creating an evm network from the SPEC genesis object: validators (service-held secp256k1
// keys generated or imported through the key provider, or plain addresses), the client that
// will run it (chosen first, since besu and anvil hash block 0 differently), the genesis file
// and the real genesis_block_hash for that client.
import { runCommand, type CommandInput } from '../commands.ts';
import { AppError, ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import { createEvmGenesis, evmGenesisBlockHash, type EvmClient } from '../../domain/evm/evmGenesis.ts';
import { chooseEvmClient, type EvmClientPreference } from '../../domain/evm/evmClient.ts';
import { EVM_NETWORKS_STREAM, evmNetworks, type EvmValidator } from '../../domain/evm/evmNetwork.ts';
import { assertNetworkName } from '../../domain/networks/networkName.ts';
import type { NodeEngineKind } from '../../domain/nodes/nodeEngine.ts';
import { evmOf } from './evmContext.ts';
import { networkNameTaken } from '../../projections/evm/evmNetworks.ts';
import { checkValidatorPems, generateValidatorKey, importValidatorKey, validatorKeyProvider } from './evmValidatorKeys.ts';

type Input = CommandInput;

export interface EvmNetworkRequest {
  name: string;
  description?: string | null;
  genesis: Record<string, unknown>;
  client?: EvmClientPreference;
  engine?: NodeEngineKind;
  /** How many validator keys the service generates when the genesis names none (default 1). */
  validatorCount?: number;
  /** PEM private keys (secp256k1) to import as validator keys. */
  validatorKeys?: string[];
  /** Wei (decimal) credited in the genesis to each validator key the service holds, so it can deploy contracts. */
  validatorBalance?: string;
  /** Key provider for the validator keys (default: the default provider). */
  providerId?: number;
  /** Which body field named it, for error details (providerId or keyProviderId). */
  providerField?: string;
  imported?: boolean;
  /** Validator keys the service already holds (a template import binds them); their addresses are also in genesis.validators. */
  heldValidators?: EvmValidator[];
}


/** auto/besu without besu here still yields a besu network: it fails to start saying what to install. */
async function pickClient(input: Input, preference: EvmClientPreference, engine: NodeEngineKind, validatorCount: number): Promise<EvmClient> {
  const besuAvailable = await evmOf(input.deps).runtime.besuAvailable(engine);
  try {
    return chooseEvmClient(preference, { besuAvailable, validatorCount });
  } catch (err) {
    if (err instanceof AppError && err.status === 503) return 'besu';
    throw err;
  }
}

export async function createEvmNetwork(input: Input, req: EvmNetworkRequest): Promise<number> {
  const { deps } = input;
  const evm = evmOf(deps);
  assertNetworkName(req.name);
  if (await networkNameTaken(deps.pool, req.name)) throw new ConflictError(`A network named ${req.name} already exists.`, { field: 'name' }, 'NAME_TAKEN');
  const engine = req.engine ?? evm.defaults.engine;
  const given = Array.isArray(req.genesis.validators) ? (req.genesis.validators as unknown[]) : [];
  const pems = req.validatorKeys ?? [];
  const consensus = String(req.genesis.consensus ?? '').toUpperCase();
  // PoW has no validator set in its genesis; its "validators" are miners: keys the service
  // holds, whose node mines with that key's address as coinbase (besu) and which can deploy
  // contracts once funded. Without them a besu PoW network would never produce a block.
  const pow = consensus === 'POW';
  const preheld = req.heldValidators ?? [];
  const generate = given.length === 0 && pems.length === 0 && preheld.length === 0 ? (req.validatorCount ?? 1) : 0;
  if (req.validatorBalance !== undefined && !/^[0-9]{1,78}$/.test(req.validatorBalance)) throw new ValidationError('validatorBalance must be a decimal amount of wei.', [{ field: 'validatorBalance', message: 'decimal wei' }]);
  // Validate everything before any key is made: a bad request leaves no keys behind.
  // Distinct for any count (padding with '1' made the 17th, 0x11 padded, equal the first).
  const placeholders = Array.from({ length: pems.length + generate }, (_, i) => '0x1' + (i + 1).toString(16).padStart(39, '0'));
  const checked = [...given, ...preheld.map((v) => v.address), ...placeholders];
  createEvmGenesis({ ...req.genesis, validators: !pow && checked.length ? checked : req.genesis.validators });
  const validatorCount = given.length + preheld.length + pems.length + generate;
  const client = await pickClient(input, req.client ?? evm.defaults.client, engine, validatorCount);
  const available = await evm.runtime.engineAvailable(engine);
  if (!available.ok) throw new ValidationError(`The ${engine} engine cannot run nodes here: ${available.reason}`, [{ field: 'engine', message: available.reason }]);

  const keyProvider = pems.length + generate > 0 ? await validatorKeyProvider(input, req.providerId, req.providerField ?? 'providerId') : null;
  if (keyProvider) checkValidatorPems(input, pems);
  if (keyProvider && client === 'besu' && keyProvider.type !== 'DATABASE') {
    // besu reads its node key from a file; Vault and KMS keys never leave their provider.
    throw new ValidationError(
      `besu reads each validator's node key from a file, and keys held by ${keyProvider.name} (${keyProvider.type}) cannot be exported. Keep besu validator keys in the database provider; ${keyProvider.type} keys work for contract deployment and for anvil networks.`,
      [{ field: req.providerField ?? 'providerId', message: `besu validators need the database provider, not ${keyProvider.type}` }],
    );
  }

  const held: EvmValidator[] = [...preheld];
  for (const [i, pem] of pems.entries()) held.push(await importValidatorKey(input, keyProvider!, `${req.name}-validator-${i + 1}`, pem));
  for (let i = 0; i < generate; i++) held.push(await generateValidatorKey(input, keyProvider!, `${req.name}-validator-${held.length + 1}`));
  const accounts = { ...((req.genesis.accounts ?? req.genesis.alloc ?? {}) as Record<string, unknown>) };
  if (req.validatorBalance) for (const v of held) accounts[v.address] = { balance: req.validatorBalance };
  const genesis = createEvmGenesis({ ...req.genesis, accounts, validators: pow ? req.genesis.validators : [...given, ...held.map((v) => v.address)] });
  const validators: EvmValidator[] = pow
    ? held
    : genesis.settings.validators.map((address) => held.find((v) => v.address === address) ?? { address, keyHandle: null, keyProvider: null, publicKeyPem: null });
  const networkId = await deps.nextId('network');
  await runCommand(input, EVM_NETWORKS_STREAM, evmNetworks, {
    type: 'CreateNetwork',
    networkId,
    name: req.name,
    description: req.description ?? null,
    client,
    engine,
    settings: genesis.settings,
    genesis: genesis.file,
    genesisBlockHash: evmGenesisBlockHash(genesis.file, client),
    validators,
    imported: req.imported ?? false,
    at: deps.clock().toISOString(),
  });
  return networkId;
}

