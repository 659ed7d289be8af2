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
import { checkValidatorPems, generateValidatorKey, importValidatorKey, validatorKeyProvider, type ValidatorKeyProvider } from './evmValidatorKeys.ts';
import { missingProgram, preflight } from '../preflight.ts';
import { trackedCreation } from '../creations.ts';

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


/** The client that will run the network; no client here (besu missing for several validators) is a refusal naming besu, except for an import. */
async function pickClient(input: Input, preference: EvmClientPreference, engine: NodeEngineKind, validatorCount: number, imported: boolean): Promise<EvmClient> {
  const besuAvailable = await evmOf(input.deps).runtime.besuAvailable(engine);
  try {
    return chooseEvmClient(preference, { besuAvailable, validatorCount });
  } catch (err) {
    // An import makes no key and starts no node: its record is kept as a besu network, whose nodes fail to start saying what to install.
    if (err instanceof AppError && err.status === 503 && imported) return 'besu';
    if (err instanceof AppError && err.status === 503) {
      const where = engine === 'process' ? 'no besu program on the PATH' : 'no besu image for the docker engine (LNM_IMAGE_BESU)';
      throw missingProgram('client', `${err.message} besu is needed here (${where}); install besu, or ask for one validator (anvil). Nothing was made.`);
    }
    throw err;
  }
}

const nameTaken = (name: string) => new ConflictError(`A network named ${name} already exists.`, { field: 'name' }, 'NAME_TAKEN');

/**
 * Checks everything first (name, genesis, client and its program, engine, key provider and PEMs:
 * one refusal listing every problem, nothing written), then makes the validator keys and the
 * network as one tracked create (application/creations.ts): a create refused or failed after
 * its first key removes the keys it made, and one cut off by a stop is ended at the next start.
 */
export async function createEvmNetwork(input: Input, req: EvmNetworkRequest): Promise<number> {
  const { deps } = input;
  const evm = evmOf(deps);
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
  const validatorCount = given.length + preheld.length + pems.length + generate;
  let client: EvmClient | undefined;
  let keyProvider: ValidatorKeyProvider | null = null;
  // Validate everything before any key is made: a bad request leaves no keys behind.
  await preflight(async (p) => {
    await p.check(() => assertNetworkName(req.name));
    await p.check(async () => {
      if (await networkNameTaken(deps.pool, req.name)) throw nameTaken(req.name);
    });
    await p.check(() => {
      if (req.validatorBalance !== undefined && !/^[0-9]{1,78}$/.test(req.validatorBalance)) throw new ValidationError('validatorBalance must be a decimal amount of wei.', [{ field: 'validatorBalance', message: 'decimal wei' }]);
    });
    // Distinct for any count (padding with '1' made the 17th, 0x11 padded, equal the first).
    const placeholders = Array.from({ length: pems.length + generate }, (_, i) => '0x1' + (i + 1).toString(16).padStart(39, '0'));
    const checked = [...given, ...preheld.map((v) => v.address), ...placeholders];
    await p.check(() => createEvmGenesis({ ...req.genesis, validators: !pow && checked.length ? checked : req.genesis.validators }));
    client = await p.check(() => pickClient(input, req.client ?? evm.defaults.client, engine, validatorCount, req.imported ?? false));
    await p.check(async () => {
      const available = await evm.runtime.engineAvailable(engine);
      if (!available.ok) throw new ValidationError(`The ${engine} engine cannot run nodes here: ${available.reason}`, [{ field: 'engine', message: available.reason }]);
    });
    if (pems.length + generate > 0) keyProvider = (await p.check(() => validatorKeyProvider(input, req.providerId, req.providerField ?? 'providerId'))) ?? null;
    if (keyProvider) await p.check(() => checkValidatorPems(input, pems));
    const kp = keyProvider as ValidatorKeyProvider | null;
    // besu asked for but missing here is already refused above; the provider is said too.
    if (kp && (client ?? req.client) === 'besu' && kp.type !== 'DATABASE') {
      // besu reads its node key from a file; Vault and KMS keys never leave their provider.
      p.refuse(new ValidationError(
        `besu reads each validator's node key from a file, and keys held by ${kp.name} (${kp.type}) cannot be exported. Keep besu validator keys in the database provider; ${kp.type} keys work for contract deployment and for anvil networks.`,
        [{ field: req.providerField ?? 'providerId', message: `besu validators need the database provider, not ${kp.type}` }],
      ));
    }
  });
  const chosen = client!;
  const provider = keyProvider as ValidatorKeyProvider | null;

  return trackedCreation(input, 'evm-network', req.name, async (steps) => {
    // Claimed: a create of this name that finished between the check and the claim is seen now.
    if (await networkNameTaken(deps.pool, req.name)) throw nameTaken(req.name);
    const held: EvmValidator[] = [...preheld];
    steps.step('validator keys');
    // Each key's id is recorded before the key is made: a stop between the two leaves nothing unlisted.
    for (const [i, pem] of pems.entries()) held.push(await importValidatorKey(input, provider!, `${req.name}-validator-${i + 1}`, pem, await steps.making('key')));
    for (let i = 0; i < generate; i++) held.push(await generateValidatorKey(input, provider!, `${req.name}-validator-${held.length + 1}`, await steps.making('key')));
    steps.step('network');
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
      client: chosen,
      engine,
      settings: genesis.settings,
      genesis: genesis.file,
      genesisBlockHash: evmGenesisBlockHash(genesis.file, chosen),
      validators,
      imported: req.imported ?? false,
      at: deps.clock().toISOString(),
    });
    return networkId;
  });
}
