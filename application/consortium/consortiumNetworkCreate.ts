// Creating a consortium network (one channel): its organizations and nodes checked, its
// genesis block built in the service (Fabric's config tree: orderer and application groups,
// each organization's MSP, policies, capabilities, raft consenters with their TLS
// certificates) and recorded with NetworkCreated. Nothing is recorded unless the block was
// built: no network event without its genesis block. Importing records an existing channel's
// config block as it is.
import { smartBftOptionIssues } from '../../domain/consortium/smartBftOptions.ts';
import { runCommand, type CommandInput } from '../commands.ts';
import { ValidationError, type FieldIssue } from '../../domain/shared/errors.ts';
import { CONSORTIUM_NETWORKS_STREAM, channelNameIssue, consortiumNetworks, type ConsortiumMemberNode, type ConsortiumNetworkCreatedData } from '../../domain/consortium/consortiumNetwork.ts';
import { assertNetworkName } from '../../domain/networks/networkName.ts';
import type { BftConsenter, ChannelBatchSettings, ConsortiumConsensus, OrdererOrganization, RaftConsenter, SmartBftOptions } from '../../domain/consortium/consortiumPorts.ts';
import { bftFaultsTolerated, MIN_BFT_CONSENTERS, SMARTBFT_DEFAULTS, SMARTBFT_MIN_RELEASE } from '../../domain/consortium/consortiumDefaults.ts';
import { listNodes, type NodeRow } from '../../projections/nodes.ts';
import { getOrganization, getOrganizationByMspId } from '../../projections/organizations.ts';
import { getKey } from '../../projections/keys.ts';
import { consortiumOf } from './consortiumContext.ts';
import { recordMadeFor } from '../creations.ts';
import { releaseAtLeast } from '../../domain/consortium/capabilityRules.ts';

type Input = CommandInput;

/** configtx.yaml's defaults (Fabric 2.5 sample configuration). */
export const DEFAULT_BATCH: ChannelBatchSettings = { batchTimeout: '2s', maxMessageCount: 500, absoluteMaxBytes: 10 * 1024 * 1024, preferredMaxBytes: 2 * 1024 * 1024 };

export interface ConsortiumNetworkRequest {
  name: string;
  channelName: string;
  description?: string | null;
  organizationIds?: number[];
  ordererIds: number[];
  peerIds?: number[];
  /** etcdraft (default) or smartbft (4 orderers or more, each on Fabric 3.x). */
  consensus?: ConsortiumConsensus;
  /** smartbft: options changed from SMARTBFT_DEFAULTS. */
  smartBftOptions?: Partial<SmartBftOptions>;
  batchTimeout?: string;
  maxMessageCount?: number;
  absoluteMaxBytes?: number;
  preferredMaxBytes?: number;
  /** A client-driven create (POST /creations) this network is made for: recorded on it before it is made. */
  creationId?: number;
}

const DURATION = /^\d+(ms|s|m)$/;

export function splitEndpoint(endpoint: string): { host: string; port: number } {
  const i = endpoint.lastIndexOf(':');
  return { host: endpoint.slice(0, i), port: Number(endpoint.slice(i + 1)) };
}

const member = (n: NodeRow, mspId: string): ConsortiumMemberNode => ({ nodeId: n.id, role: n.role as 'peer' | 'orderer', organizationId: n.organizationId!, mspId });

async function certificateOf(input: Pick<Input, 'deps'>, node: NodeRow, which: 'tlsKeyId' | 'identityKeyId'): Promise<string> {
  const events = await input.deps.store.readStream(`node-${node.id}`);
  const keyId = Number(events.find((e) => e.type === 'NodeCreated')?.data[which]);
  const key = await getKey(input.deps.pool, keyId);
  const what = which === 'tlsKeyId' ? 'TLS' : 'identity';
  if (!key?.certificate) throw new ValidationError(`Orderer ${node.name} has no ${what} certificate.`, [{ field: 'ordererIds', message: `${node.name} has no ${what} certificate` }]);
  return key.certificate.pem;
}

/** An orderer's TLS certificate (PEM), as its consenter entry carries it. */
export const tlsCertificateOf = (input: Pick<Input, 'deps'>, node: NodeRow): Promise<string> => certificateOf(input, node, 'tlsKeyId');
/** An orderer's signing identity certificate (PEM), as its BFT ConsenterMapping entry carries it. */
export const identityCertificateOf = (input: Pick<Input, 'deps'>, node: NodeRow): Promise<string> => certificateOf(input, node, 'identityKeyId');

/**
 * What a BFT channel needs of its orderers, checked before anything is built: at least 4 (one
 * fault tolerated), each running a Fabric release with SmartBFT (3.0 or newer), and options Fabric
 * accepts. One 400 listing every problem.
 */
function smartBftIssues(orderers: NodeRow[], options: SmartBftOptions): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (orderers.length < MIN_BFT_CONSENTERS) {
    issues.push({ field: 'ordererIds', message: `smartbft needs at least ${MIN_BFT_CONSENTERS} orderers: n orderers tolerate floor((n - 1) / 3) faulty ones, so ${orderers.length} tolerate ${bftFaultsTolerated(orderers.length)} and 4 tolerate one` });
  }
  for (const o of orderers) {
    const version = o.consortiumConfig?.fabricVersion;
    if (!version) issues.push({ field: 'ordererIds', message: `orderer ${o.name} records no Fabric release (${o.engine === 'docker' ? 'a docker node runs its image\'s' : 'made before releases were recorded'}); smartbft needs orderers created on Fabric ${SMARTBFT_MIN_RELEASE} or newer (config.fabricVersion)` });
    else if (!releaseAtLeast(version, SMARTBFT_MIN_RELEASE)) issues.push({ field: 'ordererIds', message: `orderer ${o.name} runs Fabric ${version}; smartbft needs Fabric ${SMARTBFT_MIN_RELEASE} or newer orderers (create them with config.fabricVersion of a 3.x release)` });
  }
  issues.push(...smartBftOptionIssues(options));
  return issues;
}

export async function createConsortiumNetwork(input: Input, req: ConsortiumNetworkRequest): Promise<number> {
  const { deps } = input;
  const consortium = consortiumOf(deps);
  assertNetworkName(req.name);
  const issues: FieldIssue[] = [];
  const channelIssue = channelNameIssue(req.channelName);
  if (channelIssue) issues.push({ field: 'channelName', message: channelIssue });
  if (req.batchTimeout !== undefined && !DURATION.test(req.batchTimeout)) issues.push({ field: 'batchTimeout', message: 'a duration such as 2s or 500ms' });
  if (!req.ordererIds.length) issues.push({ field: 'ordererIds', message: 'at least one orderer (CONSORTIUM_ORDERER node)' });
  const ids = [...req.ordererIds, ...(req.peerIds ?? [])];
  if (new Set(ids).size !== ids.length) issues.push({ field: 'peerIds', message: 'each node may be named once' });
  if (issues.length) throw new ValidationError(`Invalid network: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, issues);
  const consensus: ConsortiumConsensus = req.consensus ?? 'etcdraft';
  if (consensus !== 'smartbft' && req.smartBftOptions !== undefined) throw new ValidationError('smartBftOptions are the options of a smartbft channel; this one is etcdraft.', [{ field: 'smartBftOptions', message: 'only with consensus smartbft' }]);

  const rows = new Map((await listNodes(deps.pool, { limit: 10_000, offset: 0, ids })).items.map((n) => [n.id, n]));
  const nodeOf = (id: number, role: 'peer' | 'orderer', field: string) => {
    const n = rows.get(id);
    if (!n || n.platform !== 'CONSORTIUM') throw new ValidationError(`Node ${id} does not exist or is not a consortium node.`, [{ field, message: `no consortium node ${id}` }]);
    if (n.role !== role) throw new ValidationError(`Node ${n.name} (${id}) is a ${n.role}, not a ${role}.`, [{ field, message: `${n.name} is a ${n.role}` }]);
    return n;
  };
  const orderers = req.ordererIds.map((id) => nodeOf(id, 'orderer', 'ordererIds'));
  const smartBftOptions: SmartBftOptions = { ...SMARTBFT_DEFAULTS, ...(req.smartBftOptions ?? {}) };
  if (consensus === 'smartbft') {
    const bftIssues = smartBftIssues(orderers, smartBftOptions);
    if (bftIssues.length) throw new ValidationError(`Invalid smartbft network: ${bftIssues.map((i) => `${i.field}: ${i.message}`).join('; ')}.`, bftIssues);
  }
  const peers = (req.peerIds ?? []).map((id) => nodeOf(id, 'peer', 'peerIds'));
  const peerOrgIds = [...new Set(req.organizationIds?.length ? req.organizationIds : peers.map((p) => p.organizationId!))];
  if (!peerOrgIds.length) throw new ValidationError('A channel needs at least one application organization: give organizationIds or peerIds.', [{ field: 'organizationIds', message: 'at least one organization' }]);
  const orgs = new Map<number, { id: number; mspId: string }>();
  for (const id of [...peerOrgIds, ...orderers.map((o) => o.organizationId!)]) {
    const org = await getOrganization(deps.pool, id);
    if (!org) throw new ValidationError(`Organization ${id} does not exist.`, [{ field: 'organizationIds', message: `no organization ${id}` }]);
    orgs.set(id, { id, mspId: org.mspId });
  }
  const foreign = peers.find((p) => !peerOrgIds.includes(p.organizationId!));
  if (foreign) throw new ValidationError(`Peer ${foreign.name} belongs to ${orgs.get(foreign.organizationId!)?.mspId ?? foreign.organizationId}, which is not an organization of the channel.`, [{ field: 'peerIds', message: `${foreign.name} is a peer of another organization` }]);

  const ordererOrgIds = [...new Set(orderers.map((o) => o.organizationId!))];
  const ordererOrganizations: OrdererOrganization[] = [];
  for (const id of ordererOrgIds) {
    const msp = await consortium.credentials.organizationMsp(id);
    ordererOrganizations.push({ ...msp, endpoints: orderers.filter((o) => o.organizationId === id).map((o) => o.consortiumConfig!.externalEndpoint) });
  }
  const consenters: RaftConsenter[] = [];
  const bftConsenters: BftConsenter[] = [];
  for (const [i, o] of orderers.entries()) {
    const tls = await certificateOf(input, o, 'tlsKeyId');
    consenters.push({ ...splitEndpoint(o.consortiumConfig!.externalEndpoint), clientTlsCertPem: tls, serverTlsCertPem: tls });
    if (consensus === 'smartbft') bftConsenters.push({ ...consenters[i], id: i + 1, mspId: orgs.get(o.organizationId!)!.mspId, identityCertPem: await certificateOf(input, o, 'identityKeyId') });
  }
  const batch: ChannelBatchSettings = {
    batchTimeout: req.batchTimeout ?? DEFAULT_BATCH.batchTimeout,
    maxMessageCount: req.maxMessageCount ?? DEFAULT_BATCH.maxMessageCount,
    absoluteMaxBytes: req.absoluteMaxBytes ?? DEFAULT_BATCH.absoluteMaxBytes,
    preferredMaxBytes: req.preferredMaxBytes ?? DEFAULT_BATCH.preferredMaxBytes,
  };
  if (batch.preferredMaxBytes > batch.absoluteMaxBytes) throw new ValidationError('preferredMaxBytes must not exceed absoluteMaxBytes.', [{ field: 'preferredMaxBytes', message: 'larger than absoluteMaxBytes' }]);
  const peerOrganizations = await Promise.all(peerOrgIds.map((id) => consortium.credentials.organizationMsp(id)));
  let block: Uint8Array;
  try {
    block = consortium.channels.buildGenesisBlock({ channelName: req.channelName, peerOrganizations, ordererOrganizations, consenters, batch, ...(consensus === 'smartbft' ? { smartBft: { consenters: bftConsenters, options: smartBftOptions } } : {}) });
  } catch (err) {
    throw new ValidationError(`The genesis block of channel ${req.channelName} could not be built: ${(err as Error).message}`, [{ field: 'channelName', message: (err as Error).message }]);
  }
  const networkId = await deps.nextId('network');
  await recordMadeFor(input, req.creationId, 'network', networkId);
  const data: ConsortiumNetworkCreatedData = {
    networkId, platform: 'CONSORTIUM', name: req.name, channelName: req.channelName, description: req.description ?? null, consensus,
    organizations: peerOrgIds.map((id) => ({ organizationId: id, mspId: orgs.get(id)!.mspId })),
    ordererOrganizations: ordererOrgIds.map((id) => ({ organizationId: id, mspId: orgs.get(id)!.mspId })),
    ordererEndpoints: orderers.map((o) => o.consortiumConfig!.externalEndpoint),
    nodes: [...orderers, ...peers].map((n) => member(n, orgs.get(n.organizationId!)!.mspId)),
    batch, genesisBlock: Buffer.from(block).toString('base64'), imported: false, at: deps.clock().toISOString(),
  };
  await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'CreateConsortiumNetwork', ...data });
  return networkId;
}

export interface ConsortiumImportRequest {
  name: string;
  description?: string | null;
  /** base64 of a genesis or config block of the channel. */
  block: string;
  ordererEndpoints: string[];
  channelName?: string;
}

const ENDPOINT = /^[A-Za-z0-9.-]+:\d{1,5}$/;

/** The batch settings an imported channel has (configtxlator JSON of its Orderer values). */
function batchOf(values: Record<string, { value: unknown }> | undefined): ChannelBatchSettings {
  const size = (values?.BatchSize?.value ?? {}) as Record<string, number>;
  const timeout = (values?.BatchTimeout?.value ?? {}) as Record<string, string>;
  return {
    batchTimeout: timeout.timeout ?? DEFAULT_BATCH.batchTimeout,
    maxMessageCount: Number(size.max_message_count ?? DEFAULT_BATCH.maxMessageCount),
    absoluteMaxBytes: Number(size.absolute_max_bytes ?? DEFAULT_BATCH.absoluteMaxBytes),
    preferredMaxBytes: Number(size.preferred_max_bytes ?? DEFAULT_BATCH.preferredMaxBytes),
  };
}

/** Records an existing channel from its config block, unchanged. */
export async function importConsortiumNetwork(input: Input, req: ConsortiumImportRequest): Promise<number> {
  const { deps } = input;
  const consortium = consortiumOf(deps);
  assertNetworkName(req.name);
  const bytes = Buffer.from(req.block, 'base64');
  if (!bytes.length || bytes.toString('base64').replace(/=+$/, '') !== req.block.replace(/\s+/g, '').replace(/=+$/, '')) throw new ValidationError('block must be the base64 of a channel genesis or config block.', [{ field: 'block', message: 'not base64' }]);
  const bad = req.ordererEndpoints.findIndex((e) => !ENDPOINT.test(e));
  if (!req.ordererEndpoints.length || bad >= 0) throw new ValidationError('ordererEndpoints must list host:port of the channel\'s orderers.', [{ field: bad >= 0 ? `ordererEndpoints[${bad}]` : 'ordererEndpoints', message: 'host:port' }]);
  const { config, channelName } = consortium.channels.readConfigBlock(bytes);
  if (req.channelName !== undefined && req.channelName !== channelName) throw new ValidationError(`The block is of channel ${channelName}, not ${req.channelName}.`, [{ field: 'channelName', message: `the block is of channel ${channelName}` }]);
  const orgsOf = async (group: string) => {
    const g = config.channel_group.groups[group];
    const out = [];
    for (const mspId of Object.keys(g?.groups ?? {})) out.push({ organizationId: (await getOrganizationByMspId(deps.pool, mspId))?.id ?? null, mspId });
    return out;
  };
  const networkId = await deps.nextId('network');
  await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, {
    type: 'CreateConsortiumNetwork', networkId, platform: 'CONSORTIUM', name: req.name, channelName, description: req.description ?? null,
    consensus: (config.channel_group.groups.Orderer?.values?.ConsensusType?.value as { type?: string } | undefined)?.type === 'BFT' ? 'smartbft' : 'etcdraft',
    organizations: await orgsOf('Application'), ordererOrganizations: await orgsOf('Orderer'), ordererEndpoints: req.ordererEndpoints, nodes: [],
    batch: batchOf(config.channel_group.groups.Orderer?.values), genesisBlock: bytes.toString('base64'), imported: true, at: deps.clock().toISOString(),
  });
  return networkId;
}
