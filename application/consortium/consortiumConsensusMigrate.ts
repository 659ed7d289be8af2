// A consortium network's channel migrated from etcdraft to SmartBFT (POST
// /networks/consortium/{id}/consensus/migrate, issue 37 item 7), as Fabric 3.x's
// raft_bft_migration prescribes, for every channel whose orderers this network's orderers are
// (Fabric: all channels of an orderer migrate in the same maintenance window):
//   1 maintenance   each channel's ConsensusType State to STATE_MAINTENANCE (nothing else changed)
//   2 backup        every orderer stopped, its data directory (ledger, WAL, snapshots) copied aside, started
//                   (on a Docker node host: read out of its volume through the host's engine; put back at
//                   the restart of a rollback, the volume emptied first; on a Kubernetes cluster: read out
//                   of its claim by a helper pod, written back into the stopped orderer's claim by one at
//                   the rollback: runtime.backupData/restoreData)
//   3 switch        each channel: Type BFT, every SmartBFT option, ConsenterMapping of the same consenters
//                   (TLS certificates as the raft metadata holds them, identities from the orderers'
//                   records), BlockValidation by a BFT quorum of those identities (still in maintenance)
//   4 restart       once every orderer holds each channel's switch block, every orderer restarted: it starts the channels as BFT
//   5 normal        each channel back to STATE_NORMAL through the BFT consenters (proves they order),
//                   the network recorded as smartbft (NetworkConsensusMigrated, audited); backups dropped
// A failure before phase 5 completes restores the backups (orderers stopped, data put back,
// started: raft in maintenance), rolls back each peer past the restored chain (it may hold the
// switch block: `peer node rollback`, rollbackPeers), leaves maintenance on raft and answers 409
// MIGRATION_FAILED naming the phase (and any peer it could not roll back). A rollback that did
// not complete (or was cut off by its server's death) is taken up again by the next POST
// (resumeRollback). Checked first, nothing
// done on a refusal (rules named in the message):
//   migration-target       to is smartbft (400)
//   migration-from-raft    the network is etcdraft (409)
//   migration-engine       every orderer on this machine (process or docker engine), a registered Docker
//                          node host or a registered Kubernetes cluster (400 naming those on a host that is not)
//   migration-v3-nodes     every orderer and peer of the channels on Fabric 3.x (409 naming the others)
//   migration-bft-size     at least 4 consenters, n = 3f + 1 with f >= 1 faults tolerated (400)
//   migration-v3-capability  channel capability V3_0 on every channel (409)
//   migration-state        every channel etcdraft in STATE_NORMAL, every orderer running (409)
// One at a time on any server of the database (a PostgreSQL advisory lock: 409 MIGRATION_IN_PROGRESS).
// Progress is recorded as events as it goes (domain/consortium/consensusMigration.ts: started,
// each phase, each step, failed or completed; audited): migrationProgress(deps, networkId) answers
// the same on every server of the database, after a restart too; a server that died mid-way leaves
// a `running` record whose phase says where it stopped.
// Resume: a migration that stopped in phase normal (failed after some channel left maintenance on
// BFT, the backups kept; or its server died there) is finished by the next POST .../migrate of any
// of its networks: the remaining channels leave maintenance through the BFT orderers and are
// recorded as smartbft.
import { runCommand, type CommandInput } from '../commands.ts';
import type { AppDeps } from '../deps.ts';
import { ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import { nodeAggregate, nodeStream } from '../../domain/nodes/node.ts';
import { loadState } from '../../domain/shared/commandHandler.ts';
import { CONSORTIUM_NETWORKS_STREAM, consortiumNetworks } from '../../domain/consortium/consortiumNetwork.ts';
import { CONSENSUS_MIGRATIONS_STREAM, consensusMigrations, latestMigration, resumable, rollbackResumable, type MigrationChannel, type MigrationPhase, type MigrationProgress } from '../../domain/consortium/consensusMigration.ts';
import type { ConsortiumConsensus, ConsortiumNodeTarget, SmartBftOptions } from '../../domain/consortium/consortiumPorts.ts';
import type { ChannelConfigChange, ChannelConfigJson, ConfigDiffEntry } from '../../domain/consortium/consortiumChannelPorts.ts';
import { bftFaultsTolerated, MIN_BFT_CONSENTERS, SMARTBFT_DEFAULTS } from '../../domain/consortium/consortiumDefaults.ts';
import { smartBftOptionIssues } from '../../domain/consortium/smartBftOptions.ts';
import { releaseAtLeast, V3_CAPABILITY, V3_MIN_RELEASE } from '../../domain/consortium/capabilityRules.ts';
import { consortiumNetworkMembers, getConsortiumNetwork, listConsortiumNetworks, type ConsortiumNetworkRow } from '../../projections/consortium/consortiumNetworks.ts';
import { getNode, listNodes, type NodeRow } from '../../projections/nodes.ts';
import { getNodeHost } from '../../projections/nodeHosts.ts';
import { awaitSettled } from '../evm/evmNodeCreate.ts';
import { consortiumOf } from './consortiumContext.ts';
import { adminEndpoint, consortiumNetworkOr404, orderingOrderer } from './consortiumChannelAccess.ts';
import { previewConfigChange, submitConfigChange } from './consortiumConfigChange.ts';
import { identityCertificateOf } from './consortiumNetworkCreate.ts';

export type { MigrationPhase, MigrationProgress };

export interface ConsensusMigrated {
  status: 'migrated' | 'dry_run';
  from: ConsortiumConsensus;
  to: ConsortiumConsensus;
  /** Every network migrated together (those sharing the orderers), with the config sequence after the last update (dry run: now). */
  networks: Array<{ networkId: number; name: string; channelName: string; sequence: number; diff: ConfigDiffEntry[] }>;
  orderers: Array<{ nodeId: number; name: string }>;
  steps: string[];
}

const MIGRATION_LOCK = 'lnm:consortium-consensus-migration';
const BACKUP_LABEL = 'raft-to-bft';
/** The step a rollback records before it puts the first backup back: from then on, a data directory may be partly replaced. */
const RESTORING_STEP = 'rollback: putting the backups back';
/** The last migration of the network (running or ended), as recorded in the event store: what GET .../consensus/migration answers on every server. */
export async function migrationProgress(deps: AppDeps, networkId: number): Promise<MigrationProgress | null> {
  const { state } = await loadState(deps.store, CONSENSUS_MIGRATIONS_STREAM, consensusMigrations);
  return latestMigration(state, networkId);
}

/** Records the migration's progress as it goes (each a command on the migrations stream, audited) and keeps the steps for the answer. */
function recorder(input: CommandInput, migration: MigrationProgress) {
  const at = () => input.deps.clock().toISOString();
  const id = migration.migrationId;
  return {
    progress: migration,
    async phase(phase: MigrationPhase) {
      migration.phase = phase;
      await runCommand(input, CONSENSUS_MIGRATIONS_STREAM, consensusMigrations, { type: 'RecordMigrationPhase', migrationId: id, phase, at: at() });
    },
    async step(step: string) {
      migration.steps.push(step);
      await runCommand(input, CONSENSUS_MIGRATIONS_STREAM, consensusMigrations, { type: 'RecordMigrationStep', migrationId: id, step, at: at() });
    },
    /** Ended without every channel migrated: how it left each channel, and the peers its rollback could not roll back. */
    async failed(phase: MigrationPhase, reason: string, channels: MigrationChannel[], peers: PeerNotRolledBack[] = []) {
      migration.status = 'failed';
      migration.phase = phase;
      migration.channels = channels;
      migration.peersNotRolledBack = peers.map((p) => ({ nodeId: p.node_id, name: p.name, channel: p.channel, reason: p.reason }));
      await runCommand(input, CONSENSUS_MIGRATIONS_STREAM, consensusMigrations, { type: 'FailConsensusMigration', migrationId: id, phase, reason, channels, peersNotRolledBack: migration.peersNotRolledBack, at: at() });
    },
    async completed(channels: MigrationChannel[]) {
      migration.status = 'done';
      migration.phase = 'done';
      migration.channels = channels;
      await runCommand(input, CONSENSUS_MIGRATIONS_STREAM, consensusMigrations, { type: 'CompleteConsensusMigration', migrationId: id, channels, at: at() });
    },
  };
}
type Recorder = ReturnType<typeof recorder>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function targetOf(deps: AppDeps, nodeId: number): Promise<ConsortiumNodeTarget> {
  const { state } = await loadState(deps.store, nodeStream(nodeId), nodeAggregate);
  const record = state.node as unknown as ConsortiumNodeTarget['node'];
  return { node: record, organization: { organizationId: record.organizationId, name: record.mspId, mspId: record.mspId } };
}

/** The networks whose channels this network's joined orderers order (transitively: Fabric migrates every channel of an orderer at once), with their joined nodes. */
async function sharingNetworks(deps: AppDeps, network: ConsortiumNetworkRow) {
  const all = (await listConsortiumNetworks(deps.pool, 10_000, 0)).items;
  const members = new Map<number, Awaited<ReturnType<typeof consortiumNetworkMembers>>>();
  for (const n of all) members.set(n.id, await consortiumNetworkMembers(deps.pool, n.id));
  const ordererIds = new Set((members.get(network.id) ?? []).filter((m) => m.role === 'orderer').map((m) => m.nodeId));
  const chosen = new Set([network.id]);
  for (let grew = true; grew;) {
    grew = false;
    for (const n of all) {
      if (chosen.has(n.id)) continue;
      const joinedOrderers = (members.get(n.id) ?? []).filter((m) => m.role === 'orderer' && m.joinedAt !== null);
      if (joinedOrderers.some((m) => ordererIds.has(m.nodeId))) {
        chosen.add(n.id);
        for (const m of joinedOrderers) ordererIds.add(m.nodeId);
        grew = true;
      }
    }
  }
  const networks = all.filter((n) => chosen.has(n.id));
  const nodeIds = [...new Set(networks.flatMap((n) => (members.get(n.id) ?? []).filter((m) => n.id === network.id || m.joinedAt !== null).map((m) => m.nodeId)))];
  const nodes = nodeIds.length ? (await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: nodeIds })).items : [];
  const own = (members.get(network.id) ?? []).filter((m) => m.role === 'orderer').length;
  return { networks, nodes, own, orderers: nodes.filter((n) => n.role === 'orderer' && ordererIds.has(n.id)) };
}

type ConsensusJson = { type?: string; state?: string | number; metadata?: { consenters?: Array<{ host: string; port: number }> } };
const consensusOf = (config: ChannelConfigJson) => config.channel_group.groups.Orderer?.values.ConsensusType?.value as ConsensusJson | undefined;
const inMaintenance = (c: ConsensusJson | undefined) => c?.state === 'STATE_MAINTENANCE' || c?.state === 1;
const capabilitiesOf = (config: ChannelConfigJson) => Object.keys((config.channel_group.values.Capabilities?.value as { capabilities?: Record<string, unknown> } | undefined)?.capabilities ?? {});

async function channelConfig(deps: AppDeps, network: ConsortiumNetworkRow): Promise<ChannelConfigJson> {
  const orderer = await orderingOrderer(deps, network);
  return (await consortiumOf(deps).channels.fetchConfigBlock({ kind: 'orderer', endpoint: orderer.endpoint }, orderer.signer, network.channelName)).config;
}

/** The least time an attempt is given, even past the deadline (one last try that can still succeed). */
export const LAST_ATTEMPT_MS = 5000;

/** How long one submitted config update waits for its block before it is submitted again (the adapter's own default). */
export const CONFIG_BLOCK_WAIT_MS = 60_000;

/** A config update's wait inside a step: the step's time left, and at most CONFIG_BLOCK_WAIT_MS, so a step of minutes still submits again after a minute (an update an orderer accepted and lost). */
export const configUpdateWait = (leftMs: number) => ({ timeoutMs: Math.min(leftMs, CONFIG_BLOCK_WAIT_MS) });

/**
 * Runs `attempt` until it succeeds or `timeoutMs` passed (orderers restarting, electing a leader); the
 * last error then, saying how long it was tried (the request's waitSeconds). Each attempt is given
 * the time left (at least LAST_ATTEMPT_MS) for its own waits: a config update that waits for the new
 * config block waits that long, not its own 60 s, so a step ends near waitSeconds.
 */
export async function retrying<T>(what: string, attempt: (leftMs: number) => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt(Math.max(LAST_ATTEMPT_MS, deadline - Date.now()));
    } catch (err) {
      if (err instanceof ValidationError || (err instanceof ConflictError && err.code === 'SIGNATURES_MISSING')) throw new Error(`${what}: ${(err as Error).message}`);
      // A node host that does not answer: said at once, not after the wait.
      if (err instanceof HostGoneError) throw err;
      if (Date.now() > deadline) throw new Error(`${what} (given up after ${Math.round(timeoutMs / 1000)} s): ${(err as Error).message}`);
      await sleep(2000);
    }
  }
}

/**
 * A node's row once its stop or start settled, waited for at most `timeoutMs` (the request's
 * waitSeconds). A node on a node host that does not answer meanwhile is reported as soon as that is
 * known (the host asked every 2 s: a refused connection answers at once), naming the host and its
 * address, not after the wait: the lifecycle saga retries the engine call while the host is gone,
 * so the status would stay `stopping` until the wait ran out.
 */
async function settled(input: CommandInput, node: NodeRow, what: 'stop' | 'start', timeoutMs: number): Promise<NodeRow | null> {
  const row = await awaitSettled(input, node.id, timeoutMs, async (waiting) => {
    const gone = await unansweringHost(input.deps, node);
    if (gone) throw new HostGoneError(`${node.role} ${node.name} did not ${what} (${waiting.status}): ${gone}`);
  });
  if (row && (row.status === 'starting' || row.status === 'stopping')) throw new Error(`${node.role} ${node.name} did not ${what} within ${Math.round(timeoutMs / 1000)} s (${row.status})`);
  return row;
}

async function stopped(input: CommandInput, node: NodeRow, timeoutMs: number) {
  await runCommand(input, nodeStream(node.id), nodeAggregate, { type: 'StopNode', nodeId: node.id, at: input.deps.clock().toISOString() });
  const row = await settled(input, node, 'stop', timeoutMs);
  if (row?.status !== 'stopped') throw new Error(`${node.role} ${node.name} did not stop (${row?.status ?? 'gone'})`);
}

async function started(input: CommandInput, node: NodeRow, timeoutMs: number) {
  await runCommand(input, nodeStream(node.id), nodeAggregate, { type: 'StartNode', nodeId: node.id, at: input.deps.clock().toISOString() });
  const row = await settled(input, node, 'start', timeoutMs);
  if (row?.status !== 'running') throw new Error(`${node.role} ${node.name} did not start (${row?.status ?? 'gone'}${row?.error ? `: ${row.error}` : ''})`);
  const target = await targetOf(input.deps, node.id);
  await retrying(`${node.role} ${node.name} healthy`, () => consortiumOf(input.deps).runtime.live(target, 2000), timeoutMs);
}

/** How long each waiting step may take, in seconds (the POST's waitSeconds): its bounds and default. */
export const MIGRATION_WAIT_SECONDS = { minimum: 30, maximum: 3600, default: 180 } as const;

export interface MigrateRequest {
  to: string;
  smartBftOptions?: Partial<SmartBftOptions>;
  dryRun?: boolean;
  /** How long each waiting step may take (orderers healthy, a channel ordering again); default MIGRATION_WAIT_SECONDS.default. */
  timeoutMs?: number;
}

export async function migrateConsensus(input: CommandInput, networkId: number, req: MigrateRequest): Promise<ConsensusMigrated> {
  const { deps } = input;
  const network = await consortiumNetworkOr404(deps, networkId);
  if (req.to !== 'smartbft') throw new ValidationError(`Rule migration-target: a channel migrates from etcdraft to smartbft only (Fabric 3.x supports no other transition); ${req.to} asked.`, [{ field: 'to', message: 'must be smartbft' }], 'MIGRATION_TARGET');
  const waitMs = req.timeoutMs ?? MIGRATION_WAIT_SECONDS.default * 1000;
  const last = await migrationProgress(deps, networkId);
  if (last && resumable(last)) return resumeMigration(input, last, req.dryRun ?? false, waitMs);
  if (last && rollbackResumable(last)) return resumeRollback(input, last, req.dryRun ?? false, waitMs);
  if (network.consensus !== 'etcdraft') throw new ConflictError(`Rule migration-from-raft: network ${network.name} is ${network.consensus} already; only an etcdraft channel migrates to smartbft.`, { consensus: network.consensus }, 'MIGRATION_NOT_RAFT');
  const options: SmartBftOptions = { ...SMARTBFT_DEFAULTS, ...Object.fromEntries(Object.entries(req.smartBftOptions ?? {}).filter(([, v]) => v !== undefined)) };
  const optionIssues = smartBftOptionIssues(options);
  if (optionIssues.length) throw new ValidationError(`Invalid SmartBFT options: ${optionIssues.map((i) => `${i.field}: ${i.message}`).join('; ')}.`, optionIssues);

  const { networks, nodes, own, orderers } = await sharingNetworks(deps, network);
  const others = networks.filter((n) => n.consensus !== 'etcdraft');
  if (others.length) throw new ConflictError(`Rule migration-from-raft: the orderers of ${network.name} also order ${others.map((n) => `${n.name} (${n.consensus})`).join(', ')}; Fabric migrates every channel of an orderer together, and only etcdraft ones.`, { networks: others.map((n) => n.name) }, 'MIGRATION_NOT_RAFT');
  const unplaced: string[] = [];
  for (const o of orderers) {
    const hostId = o.consortiumConfig?.hostId;
    if (!hostId) continue;
    const host = await getNodeHost(deps.pool, hostId);
    if (host?.kind !== 'docker' && host?.kind !== 'kubernetes') unplaced.push(`${o.name} (host ${hostId}, not registered)`);
  }
  if (unplaced.length) {
    throw new ValidationError(`Rule migration-engine: the migration stops every orderer and backs up its data directory, which this service does for orderers of this machine (process or docker engine: the node directory here), of registered Docker node hosts (their volume, through the host's engine) and of registered Kubernetes clusters (their claim, through a helper pod); ${unplaced.join(', ')} ${unplaced.length > 1 ? 'are' : 'is'} on none of them. Nothing was changed.`, [{ field: 'id', message: 'orderers on a node host that is not registered' }], 'MIGRATION_ENGINE');
  }
  const below = nodes.filter((n) => !n.consortiumConfig?.fabricVersion || !releaseAtLeast(n.consortiumConfig.fabricVersion, V3_MIN_RELEASE));
  if (below.length) {
    throw new ConflictError(
      `Rule migration-v3-nodes: a migration to smartbft needs every orderer and peer of the channels on Fabric ${V3_MIN_RELEASE} or newer; ${below.map((n) => `${n.role} ${n.name} (${n.consortiumConfig?.fabricVersion ? `Fabric ${n.consortiumConfig.fabricVersion}` : 'no recorded Fabric release'})`).join(', ')} ${below.length > 1 ? 'do' : 'does'} not. Upgrade ${below.length > 1 ? 'them' : 'it'} first, one node at a time (the node's upgrade action). Nothing was changed.`,
      { rule: 'migration-v3-nodes', nodes: below.map((n) => ({ node_id: n.id, name: n.name, role: n.role, fabric_version: n.consortiumConfig?.fabricVersion ?? null })) },
      'MIGRATION_NODES_BELOW_V3',
    );
  }
  const bftSize = (what: string, n: number) => new ValidationError(
    `Rule migration-bft-size: SmartBFT needs 3f + 1 consenters to tolerate f faulty ones, at least ${MIN_BFT_CONSENTERS} (f = 1); ${what} has ${n}, which tolerate${n === 1 ? 's' : ''} ${bftFaultsTolerated(n)}. Add consenters (an orderer joined, then POST .../consenters) before migrating. Nothing was changed.`,
    [{ field: 'id', message: `${n} consenters: 3f + 1 >= ${MIN_BFT_CONSENTERS} needed` }],
    'MIGRATION_BFT_SIZE',
  );
  if (own < MIN_BFT_CONSENTERS) throw bftSize(`network ${network.name}`, own);
  const down = orderers.filter((o) => o.status !== 'running');
  if (down.length) throw new ConflictError(`Rule migration-state: every orderer must be running to migrate; ${down.map((o) => `${o.name} (${o.status})`).join(', ')} ${down.length > 1 ? 'are' : 'is'} not.`, { nodes: down.map((o) => o.name) }, 'NODES_DOWN');

  const byEndpoint = new Map(orderers.map((o) => [o.consortiumConfig!.externalEndpoint, o]));
  const plans: Array<{ network: ConsortiumNetworkRow; identities: Array<{ host: string; port: number; mspId: string; identityCertPem: string }> }> = [];
  for (const n of networks) {
    const config = await channelConfig(deps, n);
    const consensus = consensusOf(config);
    if (consensus?.type !== 'etcdraft' || inMaintenance(consensus)) {
      throw new ConflictError(`Rule migration-state: channel ${n.channelName} is ${consensus?.type ?? 'unknown'}${inMaintenance(consensus) ? ' in maintenance' : ''}; a migration starts from an etcdraft channel in STATE_NORMAL.`, { channelName: n.channelName }, 'MIGRATION_STATE');
    }
    if (!capabilitiesOf(config).includes(V3_CAPABILITY)) {
      throw new ConflictError(`Rule migration-v3-capability: channel ${n.channelName} has channel capability ${capabilitiesOf(config).join(', ') || 'none'}; Fabric migrates to BFT only with ${V3_CAPABILITY} (PUT .../config {capabilities: {channel: "${V3_CAPABILITY}"}} first). Nothing was changed.`, { channelName: n.channelName }, 'MIGRATION_CAPABILITY');
    }
    const consenters = consensus.metadata?.consenters ?? [];
    if (consenters.length < MIN_BFT_CONSENTERS) throw bftSize(`channel ${n.channelName}`, consenters.length);
    const identities = [];
    for (const c of consenters) {
      const node = byEndpoint.get(`${c.host}:${Number(c.port)}`);
      const org = node && [...n.ordererOrganizations, ...network.ordererOrganizations].find((o) => o.organizationId === node.organizationId);
      if (!node || !org) throw new ConflictError(`Rule migration-state: consenter ${c.host}:${c.port} of channel ${n.channelName} is no orderer of this service: its identity certificate (the ConsenterMapping's) is unknown here.`, { channelName: n.channelName, consenter: `${c.host}:${c.port}` }, 'MIGRATION_STATE');
      identities.push({ host: c.host, port: Number(c.port), mspId: org.mspId, identityCertPem: await identityCertificateOf(input, node) });
    }
    plans.push({ network: n, identities });
  }
  const switchChange = (p: (typeof plans)[number]): ChannelConfigChange => ({ kind: 'migrateToBft', options, identities: p.identities });
  const ordererList = orderers.map((o) => ({ nodeId: o.id, name: o.name }));

  if (req.dryRun) {
    const previews = [];
    for (const p of plans) {
      const preview = await previewConfigChange(deps, p.network, [{ kind: 'consensusState', state: 'maintenance' }, switchChange(p), { kind: 'consensusState', state: 'normal' }]);
      previews.push({ networkId: p.network.id, name: p.network.name, channelName: p.network.channelName, sequence: preview.sequence, diff: preview.diff });
    }
    return { status: 'dry_run', from: 'etcdraft', to: 'smartbft', networks: previews, orderers: ordererList, steps: ['checks passed; nothing changed'] };
  }

  return withMigrationLock(input, () => migrateLocked(input, plans, orderers, switchChange, ordererList, waitMs));
}

/** One migration at a time on any server of the database (a PostgreSQL advisory lock, released if the server dies). */
async function withMigrationLock<T>(input: CommandInput, run: () => Promise<T>): Promise<T> {
  const client = await input.deps.pool.connect();
  try {
    const locked = (await client.query('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [MIGRATION_LOCK])).rows[0].ok as boolean;
    if (!locked) throw new ConflictError('Another consensus migration is in progress: one at a time. Retry once it has finished (GET .../consensus/migration).', {}, 'MIGRATION_IN_PROGRESS');
    try {
      return await run();
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [MIGRATION_LOCK]).catch(() => undefined);
    }
  } finally {
    client.release();
  }
}

/** A peer of the migrated channels left past the restored chain: named in the 409's context and the migration's steps. */
interface PeerNotRolledBack { node_id: number; name: string; channel: string; reason: string }

/**
 * What a completed rollback did with the backups, in words: put back; or none to put back, after a
 * failure before the data directories were all backed up (in phase maintenance none was taken; in
 * phase backup some may have been, but the chain was not changed since: the channels were in
 * maintenance).
 */
export function restoredText(backedUp: boolean, failedIn: string | null): string {
  if (backedUp) return 'restored: backups put back, channels left maintenance on etcdraft';
  const what = failedIn === 'maintenance'
    ? 'no backups were taken (failed in phase maintenance, before phase backup), none put back'
    : `no backups put back (failed${failedIn ? ` in phase ${failedIn}` : ''} before every orderer's data was backed up; the data directories were not changed since)`;
  return `restored: ${what}; orderers running on etcdraft, channels out of maintenance on etcdraft`;
}

/** The rollback's outcome in words (the 409's message, the failed record's reason) and the peers it could not roll back. */
async function rolledBack(p: Promise<PeerNotRolledBack[]>, backedUp: boolean, failedIn: string | null): Promise<{ text: string; complete: boolean; peersNotRolledBack: PeerNotRolledBack[] }> {
  try {
    const peersNotRolledBack = await p;
    const peers = peersNotRolledBack.length ? `; peer${peersNotRolledBack.length > 1 ? 's' : ''} not rolled back to the restored chain (rejoin or roll back by hand): ${peersNotRolledBack.map((x) => `${x.name} on ${x.channel} (${x.reason})`).join(', ')}` : '';
    return { text: `${restoredText(backedUp, failedIn)}${peers}`, complete: true, peersNotRolledBack };
  } catch (e) {
    // Its own full stop dropped: the text goes into a sentence (the 409's message ends it once).
    return { text: `rollback incomplete: ${(e as Error).message.replace(/\.+$/, '')}`, complete: false, peersNotRolledBack: [] };
  }
}
/** What to do after a rollback that did not complete (the channels may still be in maintenance): nothing after one that did. */
const retryHint = (r: { complete: boolean }) => (r.complete ? '' : ' Fix the cause, then POST .../consensus/migrate takes the rollback up again (GET .../consensus/migration has its steps).');
/** Each channel as a migration left it, as the 409's context and GET .../consensus/migration name it. */
export const channelsBody = (channels: MigrationChannel[]) => channels.map((c) => ({ network_id: c.networkId, channel_name: c.channelName, consensus: c.consensus, state: c.state }));
const failedContext = (phase: MigrationPhase, steps: string[], r: { peersNotRolledBack: PeerNotRolledBack[] }, channels: MigrationChannel[]) => ({ phase, steps, channels: channelsBody(channels), ...(r.peersNotRolledBack.length ? { peers_not_rolled_back: r.peersNotRolledBack } : {}) });
/** After a rollback: every channel etcdraft in STATE_NORMAL when it completed, unknown otherwise (the steps say where it stopped). */
const afterRollback = (networks: ConsortiumNetworkRow[], r: { complete: boolean }): MigrationChannel[] =>
  networks.map((n) => ({ networkId: n.id, channelName: n.channelName, consensus: r.complete ? 'etcdraft' : 'unknown', state: r.complete ? 'normal' : 'unknown' }));

async function migrateLocked(
  input: CommandInput,
  plans: Array<{ network: ConsortiumNetworkRow; identities: Array<{ host: string; port: number; mspId: string; identityCertPem: string }> }>,
  orderers: NodeRow[],
  switchChange: (p: (typeof plans)[number]) => ChannelConfigChange,
  ordererList: Array<{ nodeId: number; name: string }>,
  timeoutMs: number,
): Promise<ConsensusMigrated> {
  const { deps } = input;
  const runtime = consortiumOf(deps).runtime;
  const migrationId = deps.newId();
  const networkIds = plans.map((p) => p.network.id);
  const startedAt = deps.clock().toISOString();
  await runCommand(input, CONSENSUS_MIGRATIONS_STREAM, consensusMigrations, { type: 'StartConsensusMigration', migrationId, networkIds, ordererIds: orderers.map((o) => o.id), from: 'etcdraft', to: 'smartbft', at: startedAt });
  const rec = recorder(input, { migrationId, networkIds, ordererIds: orderers.map((o) => o.id), status: 'running', phase: 'checks', steps: [], startedAt, endedAt: null, channels: [], peersNotRolledBack: [] });
  const channels = plans.map((p) => p.network.channelName).join(', ');
  let backedUp = false;
  const switched: Array<{ channel: string; block: number | null }> = [];
  try {
    await rec.phase('maintenance');
    for (const p of plans) {
      const r = await retrying(`channel ${p.network.channelName} into maintenance`, (leftMs) => submitConfigChange(deps, p.network, { kind: 'consensusState', state: 'maintenance' }, configUpdateWait(leftMs)), timeoutMs);
      await rec.step(`maintenance: channel ${p.network.channelName} in STATE_MAINTENANCE (sequence ${r.sequence})`);
    }
    await rec.phase('backup');
    for (const o of orderers) await stopped(input, o, timeoutMs);
    for (const o of orderers) await runtime.backupData(await targetOf(deps, o.id), BACKUP_LABEL);
    backedUp = true;
    for (const o of orderers) await started(input, o, timeoutMs);
    await rec.step(`backup: ${orderers.map((o) => o.name).join(', ')} stopped, data directories backed up, started`);
    await rec.phase('switch');
    for (const p of plans) {
      const r = await retrying(`channel ${p.network.channelName} switched to BFT`, (leftMs) => submitConfigChange(deps, p.network, switchChange(p), configUpdateWait(leftMs)), timeoutMs);
      switched.push({ channel: p.network.channelName, block: r.status === 'updated' ? r.blockNumber : null });
      await rec.step(`switch: channel ${p.network.channelName} Type BFT, ConsenterMapping of ${p.identities.length}, BlockValidation (sequence ${r.sequence})`);
    }
    await holdTheSwitch(input, switched, orderers, timeoutMs);
    await rec.phase('restart');
    for (const o of orderers) await stopped(input, o, timeoutMs);
    for (const o of orderers) await started(input, o, timeoutMs);
    await rec.step(`restart: ${orderers.map((o) => o.name).join(', ')} restarted as BFT`);
  } catch (err) {
    const phase = rec.progress.phase;
    const reason = (err as Error).message.replace(/\.+$/, '');
    await rec.phase('rollback');
    await rec.step(`failed in phase ${phase}: ${reason}`);
    const restored = await rolledBack(rollback(input, rec, plans, orderers, backedUp, timeoutMs), backedUp, phase);
    await rec.step(restored.text);
    const left = afterRollback(plans.map((p) => p.network), restored);
    await rec.failed('rollback', `failed in phase ${phase}: ${reason}; ${restored.text}`, left, restored.peersNotRolledBack);
    throw new ConflictError(`The migration of channel${plans.length > 1 ? 's' : ''} ${channels} to smartbft failed in phase ${phase}: ${reason}. ${restored.text}.${retryHint(restored)}`, failedContext(phase, rec.progress.steps, restored, left), 'MIGRATION_FAILED');
  }
  await rec.phase('normal');
  const done = await leaveMaintenanceOnBft(input, rec, plans.map((p) => p.network), [], async (reason) => {
    await rec.phase('rollback');
    const restored = await rolledBack(rollback(input, rec, plans, orderers, true, timeoutMs), true, 'normal');
    await rec.step(restored.text);
    const left = afterRollback(plans.map((p) => p.network), restored);
    await rec.failed('rollback', `failed in phase normal: ${reason}; ${restored.text}`, left, restored.peersNotRolledBack);
    return new ConflictError(`The migration of channel${plans.length > 1 ? 's' : ''} ${channels} to smartbft failed in phase normal (the BFT orderers did not order): ${reason}. ${restored.text}.${retryHint(restored)}`, failedContext('normal', rec.progress.steps, restored, left), 'MIGRATION_FAILED');
  }, timeoutMs);
  return finished(input, rec, orderers, done, plans.map((p) => p.network), ordererList);
}

/**
 * Before the restart, every orderer holds each channel's switch block (Fabric's guide: the config
 * block on every orderer before it is restarted): an orderer restarted without it starts the
 * channel as raft in maintenance, and the BFT cluster goes on without it. Seen on real Fabric
 * 3.1.5 (a Docker node host, the machine loaded): a raft follower that had not replicated the switch
 * block when the restart stopped it came back on etcdraft one block short, for good ("channel not
 * found in config" to the BFT consenters), and the migration ended done on three of four. Each
 * orderer's height is read from its channel participation API, tried again until timeoutMs.
 */
async function holdTheSwitch(input: CommandInput, switched: Array<{ channel: string; block: number | null }>, orderers: NodeRow[], timeoutMs: number): Promise<void> {
  const { deps } = input;
  const consortium = consortiumOf(deps);
  const heightOf = async (o: NodeRow, channel: string) => (await consortium.channels.ordererChannel(await adminEndpoint(deps, o), await consortium.credentials.adminTlsClient(o.organizationId!), channel).catch(() => null))?.height ?? null;
  for (const { channel, block } of switched) {
    // The switch block's number (the update's answer; when a retry found it committed already, the highest orderer's last block).
    let target = block;
    if (target === null) {
      const heights = (await Promise.all(orderers.map((o) => heightOf(o, channel)))).filter((h): h is number => h !== null);
      target = heights.length ? Math.max(...heights) - 1 : 0;
    }
    for (const o of orderers) {
      await retrying(`orderer ${o.name} holding the switch block ${target} of channel ${channel} before the restart`, async () => {
        const h = await heightOf(o, channel);
        if (h === null || h <= target) throw new Error(`its height is ${h ?? 'not readable'}`);
      }, timeoutMs);
    }
  }
}

/**
 * Phase normal: each channel leaves maintenance through the BFT orderers and its network is
 * recorded as smartbft (NetworkConsensusMigrated). When none has left yet, `noneLeft` rolls back
 * and answers the error; once one has, the others stay in maintenance on BFT with the backups
 * kept, and the migration is recorded failed in phase normal: the next POST .../migrate resumes it.
 */
async function leaveMaintenanceOnBft(
  input: CommandInput,
  rec: Recorder,
  networks: ConsortiumNetworkRow[],
  alreadyBft: ConsortiumNetworkRow[],
  noneLeft: (reason: string) => Promise<Error>,
  timeoutMs: number,
): Promise<ConsensusMigrated['networks']> {
  const { deps } = input;
  const done: ConsensusMigrated['networks'] = [];
  for (const n of networks) {
    const bft = { ...n, consensus: 'smartbft' };
    let r: Awaited<ReturnType<typeof submitConfigChange>>;
    try {
      r = await retrying(`channel ${n.channelName} out of maintenance on BFT`, (leftMs) => submitConfigChange(deps, bft, { kind: 'consensusState', state: 'normal' }, configUpdateWait(leftMs)), timeoutMs);
    } catch (err) {
      const reason = (err as Error).message.replace(/\.+$/, '');
      await rec.step(`failed in phase normal: ${reason}`);
      const onBft = [...alreadyBft.map((a) => a.channelName), ...done.map((d) => d.channelName)];
      if (!onBft.length) throw await noneLeft(reason);
      // Every channel was switched (phase switch) and its orderers restarted as BFT: those that left maintenance order, the others wait in it.
      const left: MigrationChannel[] = [
        ...alreadyBft.map((a) => ({ networkId: a.id, channelName: a.channelName, consensus: 'smartbft' as const, state: 'normal' as const })),
        ...networks.map((x) => ({ networkId: x.id, channelName: x.channelName, consensus: 'smartbft' as const, state: done.some((d) => d.networkId === x.id) ? 'normal' as const : 'maintenance' as const })),
      ];
      await rec.failed('normal', reason, left);
      const held = left.filter((c) => c.state === 'maintenance').map((c) => c.channelName);
      throw new ConflictError(`Channel ${n.channelName} did not leave maintenance on BFT: ${reason}. ${onBft.join(', ')} already ${onBft.length > 1 ? 'run' : 'runs'} BFT in STATE_NORMAL, so the backups are kept and not restored; ${held.join(', ')} ${held.length > 1 ? 'are' : 'is'} BFT still in maintenance: POST .../consensus/migrate again resumes the migration (the remaining channels leave maintenance on BFT).`, { phase: 'normal', steps: rec.progress.steps, channels: channelsBody(left) }, 'MIGRATION_FAILED');
    }
    const block = r.status === 'updated' ? r.blockNumber : null;
    await rec.step(`normal: channel ${n.channelName} in STATE_NORMAL on BFT (sequence ${r.sequence}${block !== null ? `, block ${block}` : ''})`);
    await runCommand(input, CONSORTIUM_NETWORKS_STREAM, consortiumNetworks, { type: 'RecordConsensusMigrated', networkId: n.id, from: 'etcdraft', to: 'smartbft', configSequence: r.sequence, blockNumber: block ?? 0, steps: [...rec.progress.steps], at: deps.clock().toISOString() });
    done.push({ networkId: n.id, name: n.name, channelName: n.channelName, sequence: r.sequence, diff: r.status === 'updated' ? r.diff : [] });
  }
  return done;
}

async function finished(input: CommandInput, rec: Recorder, orderers: Array<{ id: number }>, done: ConsensusMigrated['networks'], networks: ConsortiumNetworkRow[], ordererList: Array<{ nodeId: number; name: string }>): Promise<ConsensusMigrated> {
  for (const o of orderers) await consortiumOf(input.deps).runtime.dropBackup(await targetOf(input.deps, o.id), BACKUP_LABEL).catch(() => undefined);
  await rec.step('backups dropped');
  await rec.completed(networks.map((n) => ({ networkId: n.id, channelName: n.channelName, consensus: 'smartbft', state: 'normal' })));
  return { status: 'migrated', from: 'etcdraft', to: 'smartbft', networks: done, orderers: ordererList, steps: rec.progress.steps };
}

/**
 * Under the migration lock: the migration still as `last` was (a migration still recorded running
 * has lost its server) and still to be taken up in `phase` (resumable: normal; rollbackResumable:
 * rollback), recorded resumed, its recorder running in that phase with `step` its first step.
 */
async function takenUpAgain(input: CommandInput, last: MigrationProgress, phase: 'normal' | 'rollback', step: string): Promise<Recorder> {
  const { deps } = input;
  const now = await migrationProgress(deps, last.networkIds[0]);
  const still = phase === 'normal' ? resumable : rollbackResumable;
  if (now?.migrationId !== last.migrationId || !still(now)) throw new ConflictError('The consensus migration changed meanwhile; look at GET .../consensus/migration and retry.', { migrationId: last.migrationId }, 'MIGRATION_IN_PROGRESS');
  await runCommand(input, CONSENSUS_MIGRATIONS_STREAM, consensusMigrations, { type: 'ResumeConsensusMigration', migrationId: last.migrationId, at: deps.clock().toISOString() });
  const rec = recorder(input, { ...last, status: 'running', phase, steps: [...last.steps], channels: [], peersNotRolledBack: [] });
  await rec.step(step);
  return rec;
}

/** A recorded migration's networks (those still here) and orderers, for taking it up again. */
async function migrationParts(deps: AppDeps, last: MigrationProgress) {
  const networks: ConsortiumNetworkRow[] = [];
  for (const id of last.networkIds) {
    const n = await getConsortiumNetwork(deps.pool, id);
    if (n) networks.push(n);
  }
  const orderers = (await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: last.ordererIds })).items;
  return { networks, orderers, ordererList: orderers.map((o) => ({ nodeId: o.id, name: o.name })) };
}

/**
 * A migration that stopped in phase normal taken up again (it failed there, or its server died
 * there: recorded running, and the lock is free): every channel of it is BFT (some in maintenance,
 * the backups kept); those whose network is still recorded etcdraft leave maintenance through the
 * BFT orderers (an update already committed is unchanged), then the backups are dropped and the
 * migration is done.
 */
async function resumeMigration(input: CommandInput, last: MigrationProgress, dryRun: boolean, timeoutMs: number): Promise<ConsensusMigrated> {
  const { deps } = input;
  const { networks, orderers, ordererList } = await migrationParts(deps, last);
  const remaining = networks.filter((n) => n.consensus !== 'smartbft');
  const already = networks.filter((n) => n.consensus === 'smartbft');
  for (const n of remaining) {
    const consensus = consensusOf(await channelConfig(deps, { ...n, consensus: 'smartbft' }));
    if (consensus?.type !== 'BFT') {
      throw new ConflictError(`Rule migration-state: the migration ${last.migrationId} failed in phase normal, but channel ${n.channelName} is ${consensus?.type ?? 'unknown'}, not BFT: it cannot be resumed here (docs/consortium.md "Migrating to SmartBFT").`, { channelName: n.channelName }, 'MIGRATION_STATE');
    }
  }
  if (dryRun) {
    const previews = [];
    for (const n of remaining) {
      const preview = await previewConfigChange(deps, { ...n, consensus: 'smartbft' }, [{ kind: 'consensusState', state: 'normal' }]);
      previews.push({ networkId: n.id, name: n.name, channelName: n.channelName, sequence: preview.sequence, diff: preview.diff });
    }
    return { status: 'dry_run', from: 'etcdraft', to: 'smartbft', networks: previews, orderers: ordererList, steps: [`resumes migration ${last.migrationId} (failed in phase normal); nothing changed`] };
  }
  return withMigrationLock(input, async () => {
    const rec = await takenUpAgain(input, last, 'normal', `resumed: ${remaining.map((n) => n.channelName).join(', ') || 'no channel'} to leave maintenance on BFT`);
    const done = await leaveMaintenanceOnBft(input, rec, remaining, already, async (reason) => {
      const left: MigrationChannel[] = remaining.map((n) => ({ networkId: n.id, channelName: n.channelName, consensus: 'smartbft', state: 'maintenance' }));
      await rec.failed('normal', reason, left);
      return new ConflictError(`The resumed migration failed in phase normal again: ${reason}. POST .../consensus/migrate resumes it again.`, { phase: 'normal', steps: rec.progress.steps, channels: channelsBody(left) }, 'MIGRATION_FAILED');
    }, timeoutMs);
    return finished(input, rec, orderers, done, networks, ordererList);
  });
}

/**
 * A migration whose rollback did not complete (an orderer that would not start on its restored
 * data, a backup not put back) or whose server died during it, taken up again by a new POST
 * .../migrate: the same rollback from the start (orderers stopped, the backups put back when the
 * migration had taken them, which it records as its "backup:" step, started, the peers past the
 * restored chain rolled back, the channels out of maintenance on raft). The backups are copies,
 * kept until a migration ends done, so putting them back again is the same as the first time.
 * A failure in phase backup before that step left the chain as it was at the backups (the
 * channels were in maintenance): nothing to put back. Answers 409 MIGRATION_FAILED as the first
 * rollback did (the migration failed: nothing was migrated), saying whether it completed now.
 */
async function resumeRollback(input: CommandInput, last: MigrationProgress, dryRun: boolean, timeoutMs: number): Promise<ConsensusMigrated> {
  const { deps } = input;
  const { networks, orderers, ordererList } = await migrationParts(deps, last);
  // Backed up: the `backup:` step, or a rollback that began putting the backups back (a failure in
  // phase backup before that step: the data directories as the first rollback left them, one
  // perhaps partly replaced, are no chain to start on).
  const backedUp = last.steps.some((s) => s.startsWith('backup: ') || s.startsWith(RESTORING_STEP));
  const what = `the rollback of migration ${last.migrationId} (${last.status === 'running' ? 'its server stopped during it' : 'it did not complete'})`;
  if (dryRun) {
    return { status: 'dry_run', from: 'etcdraft', to: 'smartbft', networks: [], orderers: ordererList, steps: [`takes up ${what} again: orderers stopped, ${backedUp ? 'their backups put back, ' : ''}started on etcdraft, peers past the restored chain rolled back, channels out of maintenance on raft; nothing changed`] };
  }
  return withMigrationLock(input, async () => {
    const rec = await takenUpAgain(input, last, 'rollback', `resumed: ${what}, taken up again`);
    const failedIn = last.steps.map((x) => /^failed in phase (\w+)/.exec(x)?.[1]).find(Boolean) ?? null;
    const restored = await rolledBack(rollback(input, rec, networks.map((network) => ({ network })), orderers, backedUp, timeoutMs), backedUp, failedIn);
    await rec.step(restored.text);
    const left = afterRollback(networks, restored);
    await rec.failed('rollback', `rollback taken up again: ${restored.text}`, left, restored.peersNotRolledBack);
    const channels = networks.map((n) => n.channelName).join(', ');
    throw new ConflictError(`The migration of channel${networks.length > 1 ? 's' : ''} ${channels} to smartbft had failed and its rollback had not completed; taken up again: ${restored.text}.${restored.complete ? ' Nothing was migrated: fix the cause, then start over with a dry run.' : ' POST .../consensus/migrate takes it up again.'}`, failedContext('rollback', rec.progress.steps, restored, left), 'MIGRATION_FAILED');
  });
}

/**
 * Orderers stopped, their backups put back (when taken), started (each start tried again until
 * timeoutMs): raft in maintenance; then the peers brought back to the restored chain (rollbackPeers);
 * then each channel leaves maintenance on raft. Answers the peers that could not be rolled back.
 */
async function rollback(input: CommandInput, rec: Recorder, plans: Array<{ network: ConsortiumNetworkRow }>, orderers: NodeRow[], backedUp: boolean, timeoutMs: number): Promise<PeerNotRolledBack[]> {
  const { deps } = input;
  const onItsHost = (o: NodeRow) => async (err: unknown): Promise<never> => { throw await hostGone(deps, o, err); };
  if (backedUp) {
    for (const o of orderers) {
      const row = await getNode(deps.pool, o.id);
      if (row && row.status !== 'stopped') await stopped(input, o, timeoutMs).catch(onItsHost(o));
    }
    await rec.step(`${RESTORING_STEP} of ${orderers.map((o) => o.name).join(', ')} (stopped)`);
    for (const o of orderers) await consortiumOf(deps).runtime.restoreData(await targetOf(deps, o.id), BACKUP_LABEL).catch(onItsHost(o));
  }
  // The last line of defence: a start refused for a while (a port another program held when the
  // orderer stopped, an orderer slow to come up) is tried again until timeoutMs.
  for (const o of orderers) {
    await retrying(`orderer ${o.name} started on its restored data`, async () => {
      const row = await getNode(deps.pool, o.id);
      if (row?.status !== 'running') await started(input, o, timeoutMs);
    }, timeoutMs).catch(onItsHost(o));
  }
  const notRolledBack = backedUp ? await rollbackPeers(input, rec, plans, orderers, timeoutMs) : [];
  for (const p of plans) {
    const now = await getConsortiumNetwork(deps.pool, p.network.id);
    await retrying(`channel ${p.network.channelName} out of maintenance on raft`, (leftMs) => submitConfigChange(deps, now ?? p.network, { kind: 'consensusState', state: 'normal' }, configUpdateWait(leftMs)), timeoutMs);
  }
  return notRolledBack;
}

/** An error that already names the node host that does not answer (not asked again). */
class HostGoneError extends Error {}

/**
 * Why the node's host does not answer, asked there and then (not the last check): `its node host
 * <name> (<url>) does not answer (<why>); bring the host back`; null for a node of this machine or
 * a host that answers.
 */
async function unansweringHost(deps: AppDeps, o: NodeRow): Promise<string | null> {
  const hostId = o.consortiumConfig?.hostId;
  const hosts = deps.hosts;
  if (!hostId || !hosts?.directory) return null;
  const connection = await hosts.directory.connection(hostId).catch(() => null);
  if (!connection) return null;
  const check = await hosts.probe.probe(connection).catch((x: Error) => ({ reachable: false, reason: x.message }));
  if (check.reachable) return null;
  const why = (check.reason ?? 'no answer').replace(/\.+$/, '');
  return `its node host ${connection.name} (${connection.url}) does not answer (${why}); bring the host back`;
}

/**
 * An orderer's rollback step that failed (stop, restore, start): when the orderer is on a node
 * host that does not answer now, the error names the host, its address and why: the cause to fix
 * (bring the host back), not only the orderer that did not stop. Otherwise the error as it was.
 */
async function hostGone(deps: AppDeps, o: NodeRow, err: unknown): Promise<Error> {
  const e = err as Error;
  if (e instanceof HostGoneError) return e;
  const gone = await unansweringHost(deps, o);
  return gone ? new HostGoneError(`${e.message.replace(/\.+$/, '')}: ${gone}`) : e;
}

/**
 * The restored orderers hold the raft chain as it was at the backup (the maintenance block last);
 * a peer may already hold blocks after it (the switch block, ordered in maintenance and delivered
 * to the peers), which that chain will never have: such a peer would wait for its next block
 * number forever, then refuse the different block the restored chain puts there. So each peer of
 * the migrated channels that this service runs, past the restored chain's height, is stopped,
 * `peer node rollback -c <channel> -b <restored height - 1>` run with its own config (the runtime's
 * offline peer subcommand, as `peer node unjoin`), and started: it pulls the chain from the
 * restored orderers. A docker engine peer (here or on a node host) the same: stopped, the command
 * in a one-off container of its image on its node directory or volume (runtime.rollbackPeer),
 * started. Each is a step; one that cannot be (an engine that runs no command beside a stopped
 * node, the command refused, not started again) is a step and answered, not thrown: the rollback goes on.
 */
async function rollbackPeers(input: CommandInput, rec: Recorder, plans: Array<{ network: ConsortiumNetworkRow }>, orderers: NodeRow[], timeoutMs: number): Promise<PeerNotRolledBack[]> {
  const { deps } = input;
  const consortium = consortiumOf(deps);
  const notRolledBack: PeerNotRolledBack[] = [];
  for (const p of plans) {
    const channel = p.network.channelName;
    const restored = await retrying(`the restored orderers' height of channel ${channel}`, async () => {
      const heights = [];
      for (const o of orderers) {
        const info = await consortium.channels.ordererChannel(await adminEndpoint(deps, o), await consortium.credentials.adminTlsClient(o.organizationId!), channel).catch(() => null);
        if (info) heights.push(info.height);
      }
      if (!heights.length) throw new Error('no restored orderer answers the channel');
      return Math.max(...heights);
    }, timeoutMs);
    const members = (await consortiumNetworkMembers(deps.pool, p.network.id)).filter((m) => m.role === 'peer' && m.joinedAt);
    const peers = members.length ? (await listNodes(deps.pool, { limit: 10_000, offset: 0, ids: members.map((m) => m.nodeId) })).items : [];
    for (const peer of peers) {
      try {
        const target = await targetOf(deps, peer.id);
        // A peer recorded down (its probes failing: hung, or slow on a loaded machine) may still
        // run and hold its ledger: stopped for the rollback and started after, as a running one.
        // Seen in a CI run at load 12-16: a docker peer down at the rollback was rolled back as if
        // stopped and left stopped, and the channel's peer no longer followed.
        const status = (await getNode(deps.pool, peer.id))?.status;
        const running = status === 'running' || status === 'down';
        const height = running ? ((await consortium.runtime.ledgers(target, 5000).catch(() => null))?.channels.find((c) => c.channel === channel)?.blockHeight ?? null) : null;
        if (height !== null && height <= restored) {
          await rec.step(`rollback: peer ${peer.name} at height ${height} on channel ${channel}, within the restored chain's height ${restored}: nothing to roll back`);
          continue;
        }
        if (running) await stopped(input, peer, timeoutMs);
        let result: { rolledBack: boolean };
        try {
          result = await consortium.runtime.rollbackPeer(target, channel, restored - 1);
        } finally {
          if (running) await started(input, peer, timeoutMs);
        }
        await rec.step(result.rolledBack
          ? `rollback: peer ${peer.name} rolled back on channel ${channel} to block ${restored - 1}, the restored chain's height ${restored} (it was at ${height ?? 'a height not read'}: ${running ? 'stopped, peer node rollback, started' : 'peer node rollback, left stopped'})`
          : `rollback: peer ${peer.name} on channel ${channel} ends within the restored chain's height ${restored}: nothing to roll back`);
      } catch (err) {
        const reason = (err as Error).message;
        notRolledBack.push({ node_id: peer.id, name: peer.name, channel, reason });
        await rec.step(`rollback: peer ${peer.name} not rolled back on channel ${channel} to the restored chain's height ${restored}: ${reason}`);
      }
    }
  }
  return notRolledBack;
}
