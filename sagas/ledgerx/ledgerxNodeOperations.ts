// The ledgerX platform's node operations for the lifecycle saga and the health monitor. A role
// node (router, batcher, consenter, assembler) is one `arma` process, started with its MSP and
// TLS material from the organization's keys and its group's genesis block, healthy when its
// monitoring port's /healthz answers. The group node runs no process of its own: its start asks
// each role to start (StartNode on the role's stream), in Fabric-X's order, waiting for each;
// its stop stops them in reverse; it is running when all four are. The ordered start that waits
// for each role is application/ledgerx/ledgerxOrdererGroupStart.ts (a saga cannot await events
// it handles itself).
import type { ConsortiumCredentials } from '../../domain/consortium/consortiumPorts.ts';
import type { ConsortiumNodeCreatedData } from '../../domain/consortium/consortiumNode.ts';
import type { NodeOperations, NodeOperationsFor } from '../../domain/nodes/nodeOperations.ts';
import type { EventStore } from '../../domain/shared/eventStore.ts';
import { handleCommand, loadState } from '../../domain/shared/commandHandler.ts';
import { nodeAggregate, nodeStream, type NodeCommand } from '../../domain/nodes/node.ts';
import { NodeStartFailedError } from '../../domain/nodes/nodeEngine.ts';
import { LEDGERX_COMMITTER_START_ORDER, LEDGERX_ORDERER_START_ORDER, type LedgerXCommitterDatabase, type LedgerXCommitterGroupCreatedData, type LedgerXCommitterRoleNodeCreatedData, type LedgerXOrdererGroupCreatedData, type LedgerXRoleNodeCreatedData } from '../../domain/ledgerx/ledgerxNode.ts';
import type { LedgerXRuntime } from '../../domain/ledgerx/ledgerxPorts.ts';

export interface LedgerXOperationsDeps {
  store: EventStore;
  runtime: LedgerXRuntime;
  credentials: ConsortiumCredentials;
  newId: () => string;
  /**
   * Where the committer group's services reach its database and with which password: a database
   * given at creation as recorded, its password opened from its sealed form; one the service made,
   * at the service's PostgreSQL as it is now (an embedded one moves to another port at each start,
   * and a restored one has the role without its password until this sets it).
   */
  committerDatabaseAccess: (groupId: number, database: LedgerXCommitterDatabase) => Promise<{ host: string; port: number; password: string }>;
  /** Drops a deleted committer's database and user (made at its creation). */
  dropCommitterDatabase: (database: { name: string; user: string }) => Promise<void>;
}

export function ledgerXNodeOperations(deps: LedgerXOperationsDeps): NodeOperationsFor {
  const { store, runtime, credentials } = deps;
  // Healthy is the probe's word; the height is a bonus that may fail on its own (as for Fabric's
  // ledger readings): the highest height among the roles that export one, null when none does.
  const heightOf = async (nodes: (LedgerXRoleNodeCreatedData | LedgerXCommitterRoleNodeCreatedData)[], timeoutMs: number): Promise<number | null> => {
    const heights = await Promise.all(nodes.map((n) => runtime.blockHeight(n, timeoutMs).catch(() => null)));
    const known = heights.filter((h): h is number => h !== null);
    return known.length ? Math.max(...known) : null;
  };

  async function command(c: NodeCommand) {
    await handleCommand(store, nodeStream(c.nodeId), nodeAggregate, c, { metadata: { timestamp: new Date().toISOString(), actor: null }, newId: deps.newId });
  }

  function groupOperations(group: LedgerXOrdererGroupCreatedData | LedgerXCommitterGroupCreatedData): NodeOperations {
    const ids = group.config.roleNodeIds as Record<string, number>;
    const order: readonly string[] = group.nodeType === 'LEDGERX_COMMITTER' ? LEDGERX_COMMITTER_START_ORDER : LEDGERX_ORDERER_START_ORDER;
    const roles = async () => {
      const out: (LedgerXRoleNodeCreatedData | LedgerXCommitterRoleNodeCreatedData)[] = [];
      for (const role of order) {
        const { state } = await loadState(store, nodeStream(ids[role]), nodeAggregate);
        if (state.node && !state.deleted) out.push(state.node as LedgerXRoleNodeCreatedData | LedgerXCommitterRoleNodeCreatedData);
      }
      return out;
    };
    return {
      async start() {
        if (!(await runtime.readJoin(group.nodeId))) throw new NodeStartFailedError('invalid-spec', `${group.name} has not joined a network yet; join it to a network first.`, { nodeKey: `node-${group.nodeId}` });
        // Asked in Fabric-X's order; not awaited here: the roles' starts are events this saga
        // handles after this one (application/ledgerx/ledgerxOrdererGroupStart.ts awaits each).
        for (const role of order) await command({ type: 'StartNode', nodeId: ids[role], at: new Date().toISOString() });
        return { pid: null, containerId: null, startedAt: new Date().toISOString() };
      },
      async stop() {
        for (const role of [...order].reverse()) {
          await command({ type: 'StopNode', nodeId: ids[role], at: new Date().toISOString() }).catch(() => {});
        }
      },
      async remove(opts) {
        // Stopped here rather than awaited: the roles' own NodeDeleted come after this event (removing twice is a no-op).
        // Roles on a cluster: their claims go too when the operator asked (DELETE ...?deleteVolume=true).
        for (const n of await roles()) await runtime.remove(n, opts).catch(() => {});
        for (const role of order) await command({ type: 'DeleteNode', nodeId: ids[role], at: new Date().toISOString() }).catch(() => {});
        await runtime.removeJoin(group.nodeId);
        if (group.nodeType === 'LEDGERX_COMMITTER') {
          // Its services must have exited before PostgreSQL lets the database go.
          const database = (group as LedgerXCommitterGroupCreatedData).config.database;
          if (database.external) return;
          for (let i = 0; i < 10; i++) {
            try {
              await deps.dropCommitterDatabase(database);
              break;
            } catch {
              await new Promise((r) => setTimeout(r, 1000));
            }
          }
        }
      },
      async status() {
        const all = await roles();
        const states = await Promise.all(all.map(async (n) => [n.role, await runtime.status(n)] as const));
        const notRunning = states.filter(([, s]) => s.state !== 'running');
        if (!notRunning.length && all.length === order.length) return { state: 'running' };
        if (states.every(([, s]) => s.state === 'stopped')) return { state: 'stopped' };
        return { state: 'exited', reason: `not running: ${notRunning.map(([r, s]) => `${r} (${s.state}${s.reason ? `: ${s.reason}` : ''})`).join(', ')}` };
      },
      async probe(timeoutMs, opts) {
        const all = await roles();
        for (const n of all) {
          try {
            await runtime.live(n, timeoutMs);
          } catch (err) {
            throw new Error(`${n.role}: ${(err as Error).message}`);
          }
        }
        // The group's height: its assembler's or its sidecar's (the one role that keeps a ledger);
        // not asked between two ledger readings (the health monitor's nodeReadingIntervalSeconds).
        return { blockHeight: opts?.readings === false ? null : await heightOf(all, timeoutMs), peerCount: null };
      },
    };
  }

  return async (node) => {
    if (node.platform !== 'LEDGERX') return null;
    if (node.nodeType === 'LEDGERX_ORDERER_GROUP' || node.nodeType === 'LEDGERX_COMMITTER') return groupOperations(node as LedgerXOrdererGroupCreatedData | LedgerXCommitterGroupCreatedData);
    if (node.nodeType.startsWith('LEDGERX_COMMITTER_')) {
      const service = node as LedgerXCommitterRoleNodeCreatedData;
      return {
        start: async () => {
          const client = service.role === 'sidecar' ? await credentials.exportIdentity(service.config.clientKeyId) : null;
          const organization = client ? await credentials.organizationMsp(service.organizationId) : null;
          const database = service.config.role === 'vc' || service.config.role === 'query' ? await deps.committerDatabaseAccess(service.config.groupId, service.config.database) : null;
          const launched = database ? { ...service, config: { ...service.config, database: { ...service.config.database, host: database.host, port: database.port } } } : service;
          return runtime.startCommitter(launched, { databasePassword: database?.password ?? '', client: client && organization ? { organization, certPem: client.certificatePem, keyPem: client.privateKeyPem } : null });
        },
        stop: () => runtime.stop(service),
        // A service on a cluster: its claim goes too when the operator asked (?deleteVolume=true).
        remove: (opts) => runtime.remove(service, opts),
        status: () => runtime.status(service),
        probe: async (timeoutMs, opts) => {
          await runtime.live(service, timeoutMs);
          return { blockHeight: opts?.readings === false ? null : await heightOf([service], timeoutMs), peerCount: null };
        },
      };
    }
    const role = node as LedgerXRoleNodeCreatedData;
    return {
      start: async () => runtime.start(role, await credentials.nodeMaterial(role as unknown as ConsortiumNodeCreatedData)),
      stop: () => runtime.stop(role),
      remove: () => runtime.remove(role),
      status: () => runtime.status(role),
      probe: async (timeoutMs, opts) => {
        await runtime.live(role, timeoutMs);
        return { blockHeight: opts?.readings === false ? null : await heightOf([role], timeoutMs), peerCount: null };
      },
    };
  };
}
