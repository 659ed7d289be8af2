// Creating a ledgerX orderer group (one Fabric-X orderer party of one organization): its four
// role nodes (router, batcher, consenter, assembler), each with an identity and a TLS key issued
// by the organization's CAs (as for consortium nodes), and the group node that holds their ports.
// gRPC ports: routerPort, batcherPort, consenterPort, assemblerPort, else grpcPort + 0..3 (default
// base 7050, moved up by 10 while any is taken). Monitoring ports: given, else the first free port
// from gRPC base + 100..103 (SPEC), skipping the group's gRPC ports. Nothing starts here: a role
// needs its network's genesis block, which the join gives. A failure part way deletes what was
// made (node records, keys).
//
// On a registered Kubernetes cluster (config.hostId; docs/kubernetes.md) each role is a pod of
// the cluster (kubernetesEngine.ts, image fabric-x-arma): its ports are NodePorts of the
// cluster's range (default gRPC base 32050, monitoring base + 100..103), taken on the cluster
// before the group is recorded, and the roles are reached at the cluster's node address (the
// endpoints of the genesis block and the names of their TLS certificates).
import { runCommand, type CommandInput } from '../commands.ts';
import { recordMadeFor } from '../creations.ts';
import { ConflictError, ValidationError, type FieldIssue } from '../../domain/shared/errors.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { nodeHostname } from '../../domain/consortium/consortiumDefaults.ts';
import type { ConsortiumNodeConfig } from '../../domain/consortium/consortiumNode.ts';
import {
  LEDGERX_ORDERER_CLUSTER_GRPC_BASE, LEDGERX_ORDERER_GRPC_BASE, LEDGERX_ORDERER_MONITORING_OFFSET, LEDGERX_ORDERER_ROLES, roleNodeType,
  type LedgerXOrdererGroupConfig, type LedgerXOrdererRole,
} from '../../domain/ledgerx/ledgerxNode.ts';
import { assignedPorts } from '../../projections/nodes.ts';
import { discardKey } from '../keys/keyCreation.ts';
import { checkNodeName, MIN_NODE_PORT, oneAtATime } from '../evm/evmNodeCreate.ts';
import { assertNodeKeysExportable, createNodeKeys, organizationDomainOf } from '../consortium/consortiumNodeCreate.ts';
import { getOrganization } from '../../projections/organizations.ts';
import { placeNode, takesNodePorts } from '../hosts/hostPlacement.ts';
import { takeClusterNodePorts } from '../hosts/clusterNodePorts.ts';
import { NODE_PORT_RANGE } from '../../domain/hosts/nodeHosts.ts';
import type { NodeHostRow } from '../../projections/nodeHosts.ts';
import { ledgerXOf } from './ledgerxContext.ts';

export interface LedgerXOrdererGroupRequest {
  name: string;
  organizationId: number | undefined;
  /** The ledgerX quick start's create: the group is listed on it before it is made (application/creations.ts). */
  creationId?: number;
  config: {
    externalIp?: string;
    grpcPort?: number;
    routerPort?: number;
    batcherPort?: number;
    consenterPort?: number;
    assemblerPort?: number;
    routerMonitoringPort?: number;
    batcherMonitoringPort?: number;
    consenterMonitoringPort?: number;
    assemblerMonitoringPort?: number;
    /** process or docker; left out: the service's LNM_NODE_ENGINE. */
    engine?: string;
    /** A registered Kubernetes cluster the four roles run on (docs/kubernetes.md). */
    hostId?: number;
  };
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
const grpcField = (r: string) => `${r}Port` as const;
const monField = (r: string) => `${r}MonitoringPort` as const;

export interface GroupLayout {
  roles: readonly string[];
  offsets: Record<string, number>;
  defaultBase: number;
  /** The default gRPC base on a Kubernetes cluster (a NodePort). */
  clusterBase?: number;
  noun: string;
}

const ORDERER_LAYOUT: GroupLayout = { roles: LEDGERX_ORDERER_ROLES, offsets: LEDGERX_ORDERER_MONITORING_OFFSET, defaultBase: LEDGERX_ORDERER_GRPC_BASE, clusterBase: LEDGERX_ORDERER_CLUSTER_GRPC_BASE, noun: 'orderer group' };

/**
 * gRPC and monitoring ports of a group (SPEC layout): 400 for bad values, 409 for taken ones. On a
 * Kubernetes cluster (onCluster) they are NodePorts: the cluster's range, this machine's listeners
 * not asked (the cluster's own Services are, by takeClusterNodePorts).
 */
export async function resolveGroupPorts(input: CommandInput, c: Record<string, unknown>, layout: GroupLayout, onCluster = false): Promise<Record<string, number>> {
  const LEDGERX_ORDERER_ROLES = layout.roles;
  const n = layout.roles.length;
  const maxOffset = Math.max(...Object.values(layout.offsets));
  const [low, high] = onCluster ? [NODE_PORT_RANGE.min, NODE_PORT_RANGE.max] : [MIN_NODE_PORT, 65535];
  const issues: FieldIssue[] = [];
  const given: Record<string, number> = {};
  for (const f of ['grpcPort', ...LEDGERX_ORDERER_ROLES.map(grpcField), ...LEDGERX_ORDERER_ROLES.map(monField)]) {
    const v = (c as Record<string, number | undefined>)[f];
    if (v === undefined || (v === 0 && f.endsWith('MonitoringPort'))) continue;
    if (!Number.isInteger(v) || v < low || v > high) issues.push({ field: `config.${f}`, message: `must be a port from ${low} to ${high}${onCluster ? ' (a NodePort of the Kubernetes cluster)' : ''}${f.endsWith('MonitoringPort') ? ' (or 0: allocated)' : ''}, got ${v}` });
    else if (f !== 'grpcPort') given[f] = v;
  }
  if (typeof c.grpcPort === 'number' && c.grpcPort > high - maxOffset) issues.push({ field: 'config.grpcPort', message: `leaves no room for the monitoring ports (base + 100..${maxOffset})` });
  if (issues.length) throw new ValidationError(`Invalid ${layout.noun} ports: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, issues);
  const grpcGiven = LEDGERX_ORDERER_ROLES.map((r) => given[grpcField(r)]).filter((v) => v !== undefined);
  const monGiven = LEDGERX_ORDERER_ROLES.map((r) => given[monField(r)]).filter((v) => v !== undefined);
  const values = [...grpcGiven, ...monGiven];
  if (new Set(values).size !== values.length) {
    const clash = LEDGERX_ORDERER_ROLES.map(monField).find((m) => given[m] !== undefined && grpcGiven.includes(given[m]));
    throw new ValidationError(clash ? `config.${clash} (${given[clash]}) is also a gRPC port of the group; each port must be different.` : `Each port of a ${layout.noun} must be different.`, [{ field: clash ? `config.${clash}` : 'config', message: 'each port must be different' }]);
  }
  const assigned = await assignedPorts(input.deps.pool);
  for (const [f, v] of Object.entries(given)) {
    const owner = assigned.get(v);
    if (owner) throw new ConflictError(`Port ${v} (config.${f}) is already assigned to node ${owner}.`, { field: `config.${f}`, port: v }, 'PORT_TAKEN');
  }
  const runtime = onCluster ? { portsInUse: async () => [] as number[] } : ledgerXOf(input.deps).runtime;
  const busy = await runtime.portsInUse(values);
  if (busy.length) throw new ConflictError(`Port ${busy.join(', ')} is already in use on this host.`, { ports: busy }, 'PORT_IN_USE');
  const free = async (p: number, taken: Set<number>) => !taken.has(p) && !assigned.has(p) && !(await runtime.portsInUse([p])).length;
  const chosen = new Set(values);
  // gRPC: the given ones; the rest from the base (given, else the first base whose four ports are free).
  let base = (c.grpcPort as number | undefined) ?? given[grpcField(layout.roles[0])] ?? (onCluster && layout.clusterBase ? layout.clusterBase : layout.defaultBase);
  if (c.grpcPort === undefined && grpcGiven.length === 0) {
    for (;;) {
      const four = Array.from({ length: n }, (_, i) => base + i);
      if ((await Promise.all(four.map((p) => free(p, chosen)))).every(Boolean)) break;
      base += 10;
      if (base > high - maxOffset) throw new ConflictError(`No free gRPC ports left for a ${layout.noun}.`);
    }
  }
  const out: Record<string, number> = {};
  for (const [i, r] of LEDGERX_ORDERER_ROLES.entries()) {
    const f = grpcField(r);
    if (given[f] !== undefined) out[f] = given[f];
    else {
      const p = base + i;
      if (!(await free(p, chosen))) throw new ConflictError(`Port ${p} (config.${f}, gRPC base ${base} + ${i}) is taken; give config.${f} or another config.grpcPort.`, { field: `config.${f}`, port: p }, 'PORT_TAKEN');
      out[f] = p;
    }
    chosen.add(out[f]);
  }
  for (const r of LEDGERX_ORDERER_ROLES) {
    const f = monField(r);
    if (given[f] !== undefined) {
      out[f] = given[f];
      continue;
    }
    let p = base + layout.offsets[r];
    while (!(await free(p, chosen))) {
      p += 1;
      if (p > high) throw new ConflictError(`No free port left for config.${f}.`);
    }
    chosen.add(p);
    out[f] = p;
  }
  return out;
}

async function recordGroup(input: CommandInput, req: LedgerXOrdererGroupRequest): Promise<number> {
  const { deps } = input;
  ledgerXOf(deps);
  await checkNodeName(input, req.name);
  for (const r of LEDGERX_ORDERER_ROLES) await checkNodeName(input, `${req.name}-${r}`);
  if (req.organizationId === undefined) throw new ValidationError('An orderer group belongs to an organization: organizationId is required.', [{ field: 'organizationId', message: 'is required' }]);
  const org = await getOrganization(deps.pool, req.organizationId);
  if (!org) throw new ValidationError(`Organization ${req.organizationId} does not exist.`, [{ field: 'organizationId', message: 'no such organization' }]);
  await assertNodeKeysExportable(input, org);
  // Four pods of a cluster: its placement checks (reachable, namespace, permissions, room for four).
  const host = req.config.hostId !== undefined ? await placeNode(input, { hostId: req.config.hostId }, req.config.engine as 'docker' | undefined, { allowed: true }, { nodes: LEDGERX_ORDERER_ROLES.length }) : null;
  if (host && host.kind !== 'kubernetes') throw new ValidationError(`Host ${host.name} is a Docker host: a ledgerX orderer group runs on this machine or on a registered Kubernetes cluster.`, [{ field: 'config.hostId', message: 'not a Kubernetes cluster' }], 'HOST_KIND_UNSUPPORTED');
  if (host && req.config.externalIp !== undefined) throw new ValidationError(`Orderer group ${req.name} is placed on cluster ${host.name}, where its roles are reached at the cluster's node address (${host.externalIp}); leave out config.externalIp.`, [{ field: 'config.externalIp', message: 'not with a cluster' }]);
  const externalIp = host ? host.externalIp : (req.config.externalIp ?? '127.0.0.1');
  if (!IPV4.test(externalIp)) throw new ValidationError('config.externalIp must be an IPv4 address that the roles are reached at, such as 127.0.0.1.', [{ field: 'config.externalIp', message: 'must be an IPv4 address' }]);
  const resolved = await resolveGroupPorts(input, req.config, ORDERER_LAYOUT, takesNodePorts(host));
  const domain = await organizationDomainOf(input, org);
  const groupId = await deps.nextId('node');
  const roleNodeIds = {} as Record<LedgerXOrdererRole, number>;
  for (const r of LEDGERX_ORDERER_ROLES) roleNodeIds[r] = await deps.nextId('node');
  const { ports, release } = await takeRolePorts(input, host, LEDGERX_ORDERER_ROLES, roleNodeIds, resolved, req.config as Record<string, unknown>);
  await recordMadeFor(input, req.creationId, 'node', groupId);
  const at = deps.clock().toISOString();
  const engine = host || req.config.engine === 'docker' || (req.config.engine === undefined && ledgerXOf(deps).engine === 'docker') ? ('docker' as const) : ('process' as const);
  const common = { platform: 'LEDGERX' as const, organizationId: org.id, mspId: org.mspId, networkId: null, client: 'fabric-x' as const, engine, resources: null, at };
  const placed = host ? { hostId: host.id } : {};
  const keysMade: number[] = [];
  const nodesMade: number[] = [];
  try {
    for (const r of LEDGERX_ORDERER_ROLES) {
      const name = `${req.name}-${r}`;
      const hostname = nodeHostname(name, domain);
      const names = { hostname, externalEndpoint: `${externalIp}:${ports[grpcField(r)]}`, domainNames: [], listenAddress: '0.0.0.0' } as unknown as ConsortiumNodeConfig;
      // OU "orderer": Fabric-X's MSP (NodeOUs) classifies the roles as orderers.
      const keys = await createNodeKeys(input, org, domain, name, 'orderer', names);
      keysMade.push(keys.identityKeyId, keys.tlsKeyId);
      await runCommand(input, nodeStream(roleNodeIds[r]), nodeAggregate, {
        type: 'CreateNode', nodeId: roleNodeIds[r], name, nodeType: roleNodeType(r), role: r, ...common, ...keys,
        config: { groupId, role: r, externalIp, grpcPort: ports[grpcField(r)], monitoringPort: ports[monField(r)], ...placed },
      });
      nodesMade.push(roleNodeIds[r]);
    }
    await runCommand(input, nodeStream(groupId), nodeAggregate, {
      type: 'CreateNode', nodeId: groupId, name: req.name, nodeType: 'LEDGERX_ORDERER_GROUP', role: 'orderer-group', ...common,
      config: { externalIp, ...(ports as unknown as Omit<LedgerXOrdererGroupConfig, 'externalIp' | 'roleNodeIds'>), roleNodeIds, ...placed },
    });
  } catch (err) {
    for (const id of nodesMade) await runCommand(input, nodeStream(id), nodeAggregate, { type: 'DeleteNode', nodeId: id, at: deps.clock().toISOString() }).catch(() => {});
    for (const k of keysMade.reverse()) await discardKey(input, k).catch(() => {});
    await release();
    throw err;
  }
  return groupId;
}

/**
 * On a cluster taking NodePorts: each role's two ports taken there (its Service made) before the
 * group (an orderer group or a committer) is recorded; a default one another deployment holds moves up, a given one is a 409.
 * release() removes what was made (a create that fails after).
 */
export async function takeRolePorts(input: CommandInput, host: NodeHostRow | null, roles: readonly string[], roleNodeIds: Record<string, number>, resolved: Record<string, number>, c: Record<string, unknown>): Promise<{ ports: Record<string, number>; release(): Promise<void> }> {
  const ports = { ...resolved };
  const releases: Array<() => Promise<void>> = [];
  const release = async () => {
    for (const r of releases.reverse()) await r();
  };
  if (!host || !takesNodePorts(host)) return { ports, release };
  const assigned = new Set([...(await assignedPorts(input.deps.pool)).keys(), ...Object.values(resolved)]);
  try {
    for (const r of roles) {
      const fields = [grpcField(r), monField(r)];
      const taken = await takeClusterNodePorts(input, host, roleNodeIds[r], {
        ports: Object.fromEntries(fields.map((f) => [f, ports[f]])),
        given: new Set(fields.filter((f) => typeof c[f] === 'number' || (f === grpcField(r) && typeof c.grpcPort === 'number'))),
        assigned,
        fieldName: (f) => `config.${f}`,
      });
      releases.push(() => taken.release());
      for (const f of fields) {
        ports[f] = taken.ports[f] as number;
        assigned.add(ports[f]);
      }
    }
  } catch (err) {
    await release();
    throw err;
  }
  return { ports, release };
}

/** Creates the group and its roles (not started: they start when the group joins a network); returns the group's id. */
export function createLedgerXOrdererGroup(input: CommandInput, req: LedgerXOrdererGroupRequest): Promise<number> {
  return oneAtATime(input.deps.pool, () => recordGroup(input, req));
}
