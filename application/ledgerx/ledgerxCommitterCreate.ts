// Creating a ledgerX committer (LEDGERX_COMMITTER): its five service nodes (sidecar, coordinator,
// vc, verifier, query) with gRPC ports from a base (default 7350, +0..4) and monitoring ports
// from base + 100..104 (SPEC), and its database: a PostgreSQL user and database made in the
// service's own PostgreSQL (embedded or DATABASE_URL), password derived from the key encryption
// key (never stored or shown). The sidecar's client identity towards the orderers is the
// organization's admin key. Nothing starts here: the join gives the sidecar the channel's block.
// A failure part way deletes what was made (records, database, user).
import { runCommand, type CommandInput } from '../commands.ts';
import { recordMadeFor } from '../creations.ts';
import { createHash } from 'node:crypto';
import { ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import {
  committerRoleNodeType, LEDGERX_COMMITTER_GRPC_BASE, LEDGERX_COMMITTER_MONITORING_OFFSET, LEDGERX_COMMITTER_ROLES,
  ledgerXDatabasePasswordContext, type LedgerXCommitterDatabase, type LedgerXCommitterGroupConfig, type LedgerXCommitterRole,
} from '../../domain/ledgerx/ledgerxNode.ts';
import { checkNodeName, oneAtATime } from '../evm/evmNodeCreate.ts';
import { assertNodeKeysExportable } from '../consortium/consortiumNodeCreate.ts';
import { getOrganization } from '../../projections/organizations.ts';
import { resolveGroupPorts } from './ledgerxOrdererGroupCreate.ts';
import { ledgerXOf } from './ledgerxContext.ts';

export interface LedgerXCommitterRequest {
  name: string;
  organizationId: number | undefined;
  /** The ledgerX quick start's create: the committer is listed on it before it is made (application/creations.ts). */
  creationId?: number;
  config: Record<string, unknown> & { externalIp?: string; databaseUrl?: string; engine?: string };
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
const LAYOUT = { roles: LEDGERX_COMMITTER_ROLES, offsets: LEDGERX_COMMITTER_MONITORING_OFFSET, defaultBase: LEDGERX_COMMITTER_GRPC_BASE, noun: 'committer' };

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
  const externalIp = req.config.externalIp ?? '127.0.0.1';
  if (!IPV4.test(externalIp)) throw new ValidationError('config.externalIp must be an IPv4 address, such as 127.0.0.1.', [{ field: 'config.externalIp', message: 'must be an IPv4 address' }]);
  const ports = await resolveGroupPorts(input, req.config, LAYOUT);
  const given = req.config.databaseUrl === undefined ? null : await reachableDatabase(input, req.config.databaseUrl, 'config.databaseUrl');
  const groupId = await deps.nextId('node');
  const roleNodeIds = {} as Record<LedgerXCommitterRole, number>;
  for (const r of LEDGERX_COMMITTER_ROLES) roleNodeIds[r] = await deps.nextId('node');
  await recordMadeFor(input, req.creationId, 'node', groupId);
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
    const common = { platform: 'LEDGERX' as const, organizationId: org.id, mspId: org.mspId, networkId: null, client: 'fabric-x' as const, engine: req.config.engine === 'docker' || (req.config.engine === undefined && ledgerXOf(deps).engine === 'docker') ? ('docker' as const) : ('process' as const), resources: null, at };
    const groupPorts = Object.fromEntries(LEDGERX_COMMITTER_ROLES.map((r) => [r, ports[`${r}Port`]])) as Record<LedgerXCommitterRole, number>;
    for (const r of LEDGERX_COMMITTER_ROLES) {
      await runCommand(input, nodeStream(roleNodeIds[r]), nodeAggregate, {
        type: 'CreateNode', nodeId: roleNodeIds[r], name: `${req.name}-${r}`, nodeType: committerRoleNodeType(r), role: r, ...common,
        config: { groupId, role: r, externalIp, grpcPort: ports[`${r}Port`], monitoringPort: ports[`${r}MonitoringPort`], groupPorts, database, clientKeyId: org.adminKeyId },
      });
      made.push(roleNodeIds[r]);
    }
    await runCommand(input, nodeStream(groupId), nodeAggregate, {
      type: 'CreateNode', nodeId: groupId, name: req.name, nodeType: 'LEDGERX_COMMITTER', role: 'committer', ...common,
      config: { externalIp, ...(ports as unknown as Omit<LedgerXCommitterGroupConfig, 'externalIp' | 'roleNodeIds' | 'database'>), database, roleNodeIds },
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
