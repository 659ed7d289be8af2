// Creating an evm network from the SPEC genesis object: validators (service-held secp256k1
// keys generated or imported through the key provider, or plain addresses), the client that
// will run it (chosen first, since besu and anvil hash block 0 differently), the genesis file
// and the real genesis_block_hash for that client.
import { runCommand, type CommandInput } from '../commands.ts';
import { AppError, ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import { createEvmGenesis, evmGenesisBlockHash, type EvmClient } from '../../domain/evm/evmGenesis.ts';
import { chooseEvmClient, type EvmClientPreference } from '../../domain/evm/evmClient.ts';
import type { EvmConsensus } from '../../domain/evm/evmConsensus.ts';
import { chainIdTaken, EVM_NETWORKS_STREAM, evmNetworks, type EvmValidator } from '../../domain/evm/evmNetwork.ts';
import { assertNetworkName } from '../../domain/networks/networkName.ts';
import type { NodeEngineKind } from '../../domain/nodes/nodeEngine.ts';
import { evmOf } from './evmContext.ts';
import { genesisHashTaken, networkNameTaken, networkWithChainId, usedChainIds } from '../../projections/evm/evmNetworks.ts';
import { EVM_NETWORK_DEFAULTS, nextFreeChainId } from '../../domain/evm/evmNetworkDefaults.ts';
import { checkValidatorPems, generateValidatorKey, importValidatorKey, validatorKeyProvider, type ValidatorKeyProvider } from './evmValidatorKeys.ts';
import { missingProgram, preflight } from '../preflight.ts';
import { trackedCreation } from '../creations.ts';
import { placeNode } from '../hosts/hostPlacement.ts';
import { EVM_ON_CLUSTER } from './evmNodeCreate.ts';
import type { NodePlacement } from '../../domain/hosts/nodeHosts.ts';

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
  /** The node host or Kubernetes cluster its start places its nodes on (checked here for all of them, recorded on the network). */
  placement?: NodePlacement;
}


/** The client that will run the network; no client here (besu, or geth for Clique, missing for several validators) is a refusal naming it, except for an import. */
async function pickClient(input: Input, preference: EvmClientPreference, engine: NodeEngineKind, validatorCount: number, imported: boolean, consensus: EvmConsensus | undefined): Promise<EvmClient> {
  const runtime = evmOf(input.deps).runtime;
  const [besuAvailable, gethAvailable] = await Promise.all([runtime.besuAvailable(engine), consensus === 'CLIQUE' ? runtime.gethAvailable(engine) : false]);
  try {
    return chooseEvmClient(preference, { besuAvailable, gethAvailable, validatorCount, consensus });
  } catch (err) {
    // An import makes no key and starts no node: its record is kept as a besu network, whose nodes fail to start saying what to install.
    if (err instanceof AppError && err.status === 503 && imported) return preference === 'geth' ? 'geth' : 'besu';
    if (err instanceof AppError && err.status === 503 && preference === 'geth') {
      const where = engine === 'process' ? 'no geth program: LNM_GETH_BIN, else the PATH' : 'no geth image for the docker engine: lnm-geth:local, built by .ci/docker.sh where geth is found, or LNM_IMAGE_GETH';
      throw missingProgram('client', `${err.message} geth 1.13 is needed here (${where}). Nothing was made.`);
    }
    if (err instanceof AppError && err.status === 503) {
      const where = engine === 'process' ? 'no besu program on the PATH' : 'no besu image for the docker engine (LNM_IMAGE_BESU)';
      const geth = consensus === 'CLIQUE' ? ' or geth 1.13 (LNM_GETH_BIN, else the PATH)' : '';
      throw missingProgram('client', `${err.message} besu${geth} is needed here (${where}); install it, or ask for one validator (anvil). Nothing was made.`);
    }
    throw err;
  }
}

const nameTaken = (name: string) => new ConflictError(`A network named ${name} already exists.`, { field: 'name' }, 'NAME_TAKEN');

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

/**
 * Checks everything first (name, genesis with its defaults, chain id, client and its program,
 * engine, key provider and PEMs: one refusal listing every problem, nothing written), then makes
 * the validator keys and the network as one tracked create (application/creations.ts): a create
 * refused or failed after its first key removes the keys it made, and one cut off by a stop is
 * ended at the next start.
 */
export async function createEvmNetwork(input: Input, request: EvmNetworkRequest): Promise<number> {
  const { deps } = input;
  const req = { ...request, genesis: await withDefaults(input, request) };
  const evm = evmOf(deps);
  // Nodes placed on a host run under its Docker Engine or in its cluster, not as processes here.
  const engine = req.engine ?? (req.placement ? 'docker' : evm.defaults.engine);
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
    const draft = await p.check(() => createEvmGenesis({ ...req.genesis, validators: !pow && checked.length ? checked : req.genesis.validators }));
    if (draft) {
      await p.check(async () => {
        const sameChain = await networkWithChainId(deps.pool, draft.settings.chainId);
        if (sameChain) throw chainIdTaken(draft.settings.chainId, sameChain);
      });
    }
    client = await p.check(() => pickClient(input, req.client ?? evm.defaults.client, engine, validatorCount, req.imported ?? false, draft?.settings.consensus));
    // Placed: the host must take every node the start makes (one per validator; anvil, or no validator: one), as POST /nodes checks one.
    if (req.placement) {
      const nodes = client === 'anvil' ? 1 : Math.max(1, validatorCount);
      await p.check(() => placeNode(input, req.placement!, req.engine, EVM_ON_CLUSTER, { field: 'placement', engineField: 'engine', nodes }));
    } else {
      await p.check(async () => {
        const available = await evm.runtime.engineAvailable(engine);
        if (!available.ok) throw new ValidationError(`The ${engine} engine cannot run nodes here: ${available.reason}`, [{ field: 'engine', message: available.reason }]);
      });
    }
    if (pems.length + generate > 0) keyProvider = (await p.check(() => validatorKeyProvider(input, req.providerId, req.providerField ?? 'providerId'))) ?? null;
    if (keyProvider) await p.check(() => checkValidatorPems(input, pems));
    const kp = keyProvider as ValidatorKeyProvider | null;
    // besu asked for but missing here is already refused above; the provider is said too.
    const fileClient = client ?? req.client;
    if (kp && (fileClient === 'besu' || fileClient === 'geth') && kp.type !== 'DATABASE') {
      // besu reads its node key from a file, geth its sealer key from a keystore; Vault and KMS keys never leave their provider.
      p.refuse(new ValidationError(
        `${fileClient} reads each validator's key from a file, and keys held by ${kp.name} (${kp.type}) cannot be exported. Keep ${fileClient} validator keys in the database provider; ${kp.type} keys work for contract deployment and for anvil networks.`,
        [{ field: req.providerField ?? 'providerId', message: `${fileClient} validators need the database provider, not ${kp.type}` }],
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
    const genesisInput = { ...req.genesis, accounts, validators: pow ? req.genesis.validators : [...given, ...held.map((v) => v.address)] };
    let genesis = createEvmGenesis(genesisInput);
    // Two networks created in the same second could still share block 0: the next second is theirs.
    while (!req.imported && !request.genesis?.timestamp && (await genesisHashTaken(deps.pool, evmGenesisBlockHash(genesis.file, chosen)))) {
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
      client: chosen,
      engine,
      settings: genesis.settings,
      genesis: genesis.file,
      genesisBlockHash: evmGenesisBlockHash(genesis.file, chosen),
      validators,
      imported: req.imported ?? false,
      ...(req.placement ? { placement: req.placement } : {}),
      at: deps.clock().toISOString(),
    });
    return networkId;
  });
}
