// A ledgerX network's ledger: the explorer (chain info, blocks newest first, one block, one
// transaction with its commit status) read from a joined committer (its sidecar's block query
// service and its query service), and namespaces: listed from the query service, created by a
// transaction on the meta-namespace ("_meta") that carries the namespace's endorsement policy,
// endorsed by the admins of the channel's organizations (held by the service's key providers)
// and sent through a joined router, then awaited until the committer gives its status.
import { runCommand, type CommandInput } from '../commands.ts';
import { LEDGERX_NETWORKS_STREAM, ledgerXNetworks } from '../../domain/ledgerx/ledgerxNetwork.ts';
import type { AppDeps } from '../deps.ts';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import type { LedgerXBlock, LedgerXEndpoint, LedgerXNamespace, LedgerXNamespacePolicy, LedgerXTxStatus } from '../../domain/ledgerx/ledgerxLedgerPorts.ts';
import { ledgerXNodeHost, type LedgerXCommitterGroupConfig, type LedgerXOrdererGroupConfig } from '../../domain/ledgerx/ledgerxNode.ts';
import type { LedgerXNetworkRow } from '../../projections/ledgerx/ledgerxNetworks.ts';
import { ledgerXNetworkOr404 } from './ledgerxNetworkCreate.ts';
import { listNodes, type NodeRow } from '../../projections/nodes.ts';
import { consortiumOf } from '../consortium/consortiumContext.ts';
import { ledgerXOf } from './ledgerxContext.ts';

/**
 * The service reaches the nodes it runs on this machine on the loopback (as its health probes do),
 * and a group placed on a Kubernetes cluster (config.hostId) at the cluster's node address, where
 * its ports are NodePorts.
 */
const reach = (c: { hostId?: number; externalIp: string }, port: number): LedgerXEndpoint => ({ host: ledgerXNodeHost(c), port });
const live = (r: NodeRow | undefined) => !!r && (r.status === 'running' || r.status === 'down');

async function rows(deps: AppDeps, ids: number[]): Promise<Map<number, NodeRow>> {
  if (!ids.length) return new Map();
  return new Map((await listNodes(deps.pool, { limit: 10_000, offset: 0, ids })).items.map((r) => [r.id, r]));
}

export interface LedgerXCommitterAccess {
  committer: NodeRow;
  sidecar: LedgerXEndpoint;
  query: LedgerXEndpoint;
}

/** The first joined committer whose sidecar and query service run; a 409 when there is none. */
export async function committerAccess(deps: AppDeps, network: LedgerXNetworkRow): Promise<LedgerXCommitterAccess> {
  const joined = network.nodes.filter((m) => m.role === 'committer' && m.joinedAt);
  const groups = await rows(deps, joined.map((m) => m.nodeId));
  const roleIds = [...groups.values()].flatMap((g) => Object.values((g.config as unknown as LedgerXCommitterGroupConfig).roleNodeIds ?? {}));
  const roles = await rows(deps, roleIds);
  for (const m of joined) {
    const g = groups.get(m.nodeId);
    if (!g) continue;
    const c = g.config as unknown as LedgerXCommitterGroupConfig;
    if (live(roles.get(c.roleNodeIds.sidecar)) && live(roles.get(c.roleNodeIds.query))) return { committer: g, sidecar: reach(c, c.sidecarPort), query: reach(c, c.queryPort) };
  }
  throw new ConflictError(
    joined.length ? `No committer of network ${network.name} runs its sidecar and query service; start one of them.` : `No committer has joined network ${network.name}; join a committer to the network first.`,
    { networkId: network.id }, 'NO_RUNNING_COMMITTER',
  );
}

/** A joined orderer group whose router runs. */
async function routerOf(deps: AppDeps, network: LedgerXNetworkRow): Promise<LedgerXEndpoint> {
  const groups = await rows(deps, network.nodes.filter((m) => m.role === 'orderer-group' && m.joinedAt).map((m) => m.nodeId));
  const routers = await rows(deps, [...groups.values()].map((g) => (g.config as unknown as LedgerXOrdererGroupConfig).roleNodeIds?.router).filter((x): x is number => !!x));
  for (const g of groups.values()) {
    const c = g.config as unknown as LedgerXOrdererGroupConfig;
    if (routers.get(c.roleNodeIds.router)?.status === 'running') return reach(c, c.routerPort);
  }
  throw new ConflictError(`No router of network ${network.name} is running: join an orderer group or start its router.`, { networkId: network.id }, 'NO_RUNNING_ROUTER');
}

export async function ledgerXChainInfo(input: CommandInput, networkId: number) {
  const { deps } = input;
  const network = await ledgerXNetworkOr404(input, networkId);
  const access = await committerAccess(deps, network);
  const ledger = ledgerXOf(deps).ledger;
  const [info, configVersion] = await Promise.all([ledger.chainInfo(access.sidecar), ledger.configVersion(access.query)]);
  return { network, access, info, configVersion };
}

/** Blocks newest first: `offset` counts back from the newest. */
export async function ledgerXBlockPage(input: CommandInput, networkId: number, page: { limit: number; offset: number }): Promise<{ height: number; blocks: LedgerXBlock[] }> {
  const { deps } = input;
  const network = await ledgerXNetworkOr404(input, networkId);
  const access = await committerAccess(deps, network);
  const ledger = ledgerXOf(deps).ledger;
  const { height } = await ledger.chainInfo(access.sidecar);
  const numbers: number[] = [];
  for (let n = height - 1 - page.offset; n >= 0 && numbers.length < page.limit; n--) numbers.push(n);
  const blocks = await Promise.all(numbers.map((n) => ledger.block(access.sidecar, n)));
  return { height, blocks: blocks.filter((b): b is LedgerXBlock => b !== null) };
}

export async function ledgerXBlock(input: CommandInput, networkId: number, number: number): Promise<LedgerXBlock> {
  const { deps } = input;
  const network = await ledgerXNetworkOr404(input, networkId);
  const access = await committerAccess(deps, network);
  const block = await ledgerXOf(deps).ledger.block(access.sidecar, number);
  if (!block) throw new NotFoundError('Block', number);
  return block;
}

/** The committer's status of a transaction (query service) and the transaction as its block holds it (sidecar). */
export async function ledgerXTransaction(input: CommandInput, networkId: number, txId: string) {
  const { deps } = input;
  const network = await ledgerXNetworkOr404(input, networkId);
  const access = await committerAccess(deps, network);
  const ledger = ledgerXOf(deps).ledger;
  const status = await ledger.txStatus(access.query, txId);
  if (!status) throw new NotFoundError('Transaction', txId);
  const block = await ledger.block(access.sidecar, status.blockNumber);
  const tx = block?.transactions[status.txNumber];
  return { status, tx: tx && tx.txId === txId ? tx : null };
}

export async function listLedgerXNamespaces(input: CommandInput, networkId: number): Promise<LedgerXNamespace[]> {
  const { deps } = input;
  const network = await ledgerXNetworkOr404(input, networkId);
  const access = await committerAccess(deps, network);
  return ledgerXOf(deps).ledger.namespaces(access.query);
}

// fabric-x-committer's rule (service/verifier/policy: letters a-z, digits, underscore, 1..60, the
// namespace's table is ns_<name>), less its two system namespaces.
const NAMESPACE_NAME = /^[a-z0-9_]{1,60}$/;
const SYSTEM_NAMESPACES = ['_meta', '_config'];

export interface LedgerXNamespaceRequest {
  name: string;
  policy?:
    | { type: 'MSP'; organizations?: string[]; role?: 'member' | 'admin'; signaturesRequired?: number }
    | { type: 'THRESHOLD'; scheme: 'ECDSA'; publicKey: string };
}

export interface LedgerXNamespaceCreated {
  namespace: LedgerXNamespace;
  txId: string;
  status: LedgerXTxStatus;
}

function namespacePolicy(req: LedgerXNamespaceRequest, channelMspIds: string[]): Exclude<LedgerXNamespacePolicy, { type: 'UNKNOWN' }> {
  const p = req.policy ?? { type: 'MSP' as const };
  if (p.type === 'THRESHOLD') {
    if (!/^-----BEGIN PUBLIC KEY-----[\s\S]+-----END PUBLIC KEY-----\s*$/.test(p.publicKey.trim())) throw new ValidationError('policy.publicKey must be an ECDSA public key in PEM (-----BEGIN PUBLIC KEY-----).', [{ field: 'policy.publicKey', message: 'a PEM public key' }]);
    return { type: 'THRESHOLD', scheme: p.scheme, publicKeyPem: p.publicKey.trim() + '\n' };
  }
  const orgs = p.organizations ?? channelMspIds;
  if (!orgs.length) throw new ValidationError('policy.organizations names no organization.', [{ field: 'policy.organizations', message: 'at least one' }]);
  if (new Set(orgs).size !== orgs.length) throw new ValidationError('policy.organizations names an organization twice.', [{ field: 'policy.organizations', message: 'each once' }]);
  const unknown = orgs.filter((o) => !channelMspIds.includes(o));
  if (unknown.length) throw new ValidationError(`policy.organizations: ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not an organization of the channel (${channelMspIds.join(', ')}).`, [{ field: 'policy.organizations', message: 'not in the channel' }]);
  const n = p.signaturesRequired ?? 1;
  if (n > orgs.length) throw new ValidationError(`policy.signaturesRequired (${n}) is more than the ${orgs.length} organizations named.`, [{ field: 'policy.signaturesRequired', message: `at most ${orgs.length}` }]);
  return { type: 'MSP', principals: orgs.map((mspId) => ({ mspId, role: p.role ?? 'member' })), signaturesRequired: n };
}

export async function createLedgerXNamespace(input: CommandInput, networkId: number, req: LedgerXNamespaceRequest): Promise<LedgerXNamespaceCreated> {
  const { deps } = input;
  const network = await ledgerXNetworkOr404(input, networkId);
  if (SYSTEM_NAMESPACES.includes(req.name) || !NAMESPACE_NAME.test(req.name)) {
    throw new ValidationError(`Namespace name "${req.name.slice(0, 80)}" is not valid: 1 to 60 of a-z, 0-9 and _ (Fabric-X keeps a namespace in the table ns_<name>), and not _meta or _config.`, [{ field: 'name', message: 'a-z, 0-9, _; 1..60' }]);
  }
  const parties = network.nodes.filter((m) => m.role === 'orderer-group');
  const channelOrgs = [...new Map(parties.map((m) => [m.mspId, m.organizationId])).entries()];
  const policy = namespacePolicy(req, channelOrgs.map(([mspId]) => mspId));
  const access = await committerAccess(deps, network);
  const ledger = ledgerXOf(deps).ledger;
  if ((await ledger.namespaces(access.query)).some((n) => n.name === req.name)) {
    throw new ConflictError(`Namespace ${req.name} already exists in network ${network.name}.`, { name: req.name }, 'NAMESPACE_EXISTS');
  }
  const router = await routerOf(deps, network);
  // The meta-namespace's policy is the channel's LifecycleEndorsement (a majority of the
  // organizations' Endorsement policies): every organization of the channel endorses.
  const signers = await Promise.all(channelOrgs.map(([, organizationId]) => consortiumOf(deps).credentials.adminSigner(organizationId)));
  const metaVersion = await ledger.configVersion(access.query);
  const { txId } = await ledger.submitNamespace({ router, channel: network.channelName, name: req.name, policy, metaVersion, signers });
  const deadline = Date.now() + 60_000;
  let status: LedgerXTxStatus | null = null;
  while (!(status = await ledger.txStatus(access.query, txId)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  if (!status) throw new AppError(504, 'COMMIT_TIMEOUT', `The router accepted transaction ${txId} creating namespace ${req.name}, but the committer has given no status for it after 60 s.`, { extra: { txId } });
  if (status.status === 'ABORTED_MVCC_CONFLICT') throw new ConflictError(`Namespace ${req.name} already exists in network ${network.name} (transaction ${txId}: ${status.status}).`, { name: req.name, txId }, 'NAMESPACE_EXISTS');
  if (status.status !== 'COMMITTED') throw new AppError(422, 'TRANSACTION_INVALID', `The committer refused transaction ${txId} creating namespace ${req.name}: ${status.status}.`, { extra: { txId, status: status.status } });
  await runCommand(input, LEDGERX_NETWORKS_STREAM, ledgerXNetworks, { type: 'RecordLedgerXNamespaceCreated', networkId: network.id, name: req.name, txId, blockNumber: status.blockNumber, policyType: policy.type, at: deps.clock().toISOString() });
  const created = (await ledger.namespaces(access.query)).find((n) => n.name === req.name);
  return { namespace: created ?? { name: req.name, version: 0, policy }, txId, status };
}
