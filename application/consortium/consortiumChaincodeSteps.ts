// The chaincode lifecycle steps on real peers, each idempotent and each recorded as it happens
// (domain/consortium/consortiumChaincode.ts): install on a peer (the ccaas package naming the
// chaincode's server), approve for the peer's organization, commit once the organizations the
// lifecycle policy needs (a majority, Fabric's default) approved, and the chaincode server
// started. deployChaincode runs them all for a network.
import type { AppDeps } from '../deps.ts';
import { runCommand, type CommandInput } from '../commands.ts';
import { ConflictError, NotFoundError } from '../../domain/shared/errors.ts';
import { loadState } from '../../domain/shared/commandHandler.ts';
import { chaincodeStream, consortiumChaincode, type ChaincodeRegisteredData } from '../../domain/consortium/consortiumChaincode.ts';
import type { ChaincodeDefinition, PeerAccess } from '../../domain/consortium/consortiumChaincodePorts.ts';
import { nodeAggregate, nodeStream, type NodeCommand } from '../../domain/nodes/node.ts';
import { isChaincodeServer, type ConsortiumChaincodeNodeCreatedData, type ConsortiumChaincodeServerConfig } from '../../domain/consortium/consortiumNode.ts';
import { IDENTITY_VALIDITY_DAYS } from '../../domain/organizations/organizationCertificates.ts';
import { getOrganization } from '../../projections/organizations.ts';
import { createKey, discardKey } from '../keys/keyCreation.ts';
import { assertNodeKeysExportable } from './consortiumNodeCreate.ts';
import { assignedPorts, getNode, listNodes, nodeNameTaken, type NodeRow } from '../../projections/nodes.ts';
import { getChaincode, type ChaincodeRow } from '../../projections/consortium/consortiumChaincodes.ts';
import { consortiumNetworkMembers, type ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import { oneAtATime } from '../evm/evmNodeCreate.ts';
import { consortiumOf } from './consortiumContext.ts';
import { assertRunning, consortiumNetworkOr404, consortiumNodeOr404, grpcEndpoint, joinedOrderer, orderingOrderer } from './consortiumChannelAccess.ts';
import { sharedOrdererEndpoint, sharedPeerAccess } from '../sharing/sharedEndpoints.ts';
import { notifyChaincodeCommitted } from '../sharing/sharedChaincodeCommits.ts';
import type { Endpoint } from '../../domain/consortium/consortiumPorts.ts';
import { getNodeHost } from '../../projections/nodeHosts.ts';
import { NODE_PORT_RANGE } from '../../domain/hosts/nodeHosts.ts';
import { NodeStartFailedError } from '../../domain/nodes/nodeEngine.ts';

export type Input = CommandInput;

const CHAINCODE_PORT_FROM = 9100;
const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

export async function chaincodeOr404(deps: AppDeps, id: number): Promise<ChaincodeRow> {
  const c = await getChaincode(deps.pool, id);
  if (!c) throw new NotFoundError('Chaincode', id);
  return c;
}

export const definitionOf = (c: ChaincodeRow): ChaincodeDefinition => ({ name: c.name, version: c.version, sequence: c.sequence, endorsementPolicy: c.endorsementPolicy, initRequired: c.initRequired, collections: c.collections });

export async function peerAccess(deps: AppDeps, peer: NodeRow): Promise<PeerAccess> {
  return { peer: await grpcEndpoint(deps, peer), signer: await consortiumOf(deps).credentials.adminSigner(peer.organizationId!) };
}

/** Organizations of the network whose admin identity this service holds, in the network's order. */
export async function heldOrganizations(deps: AppDeps, network: ConsortiumNetworkRow, opts: { first?: boolean } = {}): Promise<HeldOrganization[]> {
  const out: HeldOrganization[] = [];
  for (const o of network.organizations) {
    if (typeof o.organizationId !== 'number') continue;
    const signer = await consortiumOf(deps).credentials.adminSigner(o.organizationId).catch(() => null);
    if (signer) out.push({ organizationId: o.organizationId, mspId: o.mspId, signer });
    if (signer && opts.first) break;
  }
  return out;
}

/** An organization whose admin identity this service holds, with its signer (loaded once, for the caller to use). */
export interface HeldOrganization {
  organizationId: number;
  mspId: string;
  signer: PeerAccess['signer'];
}

/** Running peers of the network that joined its channel, in id order. */
export type MemberPeer = NodeRow & { mspId: string };

export async function joinedPeers(deps: AppDeps, network: ConsortiumNetworkRow, statuses: string[] = ['running']): Promise<MemberPeer[]> {
  const members = (await consortiumNetworkMembers(deps.pool, network.id)).filter((m) => m.role === 'peer' && m.joinedAt);
  if (!members.length) return [];
  const msp = new Map(members.map((m) => [m.nodeId, m.mspId]));
  return (await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: members.map((m) => m.nodeId) })).items.filter((n) => statuses.includes(n.status)).map((n) => ({ ...n, mspId: msp.get(n.id)! }));
}

async function peerOfNetwork(deps: AppDeps, chaincode: ChaincodeRow, peerId: number): Promise<{ peer: MemberPeer; network: ConsortiumNetworkRow }> {
  const peer = await consortiumNodeOr404(deps, peerId, 'peer');
  const network = await consortiumNetworkOr404(deps, chaincode.networkId);
  const member = (await consortiumNetworkMembers(deps.pool, network.id)).find((m) => m.nodeId === peer.id);
  if (!member?.joinedAt) {
    throw new ConflictError(`Peer ${peer.name} has not joined channel ${network.channelName} of network ${network.name}, where chaincode ${chaincode.name} is defined: join the peer to the channel first.`, { peerId: peer.id, networkId: network.id }, 'PEER_NOT_JOINED');
  }
  assertRunning(peer, `work with chaincode ${chaincode.name}`);
  return { peer: { ...peer, mspId: member.mspId }, network };
}

async function freePort(deps: AppDeps): Promise<number> {
  const assigned = await assignedPorts(deps.pool);
  const runtime = consortiumOf(deps).runtime;
  for (let p = consortiumOf(deps).defaults.chaincodePortFrom ?? CHAINCODE_PORT_FROM; p < 65535; p++) {
    if (!assigned.has(p) && !(await runtime.portsInUse([p])).length) return p;
  }
  throw new ConflictError('No free port left for a chaincode server.');
}

/** On a cluster chaincode servers' ports are NodePorts: tried from here upwards (one another deployment took is skipped). */
const CLUSTER_CHAINCODE_PORT_FROM = 32000;

/**
 * The Kubernetes cluster the chaincode's server goes to: the record's placement when the operator
 * chose one, else the one the owner organization's joined
 * peers run on (the first such peer's), with whether every joined peer of the channel runs there
 * (then they dial the server's cluster IP; else its NodePort at the cluster's address). Null: the
 * server runs on this machine.
 */
async function serverCluster(deps: AppDeps, network: ConsortiumNetworkRow, mspId: string, placedOn?: number): Promise<{ hostId: number; allInside: boolean } | null> {
  const members = (await consortiumNetworkMembers(deps.pool, network.id)).filter((m) => m.role === 'peer' && m.joinedAt);
  if (!members.length && placedOn === undefined) return null;
  const peers = (await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: members.map((m) => m.nodeId) })).items;
  const mspOf = new Map(members.map((m) => [m.nodeId, m.mspId]));
  const clusterOf = new Map<number, number | null>();
  for (const p of peers) {
    const hostId = p.config.hostId;
    clusterOf.set(p.id, hostId && (await getNodeHost(deps.pool, hostId))?.kind === 'kubernetes' ? hostId : null);
  }
  if (placedOn !== undefined) {
    // The operator's choice (the record's placement): that cluster, whichever the peers are on.
    if ((await getNodeHost(deps.pool, placedOn))?.kind !== 'kubernetes') throw new ConflictError(`Host ${placedOn}, where chaincode of network ${network.name} is placed, is no longer a registered Kubernetes cluster.`, { hostId: placedOn }, 'PLACEMENT_UNAVAILABLE');
    return { hostId: placedOn, allInside: peers.length > 0 && peers.every((p) => clusterOf.get(p.id) === placedOn) };
  }
  const own = peers.find((p) => mspOf.get(p.id) === mspId && clusterOf.get(p.id));
  if (!own) return null;
  const hostId = clusterOf.get(own.id)!;
  return { hostId, allInside: peers.every((p) => clusterOf.get(p.id) === hostId) };
}

/** A NodePort for the server on the cluster, its Service made there (reserveOnCluster), and the address peers dial. */
async function reserveClusterPort(deps: AppDeps, cluster: { hostId: number; allInside: boolean }, nodeId: number) {
  const assigned = await assignedPorts(deps.pool);
  let lastRefusal: unknown;
  for (let port = CLUSTER_CHAINCODE_PORT_FROM, tries = 0; port <= NODE_PORT_RANGE.max && tries < 50; port++) {
    if (assigned.has(port)) continue;
    tries++;
    try {
      const r = await consortiumOf(deps).chaincodes.servers.reserveOnCluster(cluster.hostId, nodeId, port);
      return { port, address: cluster.allInside ? r.clusterAddress : r.nodePortAddress, externalAddress: r.nodePortAddress, release: r.release };
    } catch (err) {
      if (!(err instanceof NodeStartFailedError) || err.failure !== 'port-in-use') throw err;
      lastRefusal = err;
    }
  }
  throw new ConflictError(`No free NodePort from ${CLUSTER_CHAINCODE_PORT_FROM} on cluster ${cluster.hostId} for a chaincode server${lastRefusal ? ` (${(lastRefusal as Error).message})` : ''}.`);
}

/** The ccaas package of a recorded server: its address, and its TLS material when it has some. */
async function serverPackage(deps: AppDeps, label: string, nodeId: number, address: string): Promise<{ bytes: Uint8Array; packageId: string }> {
  const { state } = await loadState(deps.store, nodeStream(nodeId), nodeAggregate);
  const node = state.node && isChaincodeServer(state.node) ? (state.node as unknown as ConsortiumChaincodeNodeCreatedData) : null;
  return consortiumOf(deps).chaincodes.packageOf(label, address, node ? await consortiumOf(deps).credentials.chaincodeServerTls(node) : null);
}

/**
 * A chaincode server's TLS keys, of the owner organization's provider and issued by its TLS CA
 * (each creation audited as any key's): the server's certificate with every address it is dialled
 * or probed at in its SANs, and the client certificate the peers present (mutual TLS).
 */
async function createServerTlsKeys(input: Input, organizationId: number, name: string, addresses: string[]): Promise<{ tlsKeyId: number; clientTlsKeyId: number }> {
  const org = await getOrganization(input.deps.pool, organizationId);
  if (!org?.tlsKeyId) throw new ConflictError(`Organization ${organizationId} has no TLS CA: its chaincode server cannot have TLS (deploy with tls false).`, { organizationId }, 'NO_TLS_CA');
  await assertNodeKeysExportable(input, org);
  const hosts = [...new Set(['localhost', '127.0.0.1', ...addresses.map((a) => a.replace(/:\d+$/, ''))])];
  const common = { providerId: org.providerId, organizationId: org.id, purpose: 'TLS' as const, spec: { algorithm: 'EC' as const, curve: 'P-256' as const } };
  const profile = { organization: org.mspId, keyUsages: ['digitalSignature' as const, 'keyEncipherment' as const], isCa: false, validityDays: IDENTITY_VALIDITY_DAYS };
  const tlsKeyId = await createKey(input, {
    ...common, name: `${name}-tls`, description: `TLS of chaincode server ${name}`,
    certificate: { issuer: org.tlsKeyId, profile: { ...profile, commonName: name, extendedKeyUsages: ['serverAuth'], dnsNames: hosts.filter((h) => !IPV4.test(h)), ipAddresses: hosts.filter((h) => IPV4.test(h)) } },
  });
  try {
    const clientTlsKeyId = await createKey(input, {
      ...common, name: `${name}-peer-client-tls`, description: `TLS client certificate the peers present to chaincode server ${name}`,
      certificate: { issuer: org.tlsKeyId, profile: { ...profile, commonName: `${name}-peer-client`, extendedKeyUsages: ['clientAuth'] } },
    });
    return { tlsKeyId, clientTlsKeyId };
  } catch (err) {
    await discardKey(input, tlsKeyId);
    throw err;
  }
}

/** The chaincode's server node (created once, not started) and its ccaas package, which names the server's address (and with TLS its certificates). */
export async function ensureServer(input: Input, chaincode: ChaincodeRow): Promise<{ nodeId: number; packageId: string; packageBytes: Uint8Array }> {
  const { deps } = input;
  const label = `${chaincode.name}_${chaincode.version}`;
  if (chaincode.serverNodeId && chaincode.serverAddress) {
    const pkg = await serverPackage(deps, label, chaincode.serverNodeId, chaincode.serverAddress);
    return { nodeId: chaincode.serverNodeId, packageId: pkg.packageId, packageBytes: pkg.bytes };
  }
  const network = await consortiumNetworkOr404(deps, chaincode.networkId);
  const [owner] = await heldOrganizations(deps, network);
  if (!owner) throw new ConflictError(`This service holds no organization of network ${network.name}: it cannot run chaincode for it.`, { networkId: network.id }, 'NO_ORGANIZATION_HELD');
  return oneAtATime(input.deps.pool, async () => {
    const again = await getChaincode(deps.pool, chaincode.id);
    if (again?.serverNodeId && again.serverAddress) {
      const pkg = await serverPackage(deps, label, again.serverNodeId, again.serverAddress);
      return { nodeId: again.serverNodeId, packageId: pkg.packageId, packageBytes: pkg.bytes };
    }
    const { source, tls, placement } = await chaincodeRecord(deps, chaincode.id);
    const nodeId = await deps.nextId('node');
    // With the owner's peers on a Kubernetes cluster the server runs there too (its Service made
    // now, as connection.json names its address); else on this machine: an image under the docker
    // engine, files under the service's engine, on the host network: one address for all peers
    // (loopback, or the address peers on node hosts reach this machine at).
    const cluster = await serverCluster(deps, network, owner.mspId, placement?.hostId);
    const chaincodeHost = consortiumOf(deps).defaults.chaincodeHost ?? '127.0.0.1';
    const placed = cluster ? await reserveClusterPort(deps, cluster, nodeId) : null;
    const keysMade: number[] = [];
    try {
      const port = placed?.port ?? (await freePort(deps));
      const address = placed?.address ?? `${chaincodeHost}:${port}`;
      const engine = cluster || source.kind === 'image' ? 'docker' : consortiumOf(deps).defaults.engine;
      let name = `cc-${chaincode.name}-${chaincode.version}-${network.name}`.slice(0, 60);
      if (await nodeNameTaken(deps.pool, name)) name = `${name.slice(0, 50)}-${nodeId}`;
      const keys = tls ? await createServerTlsKeys(input, owner.organizationId, name, [address, ...(placed ? [placed.externalAddress] : [])]) : null;
      if (keys) keysMade.push(keys.tlsKeyId, keys.clientTlsKeyId);
      const at = deps.clock().toISOString();
      const config: ConsortiumChaincodeServerConfig = {
        listenAddress: cluster || chaincodeHost !== '127.0.0.1' ? '0.0.0.0' : '127.0.0.1', address, port, chaincodeId: chaincode.id, chaincodeName: chaincode.name, version: chaincode.version, packageId: '',
        ...(cluster && placed ? { hostId: cluster.hostId, externalAddress: placed.externalAddress } : {}),
        ...(keys ? { tls: true } : {}),
      };
      const server: ConsortiumChaincodeNodeCreatedData = {
        nodeId, name, platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_CHAINCODE', role: 'chaincode', organizationId: owner.organizationId, mspId: owner.mspId,
        networkId: network.id, client: 'fabric', engine, resources: null, at, config, ...(keys ?? {}),
      };
      const pkg = consortiumOf(deps).chaincodes.packageOf(label, address, await consortiumOf(deps).credentials.chaincodeServerTls(server));
      config.packageId = pkg.packageId;
      await runCommand(input, nodeStream(nodeId), nodeAggregate, { type: 'CreateNode', ...server } as NodeCommand);
      await runCommand(input, chaincodeStream(chaincode.id), consortiumChaincode, { type: 'AssignChaincodeServer', chaincodeId: chaincode.id, nodeId, address, packageId: pkg.packageId, at });
      return { nodeId, packageId: pkg.packageId, packageBytes: pkg.bytes };
    } catch (err) {
      // Nothing of a server that was not recorded stays on the cluster, nor its keys.
      if (!(await getNode(deps.pool, nodeId))) {
        await placed?.release().catch(() => undefined);
        for (const keyId of keysMade.reverse()) await discardKey(input, keyId);
      }
      throw err;
    }
  });
}

export async function installOn(input: Input, chaincode: ChaincodeRow, peerId: number) {
  const { deps } = input;
  const { peer } = await peerOfNetwork(deps, chaincode, peerId);
  const server = await ensureServer(input, chaincode);
  const result = await consortiumOf(deps).chaincodes.install(await peerAccess(deps, peer), server.packageBytes, server.packageId);
  await runCommand(input, chaincodeStream(chaincode.id), consortiumChaincode, { type: 'RecordChaincodeInstalled', chaincodeId: chaincode.id, peerId: peer.id, peerName: peer.name, mspId: peer.mspId, packageId: result.packageId, at: deps.clock().toISOString() });
  return { chaincode_id: chaincode.id, peer_id: peer.id, peer_name: peer.name, msp_id: peer.mspId, package_id: result.packageId, already_installed: result.alreadyInstalled };
}

export async function approveFor(input: Input, chaincode: ChaincodeRow, peerId: number) {
  const { deps } = input;
  const { peer, network } = await peerOfNetwork(deps, chaincode, peerId);
  const chaincodes = consortiumOf(deps).chaincodes;
  const access = await peerAccess(deps, peer);
  const mspId = access.signer.mspId;
  const server = await ensureServer(input, chaincode);
  const onPeer = await chaincodes.installed(access);
  if (!onPeer.some((c) => c.packageId === server.packageId)) {
    throw new ConflictError(`Chaincode ${chaincode.name} ${chaincode.version} (package ${server.packageId}) is not installed on peer ${peer.name}: install it on the peer first.`, { peerId: peer.id, packageId: server.packageId, missing: 'install' }, 'CHAINCODE_NOT_INSTALLED');
  }
  const committed = await chaincodes.committedDefinition(access, network.channelName, chaincode.name);
  if (committed && committed.sequence >= chaincode.sequence) {
    return { chaincode_id: chaincode.id, msp_id: mspId, status: 'committed', sequence: committed.sequence, tx_id: null, block_number: null };
  }
  const readiness = await chaincodes.commitReadiness(access, network.channelName, definitionOf(chaincode));
  let tx: { txId: string; blockNumber: number } | null = null;
  if (!readiness[mspId]) {
    tx = await chaincodes.approveForMyOrg({ ...access, ...(await chaincodeOrderer(deps, network)), channelName: network.channelName, definition: definitionOf(chaincode), packageId: server.packageId });
  }
  await runCommand(input, chaincodeStream(chaincode.id), consortiumChaincode, { type: 'RecordChaincodeApproved', chaincodeId: chaincode.id, mspId, txId: tx?.txId ?? null, blockNumber: tx?.blockNumber ?? null, at: deps.clock().toISOString() });
  return { chaincode_id: chaincode.id, msp_id: mspId, status: tx ? 'approved' : 'already-approved', sequence: chaincode.sequence, tx_id: tx?.txId ?? null, block_number: tx?.blockNumber ?? null };
}

/** Commits when a majority of the channel's organizations approved (Fabric's default LifecycleEndorsement), else 409 naming those missing. */
export async function commitOn(input: Input, chaincode: ChaincodeRow, peerId: number) {
  const { deps } = input;
  const { peer, network } = await peerOfNetwork(deps, chaincode, peerId);
  const chaincodes = consortiumOf(deps).chaincodes;
  const access = await peerAccess(deps, peer);
  const server = await ensureServer(input, chaincode);
  const committed = await chaincodes.committedDefinition(access, network.channelName, chaincode.name);
  let tx: { txId: string; blockNumber: number } | null = null;
  let approvedBy: string[];
  let serverStarting: Promise<NodeRow> | null = null;
  if (committed && committed.sequence >= chaincode.sequence) {
    if (committed.sequence > chaincode.sequence || committed.version !== chaincode.version) {
      throw new ConflictError(`Channel ${network.channelName} already has ${chaincode.name} at sequence ${committed.sequence} (version ${committed.version}); this record is version ${chaincode.version}, sequence ${chaincode.sequence}.`, { committed }, 'CHAINCODE_SUPERSEDED');
    }
    approvedBy = Object.entries(committed.approvals).filter(([, ok]) => ok).map(([m]) => m);
  } else {
    const readiness = await chaincodes.commitReadiness(access, network.channelName, definitionOf(chaincode));
    approvedBy = Object.entries(readiness).filter(([, ok]) => ok).map(([m]) => m);
    const missing = Object.entries(readiness).filter(([, ok]) => !ok).map(([m]) => m);
    const total = Object.keys(readiness).length;
    if (approvedBy.length * 2 <= total) {
      throw new ConflictError(`Chaincode ${chaincode.name} ${chaincode.version} (sequence ${chaincode.sequence}) cannot be committed yet: a majority of ${total} organizations must approve it; still missing: ${missing.join(', ')}. Approve it on a peer of each.`, { approvedBy, missingOrganizations: missing }, 'APPROVALS_MISSING');
    }
    // This peer endorses first (its answer is awaited); each other approving organization's peer
    // is one of this instance's, or one a sharing peer shares (a channel spread over instances).
    const peers = await joinedPeers(deps, network);
    const endorsers: PeerAccess[] = [access];
    for (const mspId of approvedBy) {
      if (mspId === access.signer.mspId) continue;
      const p = peers.find((n) => n.mspId === mspId);
      const other = p ? await peerAccess(deps, p) : await sharedPeerAccess(deps, mspId, access.signer);
      if (other) endorsers.push(other);
    }
    // The chaincode's server starts while the commit waits for its block (the peers dial it
    // only once the definition is committed); a commit that fails leaves it started, and the
    // next deploy or transaction uses it.
    serverStarting = startServer(input, server.nodeId);
    serverStarting.catch(() => {});
    tx = await chaincodes.commitDefinition({ endorsers, ...(await chaincodeOrderer(deps, network)), channelName: network.channelName, definition: definitionOf(chaincode) });
  }
  await runCommand(input, chaincodeStream(chaincode.id), consortiumChaincode, { type: 'RecordChaincodeCommitted', chaincodeId: chaincode.id, txId: tx?.txId ?? null, blockNumber: tx?.blockNumber ?? null, approvedBy, at: deps.clock().toISOString() });
  const serverNode = await (serverStarting ?? startServer(input, server.nodeId));
  if (tx) await stopOlderServers(input, chaincode);
  // Peer instances this definition was shared with start their own servers (their peers endorse too).
  const sharedWith = tx && deps.sharing ? await notifyChaincodeCommitted(input, chaincode) : [];
  return { chaincode_id: chaincode.id, name: chaincode.name, version: chaincode.version, sequence: chaincode.sequence, status: tx ? 'committed' : 'already-committed', approved_by: approvedBy, tx_id: tx?.txId ?? null, block_number: tx?.blockNumber ?? null, package_id: server.packageId, server_node_id: serverNode.id, server_status: serverNode.status, shared_with: sharedWith };
}

/**
 * A running orderer of the channel here (on a smartbft channel every running active consenter:
 * orderingOrderer), else (a channel another instance runs) one of its orderers that a sharing
 * peer shares.
 */
async function chaincodeOrderer(deps: AppDeps, network: ConsortiumNetworkRow): Promise<{ orderer: Endpoint; consenters?: Endpoint[] }> {
  try {
    if (network.consensus === 'smartbft') {
      const o = await orderingOrderer(deps, network);
      return { orderer: o.endpoint, consenters: o.consenters };
    }
    return { orderer: (await joinedOrderer(deps, network)).endpoint };
  } catch (err) {
    if (!(err instanceof ConflictError) || !network.imported) throw err;
    const shared = await sharedOrdererEndpoint(deps, network);
    if (!shared) throw err;
    return { orderer: shared };
  }
}

/** Asks the lifecycle saga to start the chaincode server and waits until it reports (running or failed). */
export async function startServer(input: Input, nodeId: number, timeoutMs = 60_000): Promise<NodeRow> {
  const { deps } = input;
  const now = await getNode(deps.pool, nodeId);
  if (!now) throw new NotFoundError('Node', nodeId);
  if (now.status === 'running') return now;
  await runCommand(input, nodeStream(nodeId), nodeAggregate, { type: 'StartNode', nodeId, restart: now.status === 'down', at: deps.clock().toISOString() });
  const until = Date.now() + timeoutMs;
  for (;;) {
    const n = await getNode(deps.pool, nodeId);
    if (n && (n.status === 'running' || n.status === 'error')) return n;
    if (Date.now() > until) return n!;
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function chaincodeRecord(deps: AppDeps, id: number): Promise<ChaincodeRegisteredData> {
  const { state } = await loadState(deps.store, chaincodeStream(id), consortiumChaincode);
  if (!state.chaincode) throw new NotFoundError('Chaincode', id);
  return state.chaincode;
}

/** After an upgrade the peers dial only the new version's server: the older ones are stopped (kept, not deleted). */
async function stopOlderServers(input: Input, chaincode: ChaincodeRow): Promise<void> {
  const { deps } = input;
  const older = await deps.pool.query('SELECT server_node_id FROM consortium_chaincodes WHERE network_id = $1 AND name = $2 AND sequence < $3 AND server_node_id IS NOT NULL', [chaincode.networkId, chaincode.name, chaincode.sequence]);
  for (const r of older.rows) {
    const n = await getNode(deps.pool, r.server_node_id);
    if (n && n.status !== 'stopped' && n.status !== 'stopping') await runCommand(input, nodeStream(n.id), nodeAggregate, { type: 'StopNode', nodeId: n.id, at: deps.clock().toISOString() });
  }
}

/**
 * The Init transaction of a committed definition that requires it (initRequired), as
 * `peer chaincode invoke --isInit` sends it: endorsed by a running peer of each organization this
 * service holds (so an endorsement policy that needs them all is met), ordered and awaited.
 * Fabric refuses every other invoke of that version until then. Idempotent: a version already
 * initialized (by this service or anyone else) is recorded as such. The commit step does not send
 * it, as `peer lifecycle chaincode commit` does not; deploy does.
 */
export async function initializeOn(input: Input, chaincode: ChaincodeRow) {
  const { deps } = input;
  const network = await consortiumNetworkOr404(deps, chaincode.networkId);
  const record = await chaincodeRecord(deps, chaincode.id);
  if (!chaincode.initRequired) return { status: 'not-required' as const, tx_id: null, block_number: null };
  if (chaincode.status !== 'committed') throw new ConflictError(`Chaincode ${chaincode.name} ${chaincode.version} is not committed yet: Init comes after the commit.`, { chaincodeId: chaincode.id, status: chaincode.status }, 'CHAINCODE_NOT_COMMITTED');
  if (chaincode.initTxId || chaincode.initializedAt) return { status: 'already-initialized' as const, tx_id: chaincode.initTxId, block_number: chaincode.initBlockNumber };
  const held = new Set((await heldOrganizations(deps, network)).map((o) => o.mspId));
  const peers = (await joinedPeers(deps, network)).filter((p) => held.has(p.mspId));
  const endorsers: PeerAccess[] = [];
  for (const mspId of held) {
    const p = peers.find((n) => n.mspId === mspId);
    if (p) endorsers.push(await peerAccess(deps, p));
  }
  if (!endorsers.length) throw new ConflictError(`No running peer of an organization this service holds has joined channel ${network.channelName}: Init of ${chaincode.name} needs one.`, { networkId: network.id }, 'NO_JOINED_PEER');
  const tx = await consortiumOf(deps).chaincodes.initialize({ endorsers, ...(await chaincodeOrderer(deps, network)), channelName: network.channelName, chaincodeName: chaincode.name, fn: record.init?.function ?? null, args: record.init?.args ?? [] });
  await runCommand(input, chaincodeStream(chaincode.id), consortiumChaincode, { type: 'RecordChaincodeInitialized', chaincodeId: chaincode.id, txId: tx?.txId ?? null, blockNumber: tx?.blockNumber ?? null, at: deps.clock().toISOString() });
  return { status: tx ? ('initialized' as const) : ('already-initialized' as const), tx_id: tx?.txId ?? null, block_number: tx?.blockNumber ?? null };
}
