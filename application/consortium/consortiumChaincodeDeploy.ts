// Chaincode records (POST /sc/consortium/chaincodes), the whole deploy of a network
// (POST /sc/consortium/deploy: register or reuse the record, install on every running joined
// peer of every organization the service holds, approve for each, commit, start the server, send
// Init when the definition requires it), and
// invoke/query through a peer's gateway as an organization the caller names.
import { appendForRequest, runCommand } from '../commands.ts';
import { ConflictError, NotFoundError, UnavailableError, ValidationError, type FieldIssue } from '../../domain/shared/errors.ts';
import { chaincodeInvocationsStream, chaincodeRequestIssues, chaincodeStream, consortiumChaincode, IMAGE_REFERENCE, type ChaincodeCollection, type ChaincodeRegisteredData, type ChaincodeSource, type ChaincodeSourceFile } from '../../domain/consortium/consortiumChaincode.ts';
import { getChaincode, latestChaincode, type ChaincodeRow } from '../../projections/consortium/consortiumChaincodes.ts';
import { getNode, type NodeRow } from '../../projections/nodes.ts';
import { getNodeHost } from '../../projections/nodeHosts.ts';
import type { Endpoint } from '../../domain/consortium/consortiumPorts.ts';
import { consortiumRoutes } from './consortiumRoutes.ts';
import type { ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import { consortiumOf } from './consortiumContext.ts';
import { consortiumNetworkOr404, grpcEndpoint } from './consortiumChannelAccess.ts';
import { approveFor, chaincodeRecord, commitOn, heldOrganizations, initializeOn, installOn, joinedPeers, startServer, type HeldOrganization, type Input, type MemberPeer } from './consortiumChaincodeSteps.ts';

export interface ChaincodeRequest {
  networkId: number;
  name: string;
  version: string;
  sequence?: number;
  language?: 'node';
  endorsementPolicy?: string;
  initRequired?: boolean;
  init?: { function?: string; args?: string[] };
  collections?: ChaincodeCollection[];
  source: { files?: ChaincodeSourceFile[]; archive?: string; image?: string };
  /** Mutual TLS between the peers and the chaincode server (default true). */
  tls?: boolean;
  /** A registered Kubernetes cluster the chaincode server runs on, wherever the peers are. */
  placement?: { hostId: number };
}

const FILE_PATH = /^(?!\/)(?!.*(^|\/)\.\.?(\/|$))[A-Za-z0-9._@+\/-]{1,200}$/;

function sourceFiles(input: Input, req: ChaincodeRequest): ChaincodeSourceFile[] {
  const { files, archive } = req.source;
  const out = files ?? consortiumOf(input.deps).chaincodes.filesOfArchive(Buffer.from(archive!, 'base64'));
  const issues: FieldIssue[] = [];
  out.forEach((f, i) => {
    if (!FILE_PATH.test(f.path)) issues.push({ field: `source.files[${i}].path`, message: 'must be a relative path without ".." (letters, digits, . _ @ + / -)' });
  });
  if (new Set(out.map((f) => f.path)).size !== out.length) issues.push({ field: 'source.files', message: 'each path once' });
  if (issues.length) throw new ValidationError(`Invalid chaincode source: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, issues);
  return out;
}

/** The record's source: files (given, or from a .tar.gz), or a container image the docker engine has (503 without an engine, 400 without the image). */
async function sourceOf(input: Input, req: ChaincodeRequest): Promise<ChaincodeSource> {
  const { files, archive, image } = req.source;
  if ((files ? 1 : 0) + (archive ? 1 : 0) + (image ? 1 : 0) !== 1) throw new ValidationError('Give the chaincode source as source.files, source.archive (a .tar.gz, base64) or source.image (a chaincode-as-a-service image under the docker engine), one of them.', [{ field: 'source', message: 'files, archive or image' }]);
  if (!image) return { kind: 'files', files: sourceFiles(input, req) };
  if (image.length > 255 || !IMAGE_REFERENCE.test(image)) throw new ValidationError(`source.image ${JSON.stringify(image.slice(0, 300))} is not an image reference.`, [{ field: 'source.image', message: 'an image reference such as lnm-chaincode-asset-registry:local' }]);
  const check = await consortiumOf(input.deps).chaincodes.servers.checkImage(image);
  if (!check.ok && check.engineDown) throw new UnavailableError(`A chaincode from the image ${image} runs under the docker engine, which is not available: ${check.reason}.`, { image });
  if (!check.ok) throw new ValidationError(`Cannot use the image ${image} as chaincode: ${check.reason}.`, [{ field: 'source.image', message: 'no such image on the Docker host' }]);
  return { kind: 'image', image };
}

// Compared by content: a stored event's JSON comes back with its keys in another order.
function sameSource(a: ChaincodeSource, b: ChaincodeSource): boolean {
  if (a.kind === 'image' || b.kind === 'image') return a.kind === b.kind && (a as { image: string }).image === (b as { image: string }).image;
  return a.files.length === b.files.length && a.files.every((f, i) => f.path === b.files[i].path && f.content === b.files[i].content);
}

const initOf = (req: ChaincodeRequest) => (req.init ? { function: req.init.function ?? null, args: req.init.args ?? [] } : null);

// Compared field by field: a stored event's JSON comes back with its keys in another order.
const sameInit = (a: ReturnType<typeof initOf>, b: ReturnType<typeof initOf>) => (a === null || b === null ? a === b : a.function === b.function && JSON.stringify(a.args) === JSON.stringify(b.args));

/** The sequence of a new version: the next after the newest committed one, or the newest's own when that was never committed. */
function nextSequence(latest: ChaincodeRow | null): number {
  if (!latest) return 1;
  return latest.status === 'committed' ? latest.sequence + 1 : latest.sequence;
}

export async function registerChaincode(input: Input, req: ChaincodeRequest, sharedFrom: ChaincodeRegisteredData['sharedFrom'] = null): Promise<ChaincodeRow> {
  const { deps } = input;
  const issues = chaincodeRequestIssues(req);
  if (issues.length) throw new ValidationError(`Invalid chaincode: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, issues);
  const network = await consortiumNetworkOr404(deps, req.networkId);
  const source = await sourceOf(input, req);
  if (req.placement) {
    const host = await getNodeHost(deps.pool, req.placement.hostId);
    if (host?.kind !== 'kubernetes') throw new ValidationError(`Host ${req.placement.hostId} is not a registered Kubernetes cluster: a chaincode server can be placed only on a cluster registered as a host of kind kubernetes.`, [{ field: 'placement.hostId', message: host ? `a ${host.kind} host` : 'no such host' }]);
  }
  consortiumOf(deps).chaincodes.checkDefinition(source.kind === 'files' ? source.files : null, req.endorsementPolicy ?? null, req.collections ?? null);
  const latest = await latestChaincode(deps.pool, network.id, req.name);
  const existing = (await deps.pool.query('SELECT id FROM consortium_chaincodes WHERE network_id = $1 AND name = $2 AND version = $3', [network.id, req.name, req.version])).rows[0];
  if (existing) throw new ConflictError(`Network ${network.name} already has chaincode ${req.name} version ${req.version} (record ${existing.id}); a new version needs a new version string.`, { chaincodeId: existing.id }, 'CHAINCODE_VERSION_EXISTS');
  const sequence = req.sequence ?? nextSequence(latest);
  if (sequence < nextSequence(latest)) throw new ValidationError(`Sequence ${sequence} is taken: ${req.name} is at sequence ${latest!.sequence} (${latest!.status}); the next is ${nextSequence(latest)}.`, [{ field: 'sequence', message: `must be at least ${nextSequence(latest)}` }]);
  const chaincodeId = await deps.nextId('chaincode');
  await runCommand(input, chaincodeStream(chaincodeId), consortiumChaincode, {
    type: 'RegisterChaincode', chaincodeId, networkId: network.id, channelName: network.channelName, name: req.name, version: req.version, sequence, language: 'node',
    endorsementPolicy: req.endorsementPolicy ?? null, initRequired: req.initRequired ?? false, init: initOf(req), collections: req.collections?.length ? req.collections : null, source, tls: req.tls ?? true, ...(req.placement ? { placement: { hostId: req.placement.hostId } } : {}),
    previousChaincodeId: latest?.id ?? null, ...(sharedFrom ? { sharedFrom } : {}), at: deps.clock().toISOString(),
  });
  return (await getChaincode(deps.pool, chaincodeId))!;
}

export async function deployChaincode(input: Input, req: ChaincodeRequest & { chaincodeId?: number }) {
  const { deps } = input;
  const started = Date.now();
  const network = await consortiumNetworkOr404(deps, req.networkId);
  const existing = (await deps.pool.query('SELECT id FROM consortium_chaincodes WHERE network_id = $1 AND name = $2 AND version = $3', [network.id, req.name, req.version])).rows[0];
  let chaincode = existing ? (await getChaincode(deps.pool, existing.id))! : await registerChaincode(input, req);
  if (existing) {
    // The same version again continues (or repeats) its deploy; other code under the same version would be a lie.
    const recorded = await chaincodeRecord(deps, existing.id);
    if (!sameSource(recorded.source, await sourceOf(input, req)) || recorded.endorsementPolicy !== (req.endorsementPolicy ?? null) || JSON.stringify(recorded.collections) !== JSON.stringify(req.collections?.length ? req.collections : null)
      || recorded.initRequired !== (req.initRequired ?? false) || !sameInit(recorded.init ?? null, initOf(req)) || (req.tls !== undefined && req.tls !== (recorded.tls ?? false)) || (recorded.placement?.hostId ?? null) !== (req.placement?.hostId ?? null)) {
      throw new ConflictError(`Network ${network.name} already has ${req.name} version ${req.version} with other source, policy, TLS setting or placement: deploy the change as a new version.`, { chaincodeId: existing.id }, 'CHAINCODE_VERSION_EXISTS');
    }
  }
  const peers = await deployPeers(input, network);
  // Peers install at once, and the organizations approve at once: their approvals are separate
  // transactions (each writes only its own organization's implicit collection) and land in one
  // block instead of one block (a batch timeout) each. The records on the chaincode's stream
  // that the steps append retry on a version conflict; the chaincode server is made once.
  const c = chaincode;
  const installs = await Promise.all(peers.map((p) => installOn(input, c, p.id)));
  const orgs = [...new Set(peers.map((p) => p.mspId))];
  const approvals = await Promise.all(orgs.map((mspId) => approveFor(input, c, peers.find((p) => p.mspId === mspId)!.id)));
  const commit = await commitOn(input, chaincode, peers[0].id);
  chaincode = (await getChaincode(deps.pool, chaincode.id))!;
  const init = await initializeOn(input, chaincode);
  chaincode = (await getChaincode(deps.pool, chaincode.id))!;
  return {
    chaincode_id: chaincode.id, network_id: network.id, channel_name: network.channelName, name: chaincode.name, version: chaincode.version, sequence: chaincode.sequence,
    upgrade: chaincode.sequence > 1, package_id: chaincode.packageId, status: chaincode.status,
    peers: installs.map((i) => ({ peer_id: i.peer_id, name: i.peer_name, msp_id: i.msp_id, already_installed: i.already_installed })),
    approvals: approvals.map((a) => ({ msp_id: a.msp_id, status: a.status, tx_id: a.tx_id, block_number: a.block_number })),
    commit: { status: commit.status, tx_id: commit.tx_id, block_number: commit.block_number, approved_by: commit.approved_by },
    init,
    server: { node_id: commit.server_node_id, status: commit.server_status },
    elapsed_ms: Date.now() - started,
  };
}

/** Running joined peers of the organizations this service holds: where a deploy installs. */
async function deployPeers(input: Input, network: ConsortiumNetworkRow) {
  const held = new Set((await heldOrganizations(input.deps, network)).map((o) => o.mspId));
  const peers = (await joinedPeers(input.deps, network)).filter((p) => held.has(p.mspId));
  if (!peers.length) throw new ConflictError(`No running peer of an organization this service holds has joined channel ${network.channelName} of network ${network.name}: join one first.`, { networkId: network.id }, 'NO_JOINED_PEER');
  return peers;
}

export interface InvokeBody {
  function: string;
  args?: string[];
  transient?: Record<string, string>;
  organization?: string;
  endorsingOrganizations?: string[];
}

/**
 * What a transaction goes through: the record, its network, the committed version, the
 * organization and its signer, the peer and its endpoint, the chaincode server's node. Read
 * from the projections once and kept until an event that changes any of them is projected
 * (application/consortium/consortiumRoutes.ts); a failed look-up is not kept.
 */
interface TransactionRoute {
  record: ChaincodeRow;
  network: ConsortiumNetworkRow;
  active: ChaincodeRow;
  org: HeldOrganization;
  peer: MemberPeer;
  endpoint: Endpoint;
  server: NodeRow | null;
}

async function transactionRoute(input: Input, chaincodeId: number, organization: string | undefined): Promise<TransactionRoute> {
  const { deps } = input;
  const record = await getChaincode(deps.pool, chaincodeId);
  if (!record) throw new NotFoundError('Chaincode', chaincodeId);
  // The independent reads go out together.
  const [network, active] = await Promise.all([consortiumNetworkOr404(deps, record.networkId), latestCommitted(input, record)]);
  // Only the named organization is checked (one identity lookup per call, not one per organization).
  const named = organization ? network.organizations.find((o) => o.mspId === organization || String(o.organizationId) === organization) : undefined;
  const [held, members, server] = await Promise.all([
    (async (): Promise<HeldOrganization[]> => {
      const namedSigner = named && typeof named.organizationId === 'number' ? await consortiumOf(deps).credentials.adminSigner(named.organizationId).catch(() => null) : null;
      return namedSigner ? [{ organizationId: named!.organizationId as number, mspId: named!.mspId, signer: namedSigner }] : organization ? [] : heldOrganizations(deps, network, { first: true });
    })(),
    joinedPeers(deps, network, ['running', 'down']),
    active.serverNodeId ? getNode(deps.pool, active.serverNodeId) : Promise.resolve(null),
  ]);
  const org = held[0];
  if (!org) {
    throw new ValidationError(organization ? `This service holds no identity of ${organization} in network ${network.name}.` : `This service holds no organization of network ${network.name}.`, [{ field: 'organization', message: 'an mspId (or organization id) of the network that this service holds' }]);
  }
  // A running peer of the organization; else one the health monitor saw go down (the gateway
  // call then says it is unreachable: 503), so a dead peer is not mistaken for a missing one.
  const candidates = members.filter((p) => p.mspId === org.mspId);
  const peer = candidates.find((p) => p.status === 'running') ?? candidates[0];
  if (!peer) throw new ConflictError(`No running peer of ${org.mspId} has joined channel ${network.channelName}: start or join one.`, { mspId: org.mspId }, 'NO_JOINED_PEER');
  return { record, network, active, org, peer, endpoint: await grpcEndpoint(deps, peer), server };
}

/** Submit (invoke) or evaluate (query) through a running joined peer of the caller's organization. */
export async function runTransaction(input: Input, chaincodeId: number, body: InvokeBody, kind: 'invoke' | 'query') {
  const { deps } = input;
  // The organization's text is part of the key as given; a look-up that fails is not kept, so
  // only names and ids that lead somewhere take a place.
  const route = await consortiumRoutes(deps).get(`transaction:${chaincodeId}:${body.organization ?? ''}`, () => transactionRoute(input, chaincodeId, body.organization));
  const { record, network, active, org, peer } = route;
  // The chaincode server runs before the first transaction (and again after it went down):
  // starting it appends node events, which empty the route cache.
  if (route.server && route.server.status !== 'running') {
    const now = await startServer(input, route.server.id);
    if (now.status !== 'running') throw new ConflictError(`The chaincode server ${now.name} of ${record.name} did not start: ${now.error ?? now.status}.`, { nodeId: now.id, status: now.status }, 'CHAINCODE_SERVER_DOWN');
  }
  const chaincodes = consortiumOf(deps).chaincodes;
  const request = {
    // The signer loaded above: the peer is one of that organization's.
    gateway: { peer: route.endpoint, signer: org.signer }, channelName: network.channelName, chaincodeName: record.name, fn: body.function, args: body.args ?? [], transient: body.transient,
    endorsingOrganizations: body.endorsingOrganizations,
  };
  const r = kind === 'invoke' ? await chaincodes.submit(request) : await chaincodes.evaluate(request);
  const text = Buffer.from(r.result).toString('utf8');
  let json: unknown = null;
  try {
    json = text.length ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (kind === 'invoke') {
    await appendForRequest(input, chaincodeInvocationsStream(active.id), [{
      id: deps.newId(), type: 'ChaincodeInvoked',
      data: { chaincodeId: active.id, networkId: network.id, name: record.name, version: active.version, function: body.function, mspId: org.mspId, txId: r.txId, validationCode: r.validationCode ?? null, blockNumber: r.blockNumber ?? null, at: deps.clock().toISOString() },
    }]);
  }
  return {
    chaincode_id: record.id, name: record.name, version: active.version, function: body.function, msp_id: org.mspId, peer_id: peer.id,
    result: text, result_json: json, tx_id: r.txId,
    ...(kind === 'invoke' ? { validation_code: r.validationCode ?? null, block_number: r.blockNumber ?? null } : {}),
  };
}

/** The committed version of the chaincode on its network (the newest committed record of its name). */
async function latestCommitted(input: Input, record: ChaincodeRow): Promise<ChaincodeRow> {
  const r = await input.deps.pool.query(`SELECT id FROM consortium_chaincodes WHERE network_id = $1 AND name = $2 AND status = 'committed' ORDER BY sequence DESC, id DESC LIMIT 1`, [record.networkId, record.name]);
  if (!r.rows[0]) throw new ConflictError(`Chaincode ${record.name} is not committed on its channel yet: deploy it, or commit it on a peer.`, { chaincodeId: record.id, status: record.status }, 'CHAINCODE_NOT_COMMITTED');
  // Usually the record asked for is the committed one: no second read.
  if (Number(r.rows[0].id) === record.id && record.status === 'committed') return record;
  return (await getChaincode(input.deps.pool, r.rows[0].id))!;
}
