// LedgerX networks: creating one builds its genesis block (Arma orderer type, the parties'
// endpoints and certificates, SmartBFT and batching settings; encoded by the service in
// adapters/ledgerx/ledgerxGenesis.ts, no Fabric-X program needed) from the orderer groups named,
// and records the network with its block in one event; joining an orderer group gives its roles
// the block and starts them in Fabric-X's order (consenter, batcher, assembler, router), each
// awaited up to the join timeout (LNM_LEDGERX_JOIN_TIMEOUT_SECONDS, 240 s).
import { runCommand, type CommandInput } from '../commands.ts';
import { recordMadeFor } from '../creations.ts';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { loadState } from '../../domain/shared/commandHandler.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { assertNetworkName } from '../../domain/networks/networkName.ts';
import { LEDGERX_ORDERER_ROLES, type LedgerXOrdererGroupCreatedData, type LedgerXRoleNodeCreatedData } from '../../domain/ledgerx/ledgerxNode.ts';
import { LEDGERX_NETWORKS_STREAM, ledgerXNetworks, type LedgerXParty } from '../../domain/ledgerx/ledgerxNetwork.ts';
import type { LedgerXGenesisParty } from '../../domain/ledgerx/ledgerxPorts.ts';
import { resolveLedgerXConsensus, type LedgerXConsensusInput } from '../../domain/ledgerx/ledgerxConsensus.ts';
import type { ConsortiumNodeCreatedData } from '../../domain/consortium/consortiumNode.ts';
import { getNode, type NodeRow } from '../../projections/nodes.ts';
import { getLedgerXNetwork, ledgerXGenesisBlock, ledgerXNetworkOfNode, type LedgerXNetworkRow } from '../../projections/ledgerx/ledgerxNetworks.ts';
import { startLedgerXOrdererGroup } from './ledgerxOrdererGroupStart.ts';
import { consortiumOf } from '../consortium/consortiumContext.ts';
import { ledgerXOf } from './ledgerxContext.ts';

export interface LedgerXNetworkRequest {
  name: string;
  channelName?: string;
  description?: string;
  ordererGroupIds: number[];
  /** SmartBFT and batching settings of the Arma shared config; fabric-x-orderer's defaults for what is left out. */
  smartBft?: LedgerXConsensusInput['smartBft'];
  batching?: LedgerXConsensusInput['batching'];
  /** The ledgerX quick start's create: the network is listed on it before it is made (application/creations.ts). */
  creationId?: number;
}

async function groupRecord(input: CommandInput, nodeId: number, field: string): Promise<LedgerXOrdererGroupCreatedData> {
  const { state } = await loadState(input.deps.store, nodeStream(nodeId), nodeAggregate);
  if (!state.node || state.deleted) throw new ValidationError(`Node ${nodeId} does not exist.`, [{ field, message: 'no such node' }]);
  if (state.node.nodeType !== 'LEDGERX_ORDERER_GROUP') throw new ValidationError(`Node ${nodeId} (${state.node.name}) is a ${state.node.nodeType}, not a LEDGERX_ORDERER_GROUP.`, [{ field, message: 'not a ledgerX orderer group' }]);
  return state.node as LedgerXOrdererGroupCreatedData;
}

async function roleRecord(input: CommandInput, nodeId: number): Promise<LedgerXRoleNodeCreatedData> {
  const { state } = await loadState(input.deps.store, nodeStream(nodeId), nodeAggregate);
  if (!state.node || state.deleted) throw new ConflictError(`Role node ${nodeId} of an orderer group is gone; recreate the group.`);
  return state.node as LedgerXRoleNodeCreatedData;
}

export async function createLedgerXNetwork(input: CommandInput, req: LedgerXNetworkRequest): Promise<number> {
  const { deps } = input;
  const ledgerx = ledgerXOf(deps);
  const credentials = consortiumOf(deps).credentials;
  assertNetworkName(req.name);
  const channelName = req.channelName ?? req.name.toLowerCase();
  if (!req.ordererGroupIds.length) throw new ValidationError('A ledgerX network needs at least one orderer group (ordererGroupIds).', [{ field: 'ordererGroupIds', message: 'at least one orderer group' }]);
  if (new Set(req.ordererGroupIds).size !== req.ordererGroupIds.length) throw new ValidationError('ordererGroupIds names a group twice.', [{ field: 'ordererGroupIds', message: 'each group once' }]);
  const settings = resolveLedgerXConsensus({ smartBft: req.smartBft, batching: req.batching });
  if (await getLedgerXNetwork(deps.pool, { name: req.name })) throw new ConflictError(`A ledgerX network named ${req.name} already exists.`, { field: 'name' }, 'NAME_TAKEN');
  const parties: LedgerXParty[] = [];
  const genesisParties: LedgerXGenesisParty[] = [];
  for (const [i, groupId] of req.ordererGroupIds.entries()) {
    const group = await groupRecord(input, groupId, `ordererGroupIds[${i}]`);
    const other = await ledgerXNetworkOfNode(deps.pool, groupId);
    if (other !== null) throw new ConflictError(`Orderer group ${group.name} is already a party of network ${other}; a group orders one channel.`, { field: `ordererGroupIds[${i}]`, networkId: other }, 'GROUP_IN_NETWORK');
    const partyId = i + 1;
    parties.push({ nodeId: groupId, partyId, organizationId: group.organizationId, mspId: group.mspId });
    const roles = {} as Record<(typeof LEDGERX_ORDERER_ROLES)[number], LedgerXGenesisParty['router']>;
    let cas: { signCaCertPem: string; tlsCaCertPem: string } | null = null;
    for (const r of LEDGERX_ORDERER_ROLES) {
      const role = await roleRecord(input, group.config.roleNodeIds[r]);
      const material = await credentials.nodeMaterial(role as unknown as ConsortiumNodeCreatedData).catch((err: Error) => {
        // A role's identity or TLS key deleted (or never certified): the block cannot name it.
        if (err instanceof AppError && err.status < 500) throw new ValidationError(`Orderer group ${group.name}: the ${r}'s certificates cannot be read (${err.message}); recreate the group.`, [{ field: `ordererGroupIds[${i}]`, message: `${r} certificates missing` }]);
        throw err;
      });
      cas = { signCaCertPem: material.organization.signCaCertPem, tlsCaCertPem: material.organization.tlsCaCertPem };
      roles[r] = { host: role.config.externalIp, port: role.config.grpcPort, tlsCertPem: material.tlsCertPem, signCertPem: material.identityCertPem };
    }
    const orgMsp = await credentials.organizationMsp(group.organizationId);
    genesisParties.push({ partyId, mspId: group.mspId, ...cas!, knownCertPems: [orgMsp.adminCertPem], ...roles });
  }
  let block: Uint8Array;
  try {
    block = await ledgerx.runtime.genesis({ channel: channelName, parties: genesisParties, settings });
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(422, 'GENESIS_FAILED', `The genesis block of ${req.name} could not be built: ${(err as Error).message}`);
  }
  const networkId = await deps.nextId('network');
  await recordMadeFor(input, req.creationId, 'network', networkId);
  await runCommand(input, LEDGERX_NETWORKS_STREAM, ledgerXNetworks, {
    type: 'CreateLedgerXNetwork', networkId, name: req.name, channelName, description: req.description ?? null, parties, genesisBlock: Buffer.from(block).toString('base64'), settings, at: deps.clock().toISOString(),
  });
  return networkId;
}

export async function ledgerXNetworkOr404(input: CommandInput, id: number): Promise<LedgerXNetworkRow> {
  const n = await getLedgerXNetwork(input.deps.pool, { id });
  if (!n) throw new NotFoundError('Network', id);
  return n;
}

/** Gives the group its network's block, records the join, starts its roles; returns the group's row after its start settled. */
export async function joinLedgerXOrdererGroup(input: CommandInput, networkId: number, nodeId: number): Promise<NodeRow> {
  const { deps } = input;
  const ledgerx = ledgerXOf(deps);
  const network = await ledgerXNetworkOr404(input, networkId);
  const row = await getNode(deps.pool, nodeId);
  if (!row) throw new NotFoundError('Node', nodeId);
  await groupRecord(input, nodeId, 'nodeId');
  const member = network.nodes.find((n) => n.nodeId === nodeId);
  if (!member) throw new ValidationError(`Orderer group ${row.name} is not a party of network ${network.name}; its parties are fixed in its genesis block.`, [{ field: 'nodeId', message: 'not a party of this network' }]);
  if (member.joinedAt) throw new ConflictError(`Orderer group ${row.name} has already joined network ${network.name}.`, { nodeId }, 'ALREADY_JOINED');
  // A group on a Kubernetes cluster runs the cluster's arma image: no program needed here.
  const available = (row.config as { hostId?: number }).hostId ? { ok: true as const } : await ledgerx.runtime.available();
  if (!available.ok) throw new ValidationError(`Cannot run orderer group ${row.name} here: ${available.reason}.`, [{ field: 'programs', message: 'arma not found' }]);
  const block = await ledgerXGenesisBlock(deps.pool, networkId);
  if (!block) throw new NotFoundError('Network', networkId);
  await ledgerx.runtime.writeJoin(nodeId, { networkId, channel: network.channelName, partyId: member.partyId!, block });
  await runCommand(input, LEDGERX_NETWORKS_STREAM, ledgerXNetworks, { type: 'RecordLedgerXOrdererGroupJoined', networkId, nodeId, at: deps.clock().toISOString() });
  return startLedgerXOrdererGroup(input, row);
}

/** Gives the committer its network's block (the sidecar reads the orderers from it), records the join, starts its services. */
export async function joinLedgerXCommitter(input: CommandInput, networkId: number, nodeId: number): Promise<NodeRow> {
  const { deps } = input;
  const ledgerx = ledgerXOf(deps);
  const network = await ledgerXNetworkOr404(input, networkId);
  const row = await getNode(deps.pool, nodeId);
  if (!row) throw new NotFoundError('Node', nodeId);
  if (row.nodeType !== 'LEDGERX_COMMITTER') throw new ValidationError(`Node ${nodeId} (${row.name}) is a ${row.nodeType}, not a LEDGERX_COMMITTER.`, [{ field: 'nodeId', message: 'not a ledgerX committer' }]);
  if (network.nodes.some((n) => n.nodeId === nodeId)) throw new ConflictError(`Committer ${row.name} has already joined network ${network.name}.`, { nodeId }, 'ALREADY_JOINED');
  const other = await ledgerXNetworkOfNode(deps.pool, nodeId);
  if (other !== null) throw new ConflictError(`Committer ${row.name} already serves network ${other}; a committer serves one channel.`, { nodeId, networkId: other }, 'ALREADY_JOINED');
  const block = await ledgerXGenesisBlock(deps.pool, networkId);
  if (!block) throw new NotFoundError('Network', networkId);
  await ledgerx.runtime.writeJoin(nodeId, { networkId, channel: network.channelName, partyId: 0, block });
  await runCommand(input, LEDGERX_NETWORKS_STREAM, ledgerXNetworks, { type: 'RecordLedgerXCommitterJoined', networkId, nodeId, organizationId: row.organizationId!, mspId: (await groupMsp(input, nodeId)), at: deps.clock().toISOString() });
  return startLedgerXOrdererGroup(input, row);
}

async function groupMsp(input: CommandInput, nodeId: number): Promise<string> {
  const { state } = await loadState(input.deps.store, nodeStream(nodeId), nodeAggregate);
  return (state.node as { mspId?: string } | null)?.mspId ?? '';
}
