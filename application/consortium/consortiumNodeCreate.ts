// Creating a consortium node (a Fabric peer or orderer of one organization): its ports
// (checked, or allocated from Fabric's defaults upwards), its names, its identity and TLS keys
// issued by the organization's CAs in the organization's key provider, then NodeCreated and,
// as for every node, StartNode. A failure after the keys were made deletes them again.
import { noteRecorded, requestMetadata, runCommand, type CommandInput } from '../commands.ts';
import { renewCertificate } from '../../domain/keys/certificateRenewal.ts';
import { consortiumNodeRecord } from './consortiumNodeRecord.ts';
import { ConflictError, ValidationError, type FieldIssue } from '../../domain/shared/errors.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import type { NodeEngineKind } from '../../domain/nodes/nodeEngine.ts';
import type { ConsortiumNodeConfig, ConsortiumNodeRole, ConsortiumNodeType } from '../../domain/consortium/consortiumNode.ts';
import { ORDERER_DEFAULT_PORTS, PEER_DEFAULT_PORTS, domainOfSigningCa, nodeHostname } from '../../domain/consortium/consortiumDefaults.ts';
import { organizationDomain } from '../../domain/organizations/organizationCertificates.ts';
import { IDENTITY_VALIDITY_DAYS } from '../../domain/organizations/organizationCertificates.ts';
import { assignedPorts, getNode, type NodeRow } from '../../projections/nodes.ts';
import { getOrganization, type OrganizationRow } from '../../projections/organizations.ts';
import { getKey } from '../../projections/keys.ts';
import { getKeyProvider } from '../../projections/keyProviders.ts';
import { createKey, discardKey } from '../keys/keyCreation.ts';
import { assertCreationOpen, recordMadeFor, trackedCreation, type CreationSteps } from '../creations.ts';
import { checkNodeName, MIN_NODE_PORT, oneAtATime } from '../evm/evmNodeCreate.ts';
import { consortiumOf } from './consortiumContext.ts';
import { placeNode, takesNodePorts } from '../hosts/hostPlacement.ts';
import { takeClusterNodePorts } from '../hosts/clusterNodePorts.ts';
import { getNodeHost, type NodeHostRow } from '../../projections/nodeHosts.ts';
import { NODE_PORT_RANGE } from '../../domain/hosts/nodeHosts.ts';

type Input = CommandInput;

export interface ConsortiumNodeRequest {
  name: string;
  nodeType: ConsortiumNodeType;
  organizationId: number | undefined;
  engine?: NodeEngineKind;
  /** The Fabric release it runs (process engine: its programs; docker engine and node hosts: its release image); default: the newest found there. */
  fabricVersion?: string;
  config: {
    listenAddress?: string;
    hostname?: string;
    externalEndpoint?: string;
    domainNames?: string[];
    port?: number;
    chaincodePort?: number;
    adminPort?: number;
    operationsPort?: number;
    /** The node host it is placed on (docs/hosts.md); left out: this service's machine. */
    hostId?: number;
    /** Or the labels of the host it is placed on (application/hosts/hostPlacement.ts). */
    hostLabels?: Record<string, string>;
  };
  /** A client-driven create (POST /creations) this node is made for: recorded on it before it is made. */
  creationId?: number;
}

const HOST = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
const isHost = (h: string) => HOST.test(h) || IPV4.test(h);

export const roleOf = (t: ConsortiumNodeType): ConsortiumNodeRole => (t === 'CONSORTIUM_ORDERER' ? 'orderer' : 'peer');

export async function organizationOr400(input: Input, organizationId: number | undefined, field = 'organizationId'): Promise<OrganizationRow> {
  if (organizationId === undefined) throw new ValidationError('A consortium node belongs to an organization: organizationId is required.', [{ field, message: 'is required' }]);
  const org = await getOrganization(input.deps.pool, organizationId);
  if (!org) throw new ValidationError(`Organization ${organizationId} does not exist.`, [{ field, message: 'no such organization' }]);
  return org;
}

/** The organization's domain: what its CA certificates were issued for. */
export async function organizationDomainOf(input: Input, org: OrganizationRow): Promise<string> {
  const ca = org.signKeyId ? await getKey(input.deps.pool, org.signKeyId) : null;
  const cn = ca?.certificate?.subject.match(/CN=([^,]+)/)?.[1];
  return domainOfSigningCa(cn) ?? organizationDomain(org.name);
}

function portFieldsOf(role: ConsortiumNodeRole): Record<string, number> {
  return role === 'orderer' ? { ...ORDERER_DEFAULT_PORTS } : { ...PEER_DEFAULT_PORTS };
}

/** On a Kubernetes cluster a node's ports are NodePorts (kubernetesEngine.ts): allocated from 31051 (peers) or 31050 (orderers) upwards. */
function clusterPortFieldsOf(role: ConsortiumNodeRole): Record<string, number> {
  return role === 'orderer' ? { port: 31050, adminPort: 31053, operationsPort: 31443 } : { port: 31051, chaincodePort: 31052, operationsPort: 31444 };
}

/** Checks the given ports, allocates the rest: 400 for bad values, 409 for taken ones. */
async function resolvePorts(input: Input, role: ConsortiumNodeRole, given: Record<string, number | undefined>, exceptNodeId?: number, onHost = false, onCluster = false): Promise<Record<string, number>> {
  const defaults = onCluster ? clusterPortFieldsOf(role) : portFieldsOf(role);
  const [low, high] = onCluster ? [NODE_PORT_RANGE.min, NODE_PORT_RANGE.max] : [MIN_NODE_PORT, 65535];
  const issues: FieldIssue[] = [];
  for (const [f, v] of Object.entries(given)) {
    if (v === undefined) continue;
    if (!Object.hasOwn(defaults, f)) issues.push({ field: `config.${f}`, message: `a ${role} has no ${f}` });
    else if (!Number.isInteger(v) || v < low || v > high) issues.push({ field: `config.${f}`, message: `must be a port from ${low} to ${high}${onCluster ? ' (a NodePort of the Kubernetes cluster)' : ''}, got ${v}` });
  }
  const values = Object.keys(defaults).map((f) => given[f]).filter((v): v is number => typeof v === 'number');
  if (new Set(values).size !== values.length) issues.push({ field: 'config', message: 'each port must be different' });
  if (issues.length) throw new ValidationError(`Invalid node ports: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, issues);
  const assigned = await assignedPorts(input.deps.pool);
  if (exceptNodeId !== undefined) {
    const self = await getNode(input.deps.pool, exceptNodeId);
    for (const v of Object.values((self?.config ?? {}) as Record<string, unknown>)) if (typeof v === 'number') assigned.delete(v);
  }
  // Ports of a node on a node host are that host's: this machine's listeners say nothing of them.
  const runtime = onHost ? { portsInUse: async () => [] as number[] } : consortiumOf(input.deps).runtime;
  for (const f of Object.keys(defaults)) {
    const v = given[f];
    if (typeof v !== 'number') continue;
    const owner = assigned.get(v);
    if (owner) throw new ConflictError(`Port ${v} (config.${f}) is already assigned to node ${owner}.`, { field: `config.${f}`, port: v }, 'PORT_TAKEN');
  }
  const busy = await runtime.portsInUse(values);
  if (busy.length) throw new ConflictError(`Port ${busy.join(', ')} is already in use on this host.`, { ports: busy }, 'PORT_IN_USE');
  const chosen = new Set(values);
  const out: Record<string, number> = {};
  for (const [f, start] of Object.entries(defaults)) {
    const v = given[f];
    if (typeof v === 'number') {
      out[f] = v;
      continue;
    }
    let p = start;
    while (assigned.has(p) || chosen.has(p) || (await runtime.portsInUse([p])).length) {
      p += 10;
      if (p > high) throw new ConflictError(`No free port left for config.${f}.`);
    }
    chosen.add(p);
    out[f] = p;
  }
  return out;
}

function namesIssues(c: ConsortiumNodeRequest['config']): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (c.listenAddress !== undefined && !IPV4.test(c.listenAddress)) issues.push({ field: 'config.listenAddress', message: 'must be an IPv4 address such as 0.0.0.0 or 127.0.0.1' });
  if (c.hostname !== undefined && !HOST.test(c.hostname)) issues.push({ field: 'config.hostname', message: 'must be a DNS name' });
  if (c.externalEndpoint !== undefined) {
    const m = /^(.+):(\d{1,5})$/.exec(c.externalEndpoint);
    if (!m || !isHost(m[1]) || Number(m[2]) < 1 || Number(m[2]) > 65535) issues.push({ field: 'config.externalEndpoint', message: 'must be host:port' });
  }
  (c.domainNames ?? []).forEach((d, i) => {
    if (!isHost(d)) issues.push({ field: `config.domainNames[${i}]`, message: 'must be a DNS name or an IPv4 address' });
  });
  return issues;
}

/** The whole config of a node from a request and its allocated ports. */
function configOf(role: ConsortiumNodeRole, req: ConsortiumNodeRequest, hostname: string, ports: Record<string, number>, host: NodeHostRow | null, fabricVersion: string | null = null): ConsortiumNodeConfig {
  const common = {
    listenAddress: req.config.listenAddress ?? '0.0.0.0',
    hostname,
    // Loopback is what every node of this service reaches when they run on this machine; a node
    // on a node host is reached at that host's address, by this service and by the other nodes.
    externalEndpoint: req.config.externalEndpoint ?? `${host?.externalIp ?? '127.0.0.1'}:${ports.port}`,
    domainNames: [...new Set([...(req.config.domainNames ?? []), ...(host ? [host.externalIp] : [])])],
    ...(host ? { hostId: host.id, externalIp: host.externalIp } : {}),
    ...(fabricVersion ? { fabricVersion } : {}),
  };
  return role === 'orderer'
    ? { ...common, port: ports.port, adminPort: ports.adminPort, operationsPort: ports.operationsPort }
    : { ...common, port: ports.port, chaincodePort: ports.chaincodePort, operationsPort: ports.operationsPort };
}

/** Every name the node's TLS certificate must carry. */
export function tlsHosts(config: ConsortiumNodeConfig): string[] {
  const endpointHost = config.externalEndpoint.replace(/:\d+$/, '');
  return [...new Set([config.hostname, 'localhost', '127.0.0.1', endpointHost, ...config.domainNames])];
}

export async function assertNodeKeysExportable(input: Input, org: OrganizationRow): Promise<void> {
  const provider = await getKeyProvider(input.deps.pool, org.providerId);
  if (provider && provider.type !== 'DATABASE') {
    throw new ValidationError(
      `Organization ${org.mspId} keeps its keys in ${provider.name} (${provider.type}); Fabric peers and orderers read their identity and TLS keys from files, so its nodes need an organization whose keys are in the database provider.`,
      [{ field: 'organizationId', message: `its key provider is ${provider.type}; consortium nodes need the database provider` }],
    );
  }
}

/** Identity and TLS keys of a node, issued by the organization's CAs. */
export async function createNodeKeys(input: Input, org: OrganizationRow, domain: string, name: string, role: ConsortiumNodeRole, config: ConsortiumNodeConfig, steps?: CreationSteps): Promise<{ identityKeyId: number; tlsKeyId: number }> {
  if (!org.signKeyId || !org.tlsKeyId) throw new ValidationError(`Organization ${org.mspId} has no CA keys.`, [{ field: 'organizationId', message: 'no CA keys' }]);
  const made: number[] = [];
  // In a tracked creation each key's id is recorded before the key is made (and the creation removes them).
  const reserve = async () => (steps ? { keyId: await steps.making('key') } : {});
  try {
    const common = { providerId: org.providerId, organizationId: org.id, spec: { algorithm: 'EC' as const, curve: 'P-256' as const } };
    steps?.step('node keys');
    const identityKeyId = await createKey(input, {
      ...common, ...(await reserve()), name: `${name}-identity`, purpose: 'IDENTITY',
      certificate: { issuer: org.signKeyId, profile: { commonName: config.hostname, organization: domain, organizationalUnits: [role], keyUsages: ['digitalSignature'], isCa: false, validityDays: IDENTITY_VALIDITY_DAYS } },
    });
    made.push(identityKeyId);
    const hosts = tlsHosts(config);
    const tlsKeyId = await createKey(input, {
      ...common, ...(await reserve()), name: `${name}-tls`, purpose: 'TLS',
      certificate: {
        issuer: org.tlsKeyId,
        profile: {
          commonName: config.hostname, organization: domain, keyUsages: ['digitalSignature', 'keyEncipherment'], extendedKeyUsages: ['serverAuth', 'clientAuth'],
          dnsNames: hosts.filter((h) => !IPV4.test(h)), ipAddresses: hosts.filter((h) => IPV4.test(h)), isCa: false, validityDays: IDENTITY_VALIDITY_DAYS,
        },
      },
    });
    made.push(tlsKeyId);
    return { identityKeyId, tlsKeyId };
  } catch (err) {
    if (!steps) for (const keyId of made.reverse()) await discardKey(input, keyId);
    throw err;
  }
}

interface PreparedNode {
  org: OrganizationRow;
  role: ConsortiumNodeRole;
  engine: NonNullable<ConsortiumNodeRequest['engine']>;
  hostname: string;
  host: NodeHostRow | null;
  fabricVersion: string | null;
  keysMade: { identityKeyId: number; tlsKeyId: number };
}

/**
 * The Fabric release a new node runs: the one asked for, else the newest found on its engine (process:
 * the programs of LNM_FABRIC_RELEASES / LNM_FABRIC_BIN / PATH; docker: the peer and orderer images
 * tagged by version, adapters/consortium/fabricReleaseImages.ts; a node host: those images on the
 * host's Docker or on the cluster's nodes). A version not found is a 400 naming those that are. A
 * docker engine or host without versioned images runs its configured image (null: no release recorded).
 */
export async function resolveFabricVersion(input: Input, engine: NodeEngineKind, asked: string | undefined, field = 'fabricVersion', host: NodeHostRow | null = null): Promise<string | null> {
  const runtime = consortiumOf(input.deps).runtime;
  if (engine === 'docker' || host) {
    const versions = await runtime.imageReleases(host?.id);
    if (asked === undefined) return versions[0] ?? null;
    if (versions.includes(asked)) return asked;
    const where = host ? `node host ${host.name}` : 'the docker engine';
    const loaded = host?.kind === 'kubernetes' ? "on the cluster's nodes (test/k8s/cluster.sh import lnm-fabric-peer:<version> loads one)" : 'on its Docker host';
    const have = versions.length ? versions.join(', ') : `none (no peer and orderer images tagged by version ${loaded}: .ci/docker.sh builds lnm-fabric-peer:<version> and lnm-fabric-orderer:<version> from each Fabric release it finds)`;
    throw new ValidationError(`Fabric ${asked} is not among the releases available for ${where}: ${have}.`, [{ field, message: `not found for ${host ? `node host ${host.name}` : 'docker'}; available: ${have}` }]);
  }
  if (engine !== 'process') {
    if (asked !== undefined) throw new ValidationError(`fabricVersion chooses the Fabric programs of the process engine or the release images of the docker engine; the ${engine} engine runs the Fabric of its image (LNM_IMAGE_FABRIC_PEER, LNM_IMAGE_FABRIC_ORDERER).`, [{ field, message: `not for the ${engine} engine` }]);
    return null;
  }
  const releases = await runtime.releases();
  if (asked === undefined) return releases[0]?.version ?? null;
  if (releases.some((r) => r.version === asked)) return asked;
  const have = releases.length ? releases.map((r) => r.version).join(', ') : 'none (set LNM_FABRIC_RELEASES or LNM_FABRIC_BIN)';
  throw new ValidationError(`Fabric ${asked} is not among the releases this service finds: ${have}.`, [{ field, message: `not found; available: ${have}` }]);
}

/**
 * Everything of a new node that needs no port: checks, and how to make its identity and TLS keys with their
 * certificates (their names do not name a port). Runs beside other creations, so five nodes
 * asked for at once make their keys at once; only the ports and the record wait for each other.
 */
async function prepareConsortiumNode(input: Input, req: ConsortiumNodeRequest): Promise<Omit<PreparedNode, 'keysMade'> & { makeKeys(steps: CreationSteps): Promise<PreparedNode['keysMade']> }> {
  const consortium = consortiumOf(input.deps);
  await checkNodeName(input, req.name);
  await assertCreationOpen(input, req.creationId);
  const org = await organizationOr400(input, req.organizationId);
  await assertNodeKeysExportable(input, org);
  const role = roleOf(req.nodeType);
  const issues = namesIssues(req.config);
  if (issues.length) throw new ValidationError(`Invalid node configuration: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, issues);
  const host = await placeNode(input, req.config, req.engine, { allowed: true });
  const engine = host ? 'docker' : (req.engine ?? consortium.defaults.engine);
  const fabricVersion = await resolveFabricVersion(input, engine, req.fabricVersion, 'fabricVersion', host);
  if (!host) {
    const available = await consortium.runtime.available(engine, role, fabricVersion ?? undefined).catch((e: Error) => ({ ok: false as const, reason: e.message }));
    const engineOk = await (async () => (engine === 'docker' ? available : { ok: true as const }))();
    if (!engineOk.ok) throw new ValidationError(`The ${engine} engine cannot run Fabric ${role}s here: ${engineOk.reason}`, [{ field: 'engine', message: engineOk.reason }]);
  }
  const domain = await organizationDomainOf(input, org);
  const hostname = req.config.hostname ?? nodeHostname(req.name, domain);
  // The certificates' names come from the hostname, the external endpoint's host (the node host's
  // address for a node on a host) and the domain names, never a port: the ports chosen later do
  // not change them.
  const makeKeys = (steps: CreationSteps) => createNodeKeys(input, org, domain, req.name, role, configOf(role, req, hostname, { port: 0, chaincodePort: 0, adminPort: 0, operationsPort: 0 }, host), steps);
  return { org, role, engine, hostname, host, fabricVersion, makeKeys };
}

/** Ports and the record (one at a time: ports are chosen from those not yet recorded). A failure's keys are removed by the tracked creation. */
async function recordConsortiumNode(input: Input, req: ConsortiumNodeRequest, prepared: PreparedNode): Promise<number> {
  const { deps } = input;
  const { org, role, engine, hostname, host, fabricVersion, keysMade } = prepared;
  // Again under the lock: another creation of the same name may have been recorded meanwhile.
  await checkNodeName(input, req.name);
  const { port, chaincodePort, adminPort, operationsPort } = req.config;
  const given = { port, chaincodePort, adminPort, operationsPort } as Record<string, number | undefined>;
  const resolved = await resolvePorts(input, role, given, undefined, host !== null, takesNodePorts(host));
  const nodeId = await deps.nextId('node');
  // On a cluster the ports are taken there before the config naming them is written (the
  // certificates name no port): a default one another deployment holds moves up.
  const taken = await takeClusterNodePorts(input, host, nodeId, {
    ports: resolved,
    given: new Set(Object.keys(resolved).filter((f) => typeof given[f] === 'number')),
    assigned: new Set((await assignedPorts(deps.pool)).keys()),
    fieldName: (f) => `config.${f}`,
  });
  const ports = taken.ports as Record<string, number>;
  const config = configOf(role, req, hostname, ports, host, fabricVersion);
  try {
    await recordMadeFor(input, req.creationId, 'node', nodeId);
    await runCommand(input, nodeStream(nodeId), nodeAggregate, {
      type: 'CreateNode', nodeId, name: req.name, platform: 'CONSORTIUM', nodeType: req.nodeType, role, organizationId: org.id, mspId: org.mspId,
      networkId: null, client: 'fabric', engine, config, ...keysMade, resources: null, at: deps.clock().toISOString(),
    });
  } catch (err) {
    await taken.release();
    throw err;
  }
  return nodeId;
}

/**
 * Creates the node and asks for its start; returns its id. Recorded as it goes
 * (application/creations.ts): a failure, or a stop of the service (kill -9) before the node is
 * recorded, removes the keys made for it.
 */
export async function createConsortiumNode(input: Input, req: ConsortiumNodeRequest, opts: { start?: boolean } = {}): Promise<number> {
  // The checks first: a refused create makes nothing and records no creation.
  const { makeKeys, ...prepared } = await prepareConsortiumNode(input, req);
  const nodeId = await trackedCreation(input, 'consortium-node', req.name, async (steps) => {
    const keysMade = await makeKeys(steps);
    steps.step('node');
    return oneAtATime(input.deps.pool, () => recordConsortiumNode(input, req, { ...prepared, keysMade }));
  });
  if (opts.start !== false) await runCommand(input, nodeStream(nodeId), nodeAggregate, { type: 'StartNode', nodeId, at: input.deps.clock().toISOString() });
  return nodeId;
}

/** New ports, names or SANs of a stopped node (its TLS certificate is not reissued here: renew does that). */
export async function updateConsortiumNodeConfig(input: Input, node: NodeRow, change: ConsortiumNodeRequest['config']): Promise<Partial<ConsortiumNodeConfig>> {
  const current = node.consortiumConfig!;
  const role = node.role as ConsortiumNodeRole;
  const issues = namesIssues(change);
  if (issues.length) throw new ValidationError(`Invalid node configuration: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, issues);
  const merged = { ...(current as unknown as Record<string, unknown>), ...Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)) } as Record<string, number | undefined>;
  const onCluster = current.hostId !== undefined && takesNodePorts(await getNodeHost(input.deps.pool, current.hostId));
  const ports = await resolvePorts(input, role, Object.fromEntries(Object.keys(portFieldsOf(role)).map((f) => [f, merged[f]])), node.id, current.hostId !== undefined, onCluster);
  return { ...Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)), ...ports } as Partial<ConsortiumNodeConfig>;
}

/** New certificates for a node's identity and TLS keys (same keys), the TLS one naming its current hosts. */
export async function renewConsortiumNodeCertificates(input: Input, node: NodeRow): Promise<Array<{ key_id: number; purpose: string; serial_number: string; not_after: string }>> {
  const { deps } = input;
  const record = await consortiumNodeRecord(deps, node);
  if (!record) throw new ValidationError(`Node ${node.name} is not a consortium node.`, [{ field: 'id', message: 'not a consortium node' }]);
  const ctx = { store: deps.store, services: deps.keys, now: deps.clock(), metadata: requestMetadata(input), newId: deps.newId };
  const hosts = tlsHosts(record.config);
  const positions = [
    await renewCertificate(ctx, record.identityKeyId, 'renewed', (p) => ({ ...p, commonName: record.config.hostname })),
    await renewCertificate(ctx, record.tlsKeyId, 'renewed', (p) => ({ ...p, commonName: record.config.hostname, dnsNames: hosts.filter((h) => !IPV4.test(h)), ipAddresses: hosts.filter((h) => IPV4.test(h)) })),
  ];
  const last = Math.max(...positions.map((p) => p ?? 0));
  if (last) {
    noteRecorded(input);
    await deps.projector.waitFor(last);
  }
  const out = [];
  for (const [keyId, purpose] of [[record.identityKeyId, 'IDENTITY'], [record.tlsKeyId, 'TLS']] as const) {
    const key = await getKey(deps.pool, keyId);
    out.push({ key_id: keyId, purpose, serial_number: key?.certificate?.serialNumber ?? '', not_after: key?.certificate?.notAfter ?? '' });
  }
  return out;
}
