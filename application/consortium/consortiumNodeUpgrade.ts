// A rolling upgrade of one consortium node to another Fabric release (POST /nodes/{id}/upgrade,
// issue 37 item 7): the node is stopped, its recorded release (config.fabricVersion) switched, and
// started again through the node lifecycle from the new release's programs. Its directory, ledger
// and data are kept: the launch writes core.yaml / orderer.yaml afresh from the new release's own
// defaults with the node's settings (fabricReleases.ts), so keys 3.x dropped (orderer.yaml's
// General.BootstrapMethod, Kafka) or added (General.Backoff, Throttling) take the new release's
// values. The upgrade then waits until the node is healthy (its /healthz) and caught up (for
// every channel it joined, its ledger height is at least the highest of the channel's other
// running nodes), and answers the steps and heights.
//
// A docker node (this machine's Docker, a node host's, or a cluster's pod) runs its release's
// image (lnm-fabric-peer:<version>): its container is removed and made again from the new
// release's image on the same bind-mounted directory (a host: the same volume; a cluster: the
// StatefulSet's template replaced, the same claim), so its ledger is kept as well.
//
// Checked first, nothing done on a refusal: a node that records its release (a docker node run
// from the configured image records none: 400), a release found for its engine (process: the
// programs; docker: the release images there) and newer than the node's
// (400; the same one: 409), the node running, every other node of its channels running (one node
// down at a time: 409 naming those that are not), and no other upgrade under way on any server
// of this database (a PostgreSQL advisory lock held for the whole upgrade: 409). A new release
// that does not start, or does not become healthy and caught up in time, is rolled back: the old
// release recorded and started again, and the upgrade answers 409 UPGRADE_FAILED with the reason.
// Recorded as the node's NodeConfigChanged (audited with fabricVersion before and after) between
// its stop and start events.
import { runCommand, type CommandInput } from '../commands.ts';
import { ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { loadState } from '../../domain/shared/commandHandler.ts';
import type { ConsortiumLedgerReadings, ConsortiumNodeTarget } from '../../domain/consortium/consortiumPorts.ts';
import { consortiumNetworkMembers, nodeNetworks } from '../../projections/consortium/consortiumNetworks.ts';
import { getNode, listNodes, type NodeRow } from '../../projections/nodes.ts';
import { awaitSettled } from '../evm/evmNodeCreate.ts';
import { consortiumOf } from './consortiumContext.ts';
import { consortiumNodeOr404 } from './consortiumChannelAccess.ts';
import type { AppDeps } from '../deps.ts';

export interface NodeUpgraded {
  node: NodeRow;
  fromVersion: string;
  toVersion: string;
  /** What was done, in order. */
  steps: string[];
  /** Per channel the node joined: its ledger height and the channel's (the highest of its other running nodes) when it caught up. */
  channels: Array<{ channelName: string; height: number; channelHeight: number }>;
}

/** Advisory lock key of the one upgrade at a time (any server of the database). */
const UPGRADE_LOCK = 'lnm:consortium-node-upgrade';
/** The node this server is upgrading, to name it in a refusal (another server's is only "another node"). */
let upgrading: string | null = null;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function numericVersion(v: string): number[] {
  return v.split(/[.-]/).map((p) => Number.parseInt(p, 10) || 0);
}
function newer(a: string, b: string): boolean {
  const [x, y] = [numericVersion(a), numericVersion(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return false;
}

async function targetOf(deps: AppDeps, nodeId: number): Promise<ConsortiumNodeTarget> {
  const { state } = await loadState(deps.store, nodeStream(nodeId), nodeAggregate);
  const record = state.node as unknown as ConsortiumNodeTarget['node'];
  return { node: record, organization: { organizationId: record.organizationId, name: record.mspId, mspId: record.mspId } };
}

/** The other nodes of the channels the node joined, with their rows. */
async function channelPeers(deps: AppDeps, node: NodeRow) {
  const networks = (await nodeNetworks(deps.pool, node.id)).filter((n) => n.joinedAt !== null);
  const out: Array<{ channelName: string; others: NodeRow[] }> = [];
  for (const n of networks) {
    const members = (await consortiumNetworkMembers(deps.pool, n.networkId)).filter((m) => m.joinedAt !== null && m.nodeId !== node.id);
    const rows = members.length ? (await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: members.map((m) => m.nodeId) })).items : [];
    out.push({ channelName: n.channelName, others: rows });
  }
  return out;
}

const heightIn = (readings: ConsortiumLedgerReadings | null, channel: string) => readings?.channels.find((c) => c.channel === channel)?.blockHeight ?? null;

/** Waits until the node answers healthy and, on each of its channels, has the height of the channel's highest other running node. */
async function awaitCaughtUp(deps: AppDeps, nodeId: number, channels: Array<{ channelName: string; others: NodeRow[] }>, timeoutMs: number) {
  const runtime = consortiumOf(deps).runtime;
  const target = await targetOf(deps, nodeId);
  const deadline = Date.now() + timeoutMs;
  let last = 'not probed yet';
  for (;;) {
    const row = await getNode(deps.pool, nodeId);
    if (row?.status === 'error') throw new Error(`the node failed to start: ${row.error ?? 'no reason recorded'}`);
    try {
      await runtime.live(target, 2000);
      const own = await runtime.ledgers(target, 2000);
      const result: NodeUpgraded['channels'] = [];
      for (const c of channels) {
        let channelHeight = 0;
        for (const other of c.others.filter((o) => o.status === 'running')) {
          const h = heightIn(await runtime.ledgers(await targetOf(deps, other.id), 2000).catch(() => null), c.channelName);
          if (h !== null) channelHeight = Math.max(channelHeight, h);
        }
        const height = heightIn(own, c.channelName);
        if (height === null || height < channelHeight) throw new Error(`channel ${c.channelName}: height ${height ?? 'not reported yet'}, the channel's ${channelHeight}`);
        result.push({ channelName: c.channelName, height, channelHeight });
      }
      return result;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`not healthy and caught up within ${Math.round(timeoutMs / 1000)} s (${last})`);
    await sleep(1000);
  }
}

async function switchRelease(input: CommandInput, nodeId: number, fabricVersion: string) {
  const { deps } = input;
  await runCommand(input, nodeStream(nodeId), nodeAggregate, { type: 'StopNode', nodeId, at: deps.clock().toISOString() });
  const stopped = await awaitSettled(input, nodeId);
  if (stopped?.status !== 'stopped') throw new Error(`the node did not stop (${stopped?.status ?? 'gone'})`);
  await runCommand(input, nodeStream(nodeId), nodeAggregate, { type: 'UpdateNodeConfig', nodeId, config: { fabricVersion }, at: deps.clock().toISOString() });
  await runCommand(input, nodeStream(nodeId), nodeAggregate, { type: 'StartNode', nodeId, at: deps.clock().toISOString() });
  return awaitSettled(input, nodeId);
}

export async function upgradeConsortiumNode(input: CommandInput, nodeId: number, fabricVersion: string, opts: { timeoutMs?: number } = {}): Promise<NodeUpgraded> {
  const { deps } = input;
  const node = await consortiumNodeOr404(deps, nodeId);
  const c = node.consortiumConfig;
  // Process engine: the releases whose programs this service finds; docker engine and node hosts:
  // those with release images there (lnm-fabric-peer:<version>), the container or pod replaced by
  // one of the new release's image on the same directory, volume or claim.
  const image = node.engine !== 'process' || !!c?.hostId;
  const runtime = consortiumOf(deps).runtime;
  const available = image ? await runtime.imageReleases(c?.hostId ?? undefined) : (await runtime.releases()).map((r) => r.version);
  if (!available.includes(fabricVersion)) {
    const where = image ? `release images (lnm-fabric-peer:<version> and lnm-fabric-orderer:<version>) on ${c?.hostId ? `node host ${c.hostId}` : 'the Docker host'}` : 'the releases this service finds';
    throw new ValidationError(`Fabric ${fabricVersion} is not among the ${where}: ${available.join(', ') || 'none'}.`, [{ field: 'fabricVersion', message: 'not found' }]);
  }
  const from = c?.fabricVersion;
  if (!from) {
    throw new ValidationError(
      image
        ? `Node ${node.name} records no Fabric release: it runs the configured image (LNM_IMAGE_FABRIC_PEER, LNM_IMAGE_FABRIC_ORDERER), whose release this service does not know, so it cannot switch it. Nodes created with a release image (config.fabricVersion) are upgraded.`
        : `Node ${node.name} records no Fabric release (made before releases were recorded): nothing says which release it runs now.`,
      [{ field: 'id', message: 'no recorded release' }],
      'UPGRADE_NO_RELEASE',
    );
  }
  if (from === fabricVersion) throw new ConflictError(`Node ${node.name} runs Fabric ${fabricVersion} already.`, { fabricVersion }, 'UPGRADE_SAME_RELEASE');
  if (!newer(fabricVersion, from)) throw new ValidationError(`Fabric ${fabricVersion} is older than the node's ${from}: a node is never downgraded (its ledger may hold what an older release cannot read).`, [{ field: 'fabricVersion', message: `older than ${from}` }]);
  if (node.status !== 'running') throw new ConflictError(`Node ${node.name} is ${node.status}: an upgrade starts from a running node (it waits for the node to catch up with its channels).`, { status: node.status }, 'NODE_NOT_RUNNING');

  const client = await deps.pool.connect();
  try {
    const locked = (await client.query('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [UPGRADE_LOCK])).rows[0].ok as boolean;
    if (!locked) {
      throw new ConflictError(`Another node upgrade is in progress${upgrading ? ` (${upgrading})` : ''}: one node is down at a time. Retry once it has finished.`, { inProgress: upgrading }, 'UPGRADE_IN_PROGRESS');
    }
    upgrading = `node ${node.name}, Fabric ${from} to ${fabricVersion}`;
    try {
      const channels = await channelPeers(deps, node);
      const down = [...new Map(channels.flatMap((ch) => ch.others).filter((o) => o.status !== 'running').map((o) => [o.id, o])).values()];
      if (down.length) {
        throw new ConflictError(`One node down at a time: ${down.map((o) => `${o.name} (${o.status})`).join(', ')} of ${node.name}'s channels ${down.length > 1 ? 'are' : 'is'} not running; start ${down.length > 1 ? 'them' : 'it'} before upgrading another node.`, { nodes: down.map((o) => ({ node_id: o.id, name: o.name, status: o.status })) }, 'NODES_DOWN');
      }
      const steps: string[] = [];
      const timeoutMs = opts.timeoutMs ?? 180_000;
      try {
        await switchRelease(input, node.id, fabricVersion);
        steps.push(`stopped; release switched from Fabric ${from} to ${fabricVersion} (data directory kept); started`);
        const caught = await awaitCaughtUp(deps, node.id, channels, timeoutMs);
        steps.push(`healthy and caught up: ${caught.map((x) => `${x.channelName} at height ${x.height} (channel ${x.channelHeight})`).join(', ') || 'no channel joined'}`);
        return { node: (await getNode(deps.pool, node.id))!, fromVersion: from, toVersion: fabricVersion, steps, channels: caught };
      } catch (err) {
        // Rolled back: the node runs its old release again (its data was never touched by a release that did not start).
        const reason = (err as Error).message;
        const rolledBack = await switchRelease(input, node.id, from).then((r) => r?.status ?? 'unknown', (e: Error) => `not restarted: ${e.message}`);
        throw new ConflictError(`Upgrading ${node.name} to Fabric ${fabricVersion} failed: ${reason}. Rolled back to Fabric ${from} (node ${rolledBack}).`, { fabricVersion, rolledBackTo: from, nodeStatus: rolledBack }, 'UPGRADE_FAILED');
      }
    } finally {
      upgrading = null;
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [UPGRADE_LOCK]).catch(() => undefined);
    }
  } finally {
    client.release();
  }
}
