// Creating a ledgerX committer (LEDGERX_COMMITTER): its five service nodes (sidecar, coordinator,
// vc, verifier, query) with gRPC ports from a base (default 7350, +0..4) and monitoring ports
// from base + 100..104 (SPEC), and its database: a PostgreSQL user and database made in the
// service's own PostgreSQL (embedded or DATABASE_URL), password derived from the key encryption
// key (never stored or shown). The sidecar's client identity towards the orderers is the
// organization's admin key. Nothing starts here: the join gives the sidecar the channel's block.
// A failure part way deletes what was made (records, database, user).
//
// On a registered Kubernetes cluster (config.hostId; docs/kubernetes.md) each service is a pod of
// the cluster (kubernetesEngine.ts, image fabric-x-committer), as an orderer group's roles are:
// the same placement checks (reachable, namespace, permissions, room for five), NodePorts of the
// cluster's range (default gRPC base 32350, monitoring base + 100..104) taken there before the
// committer is recorded, and the services reach one another at the cluster's node address. Its
// vc and query pods must reach its database: a database at a loopback address (the service's own
// embedded PostgreSQL, a databaseUrl at 127.0.0.1 or localhost) is one they cannot reach, a 400
// DATABASE_UNREACHABLE_FROM_CLUSTER before anything is made.
import { runCommand, type CommandInput } from '../commands.ts';
import { recordMadeFor } from '../creations.ts';
import { createHash } from 'node:crypto';
import { ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import {
  committerRoleNodeType, isLoopbackHost, LEDGERX_COMMITTER_CLUSTER_GRPC_BASE, LEDGERX_COMMITTER_GRPC_BASE, LEDGERX_COMMITTER_MONITORING_OFFSET, LEDGERX_COMMITTER_ROLES,
  ledgerXDatabasePasswordContext, type LedgerXCommitterDatabase, type LedgerXCommitterGroupConfig, type LedgerXCommitterRole,
} from '../../domain/ledgerx/ledgerxNode.ts';
import { checkNodeName, oneAtATime } from '../evm/evmNodeCreate.ts';
import { assertNodeKeysExportable } from '../consortium/consortiumNodeCreate.ts';
import { getOrganization } from '../../projections/organizations.ts';
import { resolveGroupPorts, takeRolePorts } from './ledgerxOrdererGroupCreate.ts';
import { placeNode, takesNodePorts } from '../hosts/hostPlacement.ts';
import type { NodeHostRow } from '../../projections/nodeHosts.ts';
import { ledgerXOf } from './ledgerxContext.ts';

export interface LedgerXCommitterRequest {
  name: string;
  organizationId: number | undefined;
  /** The ledgerX quick start's create: the committer is listed on it before it is made (application/creations.ts). */
  creationId?: number;
  config: Record<string, unknown> & { externalIp?: string; databaseUrl?: string; engine?: string; hostId?: number };
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
const LAYOUT = { roles: LEDGERX_COMMITTER_ROLES, offsets: LEDGERX_COMMITTER_MONITORING_OFFSET, defaultBase: LEDGERX_COMMITTER_GRPC_BASE, clusterBase: LEDGERX_COMMITTER_CLUSTER_GRPC_BASE, noun: 'committer' };

/**
 * The committer's services on a cluster reach its database from their pods: at a loopback
 * address they would reach the pod itself, never this machine. A 400 saying what is needed.
 */
export function assertDatabaseReachableFromCluster(host: Pick<NodeHostRow, 'name' | 'externalIp'>, database: { host: string; port: number }, given: boolean): void {
  if (!isLoopbackHost(database.host)) return;
  const whose = given ? `config.databaseUrl names ${database.host}:${database.port}` : `the service's own PostgreSQL, where a committer's database is made when config.databaseUrl is left out, is at ${database.host}:${database.port} (DATABASE_URL, or the embedded one)`;
  throw new ValidationError(
    `The committer's vc and query services on cluster ${host.name} cannot reach its database: ${whose}, a loopback address, which from a pod is the pod itself. Give config.databaseUrl at an address the cluster's pods reach (such as this machine's address on the cluster's network, ${host.externalIp} for a cluster whose node is this machine), where PostgreSQL listens and admits the pods' network with a password, or run the service with DATABASE_URL at such an address.`,
    [{ field: 'config.databaseUrl', message: 'not reachable from the cluster\'s pods (a loopback address)' }],
    'DATABASE_UNREACHABLE_FROM_CLUSTER',
  );
}

/**
 * The committer's database and user in the service's own PostgreSQL, named from the service's
 * database (several services may share one cluster, each counting node ids from 1) and the node
 * id: no user text reaches the SQL.
 */
async function dbName(input: CommandInput, groupId: number): Promise<string> {
  const own = (await input.deps.pool.query<{ db: string }>('SELECT current_database() AS db')).rows[0].db;
  return `lnm_ledgerx_${createHash('sha256').update(own).digest('hex').slice(0, 8)}_committer_${groupId}`;
}

/** A role or database of that name already in the cluster (left by another service or a restore): a 409, not a 500. */
function alreadyThere(err: unknown, name: string): never {
  const code = (err as { code?: string }).code;
  if (code === '42710' || code === '42P04') {
    throw new ConflictError(`PostgreSQL already has a ${code === '42710' ? 'role' : 'database'} named ${name}; drop it or give the committer its own database with config.databaseUrl.`, undefined, 'COMMITTER_DATABASE_EXISTS');
  }
  throw err;
}

async function recordCommitter(input: CommandInput, req: LedgerXCommitterRequest): Promise<number> {
  const { deps } = input;
  const ledgerx = ledgerXOf(deps);
  await checkNodeName(input, req.name);
  for (const r of LEDGERX_COMMITTER_ROLES) await checkNodeName(input, `${req.name}-${r}`);
  if (req.organizationId === undefined) throw new ValidationError('A committer belongs to an organization: organizationId is required.', [{ field: 'organizationId', message: 'is required' }]);
  const org = await getOrganization(deps.pool, req.organizationId);
  if (!org) throw new ValidationError(`Organization ${req.organizationId} does not exist.`, [{ field: 'organizationId', message: 'no such organization' }]);
  await assertNodeKeysExportable(input, org);
  if (!org.adminKeyId) throw new ValidationError(`Organization ${org.mspId} has no admin key for the sidecar's client identity.`, [{ field: 'organizationId', message: 'no admin key' }]);
  // Five pods of a cluster: its placement checks (reachable, namespace, permissions, room for five).
  const host = req.config.hostId !== undefined ? await placeNode(input, { hostId: req.config.hostId }, req.config.engine as 'docker' | undefined, { allowed: true }, { nodes: LEDGERX_COMMITTER_ROLES.length }) : null;
  if (host && host.kind !== 'kubernetes') throw new ValidationError(`Host ${host.name} is a Docker host: a ledgerX committer runs on this machine or on a registered Kubernetes cluster.`, [{ field: 'config.hostId', message: 'not a Kubernetes cluster' }], 'HOST_KIND_UNSUPPORTED');
  if (host && req.config.externalIp !== undefined) throw new ValidationError(`Committer ${req.name} is placed on cluster ${host.name}, where its services are reached at the cluster's node address (${host.externalIp}); leave out config.externalIp.`, [{ field: 'config.externalIp', message: 'not with a cluster' }]);
  const externalIp = host ? host.externalIp : (req.config.externalIp ?? '127.0.0.1');
  if (!IPV4.test(externalIp)) throw new ValidationError('config.externalIp must be an IPv4 address, such as 127.0.0.1.', [{ field: 'config.externalIp', message: 'must be an IPv4 address' }]);
  const resolved = await resolveGroupPorts(input, req.config, LAYOUT, takesNodePorts(host));
  const given = req.config.databaseUrl === undefined ? null : await reachableDatabase(input, req.config.databaseUrl, 'config.databaseUrl');
  if (host) assertDatabaseReachableFromCluster(host, given ?? ledgerx.database, given !== null);
  const groupId = await deps.nextId('node');
  const roleNodeIds = {} as Record<LedgerXCommitterRole, number>;
  for (const r of LEDGERX_COMMITTER_ROLES) roleNodeIds[r] = await deps.nextId('node');
  const { ports, release } = await takeRolePorts(input, host, LEDGERX_COMMITTER_ROLES, roleNodeIds, resolved, req.config);
  const placed = host ? { hostId: host.id } : {};
  try {
    await recordMadeFor(input, req.creationId, 'node', groupId);
    return await recordOn(input, req, { org, externalIp, ports, given, groupId, roleNodeIds, placed, onCluster: !!host });
  } catch (err) {
    await release();
    throw err;
  }
}

interface CommitterRecord {
  org: NonNullable<Awaited<ReturnType<typeof getOrganization>>>;
  externalIp: string;
  ports: Record<string, number>;
  given: Awaited<ReturnType<typeof reachableDatabase>> | null;
  groupId: number;
  roleNodeIds: Record<LedgerXCommitterRole, number>;
  placed: { hostId?: number };
  onCluster: boolean;
}

/** The database (made, or given) and the six node records; a failure part way removes what it made. */
async function recordOn(input: CommandInput, req: LedgerXCommitterRequest, r: CommitterRecord): Promise<number> {
  const { deps } = input;
  const ledgerx = ledgerXOf(deps);
  const { org, externalIp, ports, given, groupId, roleNodeIds, placed } = r;
  const database: LedgerXCommitterDatabase = given
    ? { host: given.host, port: given.port, name: given.name, user: given.user, external: true, sealedPassword: await deps.secrets.seal(given.password, ledgerXDatabasePasswordContext(groupId)) }
    : await (async () => { const n = await dbName(input, groupId); return { host: ledgerx.database.host, port: ledgerx.database.port, name: n, user: n }; })();
  if (!given) {
    const password = ledgerx.committerDatabasePassword(groupId).replace(/'/g, "''");
    await deps.pool.query(`CREATE ROLE ${database.user} LOGIN PASSWORD '${password}'`).catch((e) => alreadyThere(e, database.user));
  }
  const made: number[] = [];
  let databaseMade = false;
  try {
    if (!given) {
      await deps.pool.query(`CREATE DATABASE ${database.name} OWNER ${database.user}`).catch((e) => alreadyThere(e, database.name));
      databaseMade = true;
    }
    const at = deps.clock().toISOString();
    const docker = r.onCluster || req.config.engine === 'docker' || (req.config.engine === undefined && ledgerx.engine === 'docker');
    const common = { platform: 'LEDGERX' as const, organizationId: org.id, mspId: org.mspId, networkId: null, client: 'fabric-x' as const, engine: docker ? ('docker' as const) : ('process' as const), resources: null, at };
    const groupPorts = Object.fromEntries(LEDGERX_COMMITTER_ROLES.map((r) => [r, ports[`${r}Port`]])) as Record<LedgerXCommitterRole, number>;
    for (const r of LEDGERX_COMMITTER_ROLES) {
      await runCommand(input, nodeStream(roleNodeIds[r]), nodeAggregate, {
        type: 'CreateNode', nodeId: roleNodeIds[r], name: `${req.name}-${r}`, nodeType: committerRoleNodeType(r), role: r, ...common,
        config: { groupId, role: r, externalIp, grpcPort: ports[`${r}Port`], monitoringPort: ports[`${r}MonitoringPort`], groupPorts, database, clientKeyId: org.adminKeyId!, ...placed },
      });
      made.push(roleNodeIds[r]);
    }
    await runCommand(input, nodeStream(groupId), nodeAggregate, {
      type: 'CreateNode', nodeId: groupId, name: req.name, nodeType: 'LEDGERX_COMMITTER', role: 'committer', ...common,
      config: { externalIp, ...(ports as unknown as Omit<LedgerXCommitterGroupConfig, 'externalIp' | 'roleNodeIds' | 'database'>), database, roleNodeIds, ...placed },
    });
  } catch (err) {
    for (const id of made) await runCommand(input, nodeStream(id), nodeAggregate, { type: 'DeleteNode', nodeId: id, at: deps.clock().toISOString() }).catch(() => {});
    if (!given) {
      // Only what this creation made: a database of that name that was already there is not ours.
      if (databaseMade) await deps.pool.query(`DROP DATABASE IF EXISTS ${database.name}`).catch(() => {});
      await deps.pool.query(`DROP ROLE IF EXISTS ${database.user}`).catch(() => {});
    }
    throw err;
  }
  return groupId;
}

/** postgres://user:password@host:port/database (postgresql:// too); the password is kept apart and never echoed. */
function parseDatabaseUrl(text: string, field: string): { host: string; port: number; name: string; user: string; password: string } {
  const bad = (why: string) => new ValidationError(`${field} must be a PostgreSQL connection string postgres://user:password@host:port/database: ${why}.`, [{ field, message: why }]);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw bad('it is not a URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') throw bad('the scheme is not postgres');
  const user = decodeURIComponent(url.username);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!user) throw bad('it names no user');
  if (!url.password) throw bad('it has no password');
  if (!url.hostname) throw bad('it names no host');
  if (!name || name.includes('/')) throw bad('it names no database');
  if ([...url.searchParams.keys()].some((k) => k !== 'sslmode') || ![null, 'disable'].includes(url.searchParams.get('sslmode'))) throw bad('the only option taken is sslmode=disable (the committer connects without TLS)');
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port ? Number(url.port) : 5432, name, user, password: decodeURIComponent(url.password) };
}

/** The database of a connection string, once the service connected to it with those credentials; a 400 saying why not (never with the password). */
export async function reachableDatabase(input: CommandInput, url: string, field: string) {
  const given = parseDatabaseUrl(url, field);
  const why = await ledgerXOf(input.deps).checkDatabase(given);
  if (why !== null) throw new ValidationError(`The committer's database ${given.user}@${given.host}:${given.port}/${given.name} (${field}) cannot be reached: ${why}`, [{ field, message: 'cannot be reached' }]);
  return given;
}

export function createLedgerXCommitter(input: CommandInput, req: LedgerXCommitterRequest): Promise<number> {
  return oneAtATime(input.deps.pool, () => recordCommitter(input, req));
}
