// Importing a template (importTemplate): its bindings resolved, then an evm network (genesis
// with the bound validator keys and the alloc; the listed smart contracts deployed once its node
// runs) or a consortium network (its channel's genesis block built, the bound orderers and peers
// joined). All or nothing: everything is checked before anything is made, and when a later step
// fails (a node that does not start, a contract that does not deploy) what was made is deleted
// again.
import { contractNameIssues } from '../../domain/evm/evmContract.ts';
import { ValidationError, type FieldIssue } from '../../domain/shared/errors.ts';
import type { EvmValidator } from '../../domain/evm/evmNetwork.ts';
import type { CommandInput } from '../commands.ts';
import { getKey } from '../../projections/keys.ts';
import { getNode } from '../../projections/nodes.ts';
import { getOrganizationByMspId } from '../../projections/organizations.ts';
import { createEvmNetwork } from '../evm/evmNetworkCreate.ts';
import { networkWithChainId, usedChainIds } from '../../projections/evm/evmNetworks.ts';
import { nextFreeChainId } from '../../domain/evm/evmNetworkDefaults.ts';
import { createConsortiumNetwork } from '../consortium/consortiumNetworkCreate.ts';
import { startEvmNetwork } from '../evm/evmNetworkStart.ts';
import { deleteEvmNetwork } from '../evm/evmNetworkDelete.ts';
import { deployEvmContract } from '../evm/evmContractDeploy.ts';
import { joinOrdererToChannel } from '../consortium/consortiumOrdererJoin.ts';
import { joinPeerToChannel } from '../consortium/consortiumPeerJoin.ts';
import { deleteConsortiumNetwork } from '../consortium/consortiumNetworkDelete.ts';
import { createLedgerXOrdererGroup } from '../ledgerx/ledgerxOrdererGroupCreate.ts';
import { createLedgerXCommitter } from '../ledgerx/ledgerxCommitterCreate.ts';
import { createLedgerXNetwork } from '../ledgerx/ledgerxNetworkCreate.ts';
import { resolveLedgerXConsensus } from '../../domain/ledgerx/ledgerxConsensus.ts';
import { assertNetworkName } from '../../domain/networks/networkName.ts';
import { getLedgerXNetwork } from '../../projections/ledgerx/ledgerxNetworks.ts';
import { LEDGERX_CHANNEL_NAME } from '../../domain/ledgerx/ledgerxNetwork.ts';
import { runCommand } from '../commands.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { DEFAULT_CHANNEL_POLICIES } from './templateExport.ts';
import { resolveTemplate, type ResolvedTemplate } from './templateBindings.ts';
import type { NetworkTemplate } from '../../domain/templates/networkTemplate.ts';

type Input = CommandInput;

function invalid(issues: FieldIssue[]): never {
  throw new ValidationError(`The template cannot be imported: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, issues, 'TEMPLATE_INVALID');
}

const isId = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

interface SmartContract { name: string; abi?: unknown[]; bytecode: string; args?: unknown[]; constructorArgs?: string }

function smartContractsOf(n: Record<string, unknown>): SmartContract[] {
  const list = n.smartContracts ?? [];
  if (!Array.isArray(list)) invalid([{ field: 'template.network.smartContracts', message: 'must be an array of {name, abi, bytecode}' }]);
  const issues: FieldIssue[] = [];
  list.forEach((c: any, i: number) => {
    if (typeof c?.name !== 'string' || !c.name) issues.push({ field: `template.network.smartContracts[${i}].name`, message: 'is required' });
    else for (const x of contractNameIssues(c.name)) issues.push({ field: `template.network.smartContracts[${i}].name`, message: x.message });
    if (typeof c?.bytecode !== 'string' || !/^(0x)?([0-9a-fA-F]{2})+$/.test(c.bytecode)) issues.push({ field: `template.network.smartContracts[${i}].bytecode`, message: 'hex creation bytecode' });
    if (c?.abi !== undefined && !Array.isArray(c.abi)) issues.push({ field: `template.network.smartContracts[${i}].abi`, message: 'must be an array (JSON ABI)' });
    if (c?.args !== undefined && !Array.isArray(c.args)) issues.push({ field: `template.network.smartContracts[${i}].args`, message: 'must be an array' });
    if (c?.constructorArgs !== undefined && (typeof c.constructorArgs !== 'string' || !/^(0x)?([0-9a-fA-F]{2})*$/.test(c.constructorArgs))) issues.push({ field: `template.network.smartContracts[${i}].constructorArgs`, message: 'pre-encoded constructor arguments, hex' });
    if (c?.constructorArgs !== undefined && c?.args !== undefined) issues.push({ field: `template.network.smartContracts[${i}].constructorArgs`, message: 'give args (with abi) or constructorArgs, not both' });
  });
  if (issues.length) invalid(issues);
  return list as SmartContract[];
}

async function importEvmTemplate(input: Input, t: ResolvedTemplate, name: string) {
  const n = t.network!;
  const keyIds = Array.isArray(n.validatorKeys) ? n.validatorKeys : [];
  const bad = keyIds.findIndex((k) => !isId(k));
  if (!Array.isArray(n.validatorKeys) || bad >= 0) invalid([{ field: bad >= 0 ? `template.network.validatorKeys[${bad}]` : 'template.network.validatorKeys', message: 'an array of key ids (placeholders of key variables: ${v.id})' }]);
  const contracts = smartContractsOf(n);
  const held: EvmValidator[] = [];
  for (const [i, id] of (keyIds as number[]).entries()) {
    const k = await getKey(input.deps.pool, id);
    if (!k || k.curve !== 'secp256k1' || !k.ethereumAddress) invalid([{ field: `template.network.validatorKeys[${i}]`, message: `key ${id} is not a secp256k1 key this service holds` }]);
    held.push({ address: k.ethereumAddress, keyHandle: k.handle, keyProvider: k.providerType, keyId: k.id, providerId: k.providerId, publicKeyPem: k.publicKey });
  }
  const addresses = Array.isArray(n.validatorAddresses) ? (n.validatorAddresses as string[]) : [];
  const alloc = (n.alloc ?? {}) as Record<string, { balance?: unknown }>;
  // An import makes a new chain: where the template's chain id is another network's of this
  // deployment (a template exported here and imported here again), it takes the next free one,
  // so no transaction signed for one replays on the other (docs/templates-and-sharing.md).
  const warnings: string[] = [];
  let chainId = n.chainId;
  let networkIdOfChain = n.networkId ?? n.chainId;
  const taken = typeof n.chainId === 'number' ? await networkWithChainId(input.deps.pool, n.chainId) : null;
  if (taken) {
    chainId = nextFreeChainId(await usedChainIds(input.deps.pool));
    if (n.networkId === undefined || n.networkId === n.chainId) networkIdOfChain = chainId;
    warnings.push(`chain id ${String(n.chainId)} is the network ${taken.name}'s here: this network has chain id ${chainId}`);
  }
  const genesis: Record<string, unknown> = {
    chain_id: chainId, network_id: networkIdOfChain, consensus: n.consensus ?? 'QBFT', block_time: n.blockPeriod,
    ...(n.epochLength !== undefined ? { qbft: { epochlength: n.epochLength } } : {}),
    ...(n.gasLimit !== undefined ? { gas_limit: n.gasLimit } : {}),
    ...(n.minGasPrice !== undefined ? { min_gas_price: n.minGasPrice } : {}),
    ...(n.baseFee !== undefined ? { base_fee: n.baseFee } : {}),
    accounts: Object.fromEntries(Object.entries(alloc).map(([a, v]) => [a, { balance: String(v?.balance ?? '0') }])),
    // The held keys' addresses are added by createEvmNetwork (heldValidators).
    validators: addresses,
  };
  const networkId = await createEvmNetwork(input, { name, description: t.template.description ?? null, genesis, heldValidators: held });
  const deployed: Array<{ name: string; address: string; transaction_hash: string; block_number: number }> = [];
  if (!contracts.length) return { networkId, contracts: deployed, warnings };
  try {
    const started = await startEvmNetwork(input, networkId);
    const down = started.nodes.filter((x) => x.status !== 'running');
    if (!started.nodes.length || down.length) throw new ValidationError(`The network's node did not start, so its smart contracts could not be deployed: ${down.map((x) => `${x.name}: ${x.error ?? 'not running'}`).join('; ')}`, [{ field: 'template.network', message: 'the node did not start' }]);
    for (const c of contracts) {
      // Recorded under its name too, as a deployment through POST /sc/evm/deploy is.
      const r = await deployEvmContract(input, { networkId, name: c.name, bytecode: c.bytecode, abi: c.abi, args: c.args, constructorArgs: c.constructorArgs });
      deployed.push({ name: c.name, address: r.address, transaction_hash: r.transactionHash, block_number: r.blockNumber });
    }
  } catch (err) {
    await deleteEvmNetwork(input, networkId).catch(() => undefined);
    throw err;
  }
  return { networkId, contracts: deployed, warnings };
}

interface TemplateOrganization { mspId: string; peers: unknown[]; orderers: unknown[] }

async function importConsortiumTemplate(input: Input, t: ResolvedTemplate, name: string) {
  const n = t.network!;
  const issues: FieldIssue[] = [];
  const warnings: string[] = [];
  if (n.consensus !== undefined && n.consensus !== 'etcdraft' && n.consensus !== 'smartbft') issues.push({ field: 'template.network.consensus', message: `${String(n.consensus)} is not supported here: channels are built with etcdraft or smartbft` });
  const channels = Array.isArray(n.channels) ? (n.channels as Array<Record<string, unknown>>) : [];
  if (channels.length !== 1) issues.push({ field: 'template.network.channels', message: 'exactly one channel: one consortium network is one channel' });
  const organizations = Array.isArray(n.organizations) ? (n.organizations as TemplateOrganization[]) : [];
  if (!organizations.length) issues.push({ field: 'template.network.organizations', message: 'at least one organization' });
  if (issues.length) invalid(issues);
  const channel = channels[0];
  const orgIdOf = new Map<string, number>();
  const ordererIds: number[] = [];
  const peerIds: number[] = [];
  for (const [i, o] of organizations.entries()) {
    const org = typeof o?.mspId === 'string' ? await getOrganizationByMspId(input.deps.pool, o.mspId) : null;
    if (!org) { issues.push({ field: `template.network.organizations[${i}].mspId`, message: `no organization ${JSON.stringify(o?.mspId)} here` }); continue; }
    orgIdOf.set(org.mspId, org.id);
    for (const [kind, list] of [['peers', o.peers ?? []], ['orderers', o.orderers ?? []]] as const) {
      for (const [j, id] of (Array.isArray(list) ? list : []).entries()) {
        const field = `template.network.organizations[${i}].${kind}[${j}]`;
        const node = isId(id) ? await getNode(input.deps.pool, id) : null;
        if (!node) { issues.push({ field, message: 'a node id (placeholder of a node variable: ${v.id})' }); continue; }
        if (node.organizationId !== org.id) issues.push({ field, message: `node ${node.name} belongs to another organization than ${org.mspId}` });
        else if (node.status !== 'running') issues.push({ field, message: `node ${node.name} is ${node.status}: start it first, its channel is joined on import` });
        (kind === 'peers' ? peerIds : ordererIds).push(node.id);
      }
    }
  }
  const channelOrgs = Array.isArray(channel.organizations) ? (channel.organizations as unknown[]) : [];
  const organizationIds = channelOrgs.map((m, i) => {
    const id = orgIdOf.get(m as string);
    if (id === undefined) issues.push({ field: `template.network.channels[0].organizations[${i}]`, message: `${JSON.stringify(m)} is not one of the template's organizations` });
    return id!;
  });
  if (issues.length) invalid(issues);
  if (channel.policies !== undefined && JSON.stringify(channel.policies) !== JSON.stringify(DEFAULT_CHANNEL_POLICIES)) warnings.push('channel policies other than the defaults (ANY Readers, ANY Writers, MAJORITY Admins) are not applied: the channel is built with the defaults');
  if (Array.isArray(n.chaincodes) && n.chaincodes.length) warnings.push('chaincodes are listed but not deployed by an import: deploy them with /sc/consortium/deploy');

  const networkId = await createConsortiumNetwork(input, { name, channelName: String(channel.name), description: t.template.description ?? null, organizationIds, ordererIds, peerIds, consensus: n.consensus === 'smartbft' ? 'smartbft' : 'etcdraft' });
  const joined: Array<{ node_id: number; role: string }> = [];
  try {
    for (const id of ordererIds) {
      await joinOrdererToChannel(input, networkId, id);
      joined.push({ node_id: id, role: 'orderer' });
    }
    for (const id of peerIds) {
      await joinPeerToChannel(input, networkId, id);
      joined.push({ node_id: id, role: 'peer' });
    }
  } catch (err) {
    // Only a network no node joined can be deleted; a join that half succeeded is reported as is.
    if (!joined.length) await deleteConsortiumNetwork(input, networkId).catch(() => undefined);
    throw err;
  }
  return { networkId, joined, warnings };
}

interface LedgerXNodeSpec { organizationId: number; externalIp?: string; engine?: string }

function ledgerXSpecs(n: Record<string, unknown>, key: 'ordererGroups' | 'committers', issues: FieldIssue[]): LedgerXNodeSpec[] {
  const list = n[key] ?? [];
  if (!Array.isArray(list)) { issues.push({ field: `template.network.${key}`, message: 'must be an array of {organization, externalIp?, engine?}' }); return []; }
  return list.map((x: any, i: number) => {
    const field = `template.network.${key}[${i}]`;
    if (!x || typeof x !== 'object' || Array.isArray(x)) { issues.push({ field, message: 'an object {organization: "${org.id}", externalIp?, engine?}' }); return { organizationId: 0 }; }
    const unknown = Object.keys(x).filter((k) => !['organization', 'externalIp', 'engine'].includes(k));
    if (unknown.length) issues.push({ field: `${field}.${unknown[0]}`, message: 'unknown field: a node spec has organization, externalIp and engine (ports are allocated here)' });
    if (!isId(x.organization)) issues.push({ field: `${field}.organization`, message: 'an organization id (placeholder of an organization variable: ${v.id})' });
    if (x.externalIp !== undefined && typeof x.externalIp !== 'string') issues.push({ field: `${field}.externalIp`, message: 'an IPv4 address' });
    if (x.engine !== undefined && x.engine !== 'process' && x.engine !== 'docker') issues.push({ field: `${field}.engine`, message: 'process or docker' });
    return { organizationId: x.organization, ...(x.externalIp !== undefined ? { externalIp: x.externalIp } : {}), ...(x.engine !== undefined ? { engine: x.engine } : {}) };
  });
}

/**
 * A ledgerX network: its orderer groups (one party each, in the template's order) and committers
 * are created with ports allocated here, then the network with its genesis block. Nothing is
 * joined: the caller joins each group and committer (POST /networks/ledgerx/{id}/orderer-groups/
 * {nodeId}/join, .../committers/{nodeId}/join), as after POST /networks/ledgerx. A failure deletes
 * the nodes made before it.
 */
async function importLedgerXTemplate(input: Input, t: ResolvedTemplate, name: string) {
  const n = t.network!;
  const issues: FieldIssue[] = [];
  assertNetworkName(name);
  // Checked here, not only by the network's creation: its nodes are made before it.
  const channel = n.channelName ?? name.toLowerCase();
  if (typeof channel !== 'string' || !LEDGERX_CHANNEL_NAME.test(channel)) issues.push({ field: 'template.network.channelName', message: 'a Fabric channel name: lower case letters, digits, "." and "-", starting with a letter' });
  const groups = ledgerXSpecs(n, 'ordererGroups', issues);
  const committers = ledgerXSpecs(n, 'committers', issues);
  if (!issues.length && !groups.length) issues.push({ field: 'template.network.ordererGroups', message: 'at least one orderer group' });
  if (issues.length) invalid(issues);
  const settings = { smartBft: n.smartBft as never, batching: n.batching as never };
  try {
    resolveLedgerXConsensus(settings);
  } catch (err) {
    if (err instanceof ValidationError) invalid((err.details as FieldIssue[] | undefined ?? [{ field: 'smartBft', message: err.message }]).map((d) => ({ field: `template.network.${d.field}`, message: d.message })));
    throw err;
  }
  if (await getLedgerXNetwork(input.deps.pool, { name })) invalid([{ field: 'name', message: `a ledgerX network named ${name} already exists` }]);
  const made: Array<{ node_id: number; role: 'orderer-group' | 'committer' }> = [];
  try {
    for (const [i, g] of groups.entries()) {
      const id = await createLedgerXOrdererGroup(input, { name: `${name}-orderer${i + 1}`, organizationId: g.organizationId, config: { ...(g.externalIp ? { externalIp: g.externalIp } : {}), ...(g.engine ? { engine: g.engine } : {}) } });
      made.push({ node_id: id, role: 'orderer-group' });
    }
    for (const [i, c] of committers.entries()) {
      const id = await createLedgerXCommitter(input, { name: `${name}-committer${i + 1}`, organizationId: c.organizationId, config: { ...(c.externalIp ? { externalIp: c.externalIp } : {}), ...(c.engine ? { engine: c.engine } : {}) } });
      made.push({ node_id: id, role: 'committer' });
    }
    const networkId = await createLedgerXNetwork(input, {
      name, ...(typeof n.channelName === 'string' ? { channelName: n.channelName } : {}), ...(t.template.description ? { description: t.template.description } : {}),
      ordererGroupIds: made.filter((m) => m.role === 'orderer-group').map((m) => m.node_id), ...settings,
    });
    return { networkId, nodes: made };
  } catch (err) {
    for (const m of made.reverse()) await runCommand(input, nodeStream(m.node_id), nodeAggregate, { type: 'DeleteNode', nodeId: m.node_id, at: input.deps.clock().toISOString() }).catch(() => undefined);
    throw err;
  }
}

export interface TemplateImportRequest {
  template: NetworkTemplate;
  /** Variable name -> {organizationId} | {nodeId} | {keyId}. */
  variableBindings: Record<string, unknown>;
  /** Network name (default: the template's name). */
  name?: string;
}

export type TemplateImported =
  | { platform: 'EVM'; networkId: number; name: string; contracts: Array<{ name: string; address: string; transaction_hash: string; block_number: number }>; warnings: string[] }
  | { platform: 'CONSORTIUM'; networkId: number; name: string; joined: Array<{ node_id: number; role: string }>; warnings: string[] }
  | { platform: 'LEDGERX'; networkId: number; name: string; nodes: Array<{ node_id: number; role: string }>; warnings: string[] };

/** Resolves the template's bindings (400 TEMPLATE_INVALID naming each issue) and makes the network. */
export async function importTemplate(input: CommandInput, req: TemplateImportRequest): Promise<TemplateImported> {
  const r = await resolveTemplate(input.deps, req.template, req.variableBindings);
  if (!r.valid) throw new ValidationError(`The template cannot be imported: ${r.errors.map((e) => `${e.field} ${e.message}`).join('; ')}.`, r.errors.map(({ field, message }) => ({ field, message })), 'TEMPLATE_INVALID');
  const name = req.name ?? req.template.name;
  if (r.template.platform === 'EVM') {
    const made = await importEvmTemplate(input, r, name);
    return { platform: 'EVM', networkId: made.networkId, name, contracts: made.contracts, warnings: [...r.warnings, ...made.warnings] };
  }
  if (r.template.platform === 'LEDGERX') {
    const made = await importLedgerXTemplate(input, r, name);
    return { platform: 'LEDGERX', networkId: made.networkId, name, nodes: made.nodes, warnings: [...r.warnings, 'the orderer groups and committers are created, not joined: join each orderer group to the network, then each committer'] };
  }
  const made = await importConsortiumTemplate(input, r, name);
  return { platform: 'CONSORTIUM', networkId: made.networkId, name, joined: made.joined, warnings: [...r.warnings, ...made.warnings] };
}
