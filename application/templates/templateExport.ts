// Exporting a network as a template: the organizations, keys and nodes it is made of become
// variables, so the template can be imported elsewhere with other ones. Only what describes the
// network travels: chain parameters, MSP ids through placeholders, balances, policies, the evm
// contracts deployed through the service. No key material, no certificates, no genesis block
// (it embeds this instance's certificates).
import { NotFoundError } from '../../domain/shared/errors.ts';
import { TEMPLATE_VERSION, placeholder, type NetworkTemplate, type TemplateVariable } from '../../domain/templates/networkTemplate.ts';
import { getEvmNetwork, type EvmNetworkRow } from '../../projections/evm/evmNetworks.ts';
import { consortiumNetworkMembers, getConsortiumNetwork, type ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import { gasPricingOf } from '../../domain/evm/evmGenesis.ts';
import { listEvmContracts, type EvmContractRow } from '../../projections/evm/evmContracts.ts';
import { getLedgerXNetwork, type LedgerXNetworkRow } from '../../projections/ledgerx/ledgerxNetworks.ts';
import { loadState } from '../../domain/shared/commandHandler.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { LEDGERX_NETWORKS_STREAM, ledgerXNetworks } from '../../domain/ledgerx/ledgerxNetwork.ts';
import type { AppDeps } from '../deps.ts';

/** Fabric's default channel policies, as the genesis block this service builds has them. */
export const DEFAULT_CHANNEL_POLICIES = {
  Readers: { type: 'ImplicitMeta', rule: 'ANY Readers' },
  Writers: { type: 'ImplicitMeta', rule: 'ANY Writers' },
  Admins: { type: 'ImplicitMeta', rule: 'MAJORITY Admins' },
};

function evmTemplate(n: EvmNetworkRow, contracts: EvmContractRow[]): NetworkTemplate {
  const s = n.record.settings;
  const variables: TemplateVariable[] = [];
  const addressOf = new Map<string, string>();
  const validatorKeys: string[] = [];
  const validatorAddresses: string[] = [];
  for (const v of n.record.validators) {
    if (v.keyId) {
      const name = `validator${variables.length + 1}`;
      variables.push({ name, type: 'key', description: 'secp256k1 validator key, funded as in the alloc' });
      validatorKeys.push(placeholder(name, 'id'));
      addressOf.set(v.address.toLowerCase(), placeholder(name, 'ethereumAddress'));
    } else {
      validatorAddresses.push(v.address);
    }
  }
  const alloc = Object.fromEntries(Object.entries(s.accounts).map(([address, balance]) => [addressOf.get(address.toLowerCase()) ?? address, { balance }]));
  const gas = gasPricingOf(s, n.record.genesis);
  return {
    version: TEMPLATE_VERSION,
    platform: 'EVM',
    name: n.name,
    description: n.description ?? `evm network ${n.name}`,
    variables,
    network: {
      chainId: s.chainId,
      networkId: s.networkId,
      consensus: s.consensus,
      blockPeriod: s.blockPeriodSeconds,
      epochLength: s.bft.epochLength,
      gasLimit: s.gasLimit,
      minGasPrice: gas.minGasPrice.toString(),
      baseFee: gas.baseFee.toString(),
      validatorKeys,
      ...(validatorAddresses.length ? { validatorAddresses } : {}),
      alloc,
      // The contracts deployed through the service, in deployment order: an import deploys them
      // again on the new chain (their addresses there are its own, so none is exported).
      smartContracts: contracts.map((c) => ({
        name: c.name, ...(c.abi ? { abi: c.abi } : {}), bytecode: c.bytecode, ...(c.args ? { args: c.args } : {}), ...(c.constructorArgs ? { constructorArgs: c.constructorArgs } : {}),
      })),
    },
  };
}

async function consortiumTemplate(deps: AppDeps, n: ConsortiumNetworkRow): Promise<NetworkTemplate> {
  const members = await consortiumNetworkMembers(deps.pool, n.id);
  const variables: TemplateVariable[] = [];
  const orgVariable = new Map<string, string>();
  const orgPlaceholder = (o: { mspId: string }, kind: 'org' | 'ordererOrg') => {
    if (!orgVariable.has(o.mspId)) {
      const name = `${kind}${variables.filter((v) => v.type === 'organization' && v.name.startsWith(kind)).length + 1}`;
      variables.push({ name, type: 'organization', description: kind === 'org' ? 'application organization of the channel' : 'orderer organization of the channel' });
      orgVariable.set(o.mspId, name);
    }
    return placeholder(orgVariable.get(o.mspId)!, 'mspId');
  };
  const nodeCount = { peer: 0, orderer: 0 };
  const organizations = new Map<string, { mspId: string; peers: string[]; orderers: string[] }>();
  const entry = (o: { mspId: string }, kind: 'org' | 'ordererOrg') => {
    const mspId = orgPlaceholder(o, kind);
    if (!organizations.has(mspId)) organizations.set(mspId, { mspId, peers: [], orderers: [] });
    return organizations.get(mspId)!;
  };
  const appOrgs = n.organizations.map((o) => orgPlaceholder(o, 'org'));
  for (const o of n.organizations) entry(o, 'org');
  for (const o of n.ordererOrganizations) entry(o, 'ordererOrg');
  for (const m of members) {
    const name = `${m.role}${++nodeCount[m.role]}`;
    variables.push({ name, type: 'node', description: `${m.role === 'peer' ? 'CONSORTIUM_PEER' : 'CONSORTIUM_ORDERER'} node of ${orgVariable.get(m.mspId)}` });
    const e = entry({ mspId: m.mspId }, m.role === 'peer' ? 'org' : 'ordererOrg');
    (m.role === 'peer' ? e.peers : e.orderers).push(placeholder(name, 'id'));
  }
  return {
    version: TEMPLATE_VERSION,
    platform: 'CONSORTIUM',
    name: n.name,
    description: n.description ?? `consortium network ${n.name} (channel ${n.channelName})`,
    variables,
    network: {
      consensus: n.consensus,
      organizations: [...organizations.values()],
      channels: [{ name: n.channelName, organizations: appOrgs, policies: DEFAULT_CHANNEL_POLICIES }],
      chaincodes: [],
    },
  };
}

/**
 * A ledgerX network: its channel, SmartBFT and batching settings, each organization as a variable,
 * its orderer groups (in party order) and committers as node specs of an organization. Ports are
 * not exported (the importing instance allocates its own), nor a committer's given database (its
 * connection string holds a password): an imported committer gets a database of its service.
 */
async function ledgerXTemplate(deps: AppDeps, n: LedgerXNetworkRow): Promise<NetworkTemplate> {
  const variables: TemplateVariable[] = [];
  const orgVariable = new Map<number, string>();
  const orgOf = (organizationId: number) => {
    if (!orgVariable.has(organizationId)) {
      const name = `org${orgVariable.size + 1}`;
      variables.push({ name, type: 'organization', description: 'organization of orderer groups or committers of the network' });
      orgVariable.set(organizationId, name);
    }
    return placeholder(orgVariable.get(organizationId)!, 'id');
  };
  const spec = async (nodeId: number, organizationId: number) => {
    const { state } = await loadState(deps.store, nodeStream(nodeId), nodeAggregate);
    const config = (state.node?.config ?? {}) as { externalIp?: string };
    return { organization: orgOf(organizationId), ...(config.externalIp ? { externalIp: config.externalIp } : {}), ...(state.node?.engine ? { engine: state.node.engine } : {}) };
  };
  const groups = n.nodes.filter((m) => m.role === 'orderer-group').sort((a, b) => (a.partyId ?? 0) - (b.partyId ?? 0));
  const committers = n.nodes.filter((m) => m.role === 'committer');
  const ordererGroups = [];
  for (const g of groups) ordererGroups.push(await spec(g.nodeId, g.organizationId));
  const committerSpecs = [];
  for (const c of committers) committerSpecs.push(await spec(c.nodeId, c.organizationId));
  const { state } = await loadState(deps.store, LEDGERX_NETWORKS_STREAM, ledgerXNetworks);
  const settings = state.networks[n.id]?.settings ?? null;
  return {
    version: TEMPLATE_VERSION,
    platform: 'LEDGERX',
    name: n.name,
    description: n.description ?? `ledgerX network ${n.name} (channel ${n.channelName})`,
    variables,
    network: {
      channelName: n.channelName,
      ...(settings ? { smartBft: settings.smartBft, batching: settings.batching } : {}),
      ordererGroups,
      committers: committerSpecs,
    },
  };
}

/** The template of network {id}, evm, consortium or ledgerX (one sequence of network ids serves all three). */
export async function exportTemplate(deps: AppDeps, id: number): Promise<NetworkTemplate> {
  const evm = await getEvmNetwork(deps.pool, id);
  if (evm) return evmTemplate(evm, (await listEvmContracts(deps.pool, evm.id)).items);
  const consortium = await getConsortiumNetwork(deps.pool, id);
  if (consortium) return consortiumTemplate(deps, consortium);
  const ledgerx = await getLedgerXNetwork(deps.pool, { id });
  if (ledgerx) return ledgerXTemplate(deps, ledgerx);
  throw new NotFoundError('Network', id);
}
