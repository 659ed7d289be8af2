// Creating an evm network from the SPEC genesis object: validators (service-held secp256k1
// keys generated or imported through the key provider, or plain addresses), the client that
// will run it (chosen first, since besu and anvil hash block 0 differently), the genesis file
// and the real genesis_block_hash for that client.
import { runCommand, type CommandInput } from '../commands.ts';
import { AppError, ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import { createEvmGenesis, evmGenesisBlockHash, type EvmClient } from '../../domain/evm/evmGenesis.ts';
import { chooseEvmClient, type EvmClientPreference } from '../../domain/evm/evmClient.ts';
import { chainIdTaken, EVM_NETWORKS_STREAM, evmNetworks, type EvmValidator } from '../../domain/evm/evmNetwork.ts';
import { assertNetworkName } from '../../domain/networks/networkName.ts';
import type { NodeEngineKind } from '../../domain/nodes/nodeEngine.ts';
import { evmOf } from './evmContext.ts';
import { genesisHashTaken, networkNameTaken, networkWithChainId, usedChainIds } from '../../projections/evm/evmNetworks.ts';
import { EVM_NETWORK_DEFAULTS, nextFreeChainId } from '../../domain/evm/evmNetworkDefaults.ts';
import { checkValidatorPems, generateValidatorKey, importValidatorKey, validatorKeyProvider } from './evmValidatorKeys.ts';

type Input = CommandInput;

export interface EvmNetworkRequest {
  name: string;
  description?: string | null;
  /** Missing fields take EVM_NETWORK_DEFAULTS (an import must give chain_id and consensus). */
  genesis?: Record<string, unknown>;
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

/** The defaults of a new network now: GET /networks/evm/defaults, what the console pre-fills. */
export async function evmNetworkDefaults(input: Pick<Input, 'deps'>) {
  const evm = evmOf(input.deps);
  return {
    chain_id: nextFreeChainId(await usedChainIds(input.deps.pool)),
    consensus: EVM_NETWORK_DEFAULTS.consensus,
    block_time: EVM_NETWORK_DEFAULTS.blockTimeSeconds,
    validator_count: EVM_NETWORK_DEFAULTS.validatorCount,
    client: evm.defaults.client,
    engine: evm.defaults.engine,
  };
}

/**
 * A created network's genesis with the defaults filled in: the next free chain id, QBFT, and
 * the creation time as block 0's timestamp (so no two networks share a block 0). An imported
 * network's genesis describes a chain that exists: it is taken as given.
 */
async function withDefaults(input: Input, req: EvmNetworkRequest): Promise<Record<string, unknown>> {
  const given = req.genesis ?? {};
  if (req.imported) return given;
  const has = (...names: string[]) => names.some((n) => given[n] !== undefined && given[n] !== null);
  return {
    ...given,
    ...(has('consensus') ? {} : { consensus: EVM_NETWORK_DEFAULTS.consensus }),
    ...(has('chain_id', 'chainId') ? {} : { chain_id: nextFreeChainId(await usedChainIds(input.deps.pool)) }),
    ...(has('timestamp') ? {} : { timestamp: Math.floor(input.deps.clock().getTime() / 1000) }),
  };
}

export async function createEvmNetwork(input: Input, request: EvmNetworkRequest): Promise<number> {
  const { deps } = input;
  const req = { ...request, genesis: await withDefaults(input, request) };
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
  const draft = createEvmGenesis({ ...req.genesis, validators: !pow && checked.length ? checked : req.genesis.validators });
  const sameChain = await networkWithChainId(deps.pool, draft.settings.chainId);
  if (sameChain) throw chainIdTaken(draft.settings.chainId, sameChain);
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
  const genesisInput = { ...req.genesis, accounts, validators: pow ? req.genesis.validators : [...given, ...held.map((v) => v.address)] };
  let genesis = createEvmGenesis(genesisInput);
  // Two networks created in the same second could still share block 0: the next second is theirs.
  while (!req.imported && !request.genesis?.timestamp && (await genesisHashTaken(deps.pool, evmGenesisBlockHash(genesis.file, client)))) {
    genesis = createEvmGenesis({ ...genesisInput, timestamp: (genesis.settings.timestamp ?? 0) + 1 });
  }
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

