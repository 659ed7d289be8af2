// Wiring of the metrics stack (domain/metrics/metricsStackPorts.ts): the managed Prometheus
// runtime, the scrape targets from the nodes read model, the exporter of nodes that serve no
// metrics themselves, and its ownership. Prometheus runs on one instance only, the holder of the
// `work:metrics-stack` lease (sagas/workPieces.ts): `own` is called when this instance takes the
// lease, `disown` when it loses or hands it over (Prometheus is stopped here, its data kept).
// While it owns the stack, rounds wake on the projector's applied batches (every event of any
// instance, heard through LISTEN/NOTIFY: adapters/postgres/notices.ts): an event of the
// metrics-stack stream brings the engine in line with the stream, a node created, reconfigured
// or deleted rewrites the discovery files from that node's row (the whole nodes table is read
// only at the takeover and after a rebuild). What the holder sees is published
// (metrics_stack_runtime) for the other instances' GET /metrics/status only when it changed; it
// is looked at each scrape interval while Prometheus runs (its targets' health has no
// notification: a local HTTP call, no query), and a safety round reads the stream every 30 s.
import { readFile, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import type { Config } from './config.ts';
import type { EventStore } from '../domain/shared/eventStore.ts';
import type { MetricsStackDeps, MetricsStackReport } from '../domain/metrics/metricsStackPorts.ts';
import type { NodeOperationsFor } from '../domain/nodes/nodeOperations.ts';
import { loadState } from '../domain/shared/commandHandler.ts';
import { UnavailableError } from '../domain/shared/errors.ts';
import { METRICS_STACK_DEFAULTS, METRICS_STACK_STREAM, metricsStack, type MetricsStackSettings } from '../domain/metrics/metricsStack.ts';
import { nodeAggregate, nodeStream } from '../domain/nodes/node.ts';
import { assignedPorts, listNodes, type NodeRow } from '../projections/nodes.ts';
import type { AppliedListener } from '../projections/projector.ts';
import { createMetricsStackRuntime } from '../adapters/metrics/metricsStackRuntime.ts';
import { metricsAddressOf, type ScrapeNode } from '../adapters/metrics/prometheusTargets.ts';
import { PROMETHEUS_KEY, SCRAPE_TOKEN_FILE } from '../adapters/metrics/prometheusLaunch.ts';
import { nodeDirectory } from '../adapters/engines/nodeDirectory.ts';
import { nodeExposition } from '../adapters/metrics/nodeExporter.ts';
import { liveStatusView } from '../application/metrics/metricsStackOperations.ts';
import { METRICS_STACK_LEASE } from '../sagas/workPieces.ts';

/** A round that reads the stream even without a notice (one missed, or a failed round's retry). */
const SAFETY_MS = 30_000;
/** While the service does not listen yet or the lease's clock is renewing: the next try. */
const WAIT_MS = 1_000;
/** The longest wait between two looks at a running Prometheus (its scrape interval when shorter). */
const OBSERVE_MAX_MS = 15_000;
/** The node events that change a scrape target (its address, labels, or whether it exists). */
const TARGET_EVENTS = new Set(['NodeCreated', 'NodeConfigChanged', 'NodeDeleted']);

const scrapeNode = (n: NodeRow): ScrapeNode => ({ id: n.id, name: n.name, platform: n.platform, nodeType: n.nodeType, client: n.client, networkId: n.networkId, metricsAddress: metricsAddressOf({ platform: n.platform, client: n.client, config: n.config as unknown as Record<string, unknown> }) });

export interface MetricsStackOwnership {
  deps: MetricsStackDeps;
  /** This instance took the lease: reconcile now (start Prometheus here if it should run), then on each notice of the stream or the nodes. */
  own(): Promise<void>;
  /** This instance lost or handed over the lease: stop the rounds and Prometheus here (its data stays). */
  disown(): Promise<void>;
  /** At start, not holding the lease: stop a Prometheus of this data directory left running from before. */
  standDown(): Promise<void>;
}

export function createMetricsStack(opts: {
  config: Config;
  pool: pg.Pool;
  store: EventStore;
  operationsFor: NodeOperationsFor;
  serviceAddress: () => string;
  instanceId: string;
  /** The fencing check of the work:metrics-stack lease (no query). */
  holds: () => boolean;
  /** The projector's applied batches (projections/projector.ts onApplied): every instance's events, once the read models hold them. */
  applied: (listener: AppliedListener) => () => void;
  log: (obj: Record<string, unknown>, msg: string) => void;
}): MetricsStackOwnership {
  const { config, pool } = opts;
  const dir = nodeDirectory(config.dataDir, PROMETHEUS_KEY);
  const runtime = createMetricsStackRuntime({
    dataDir: config.dataDir,
    defaultEngine: config.nodeEngine,
    binary: config.prometheusBin ?? null,
    env: { ...process.env, ...(config.prometheusImage ? { LNM_IMAGE_PROMETHEUS: config.prometheusImage } : {}), ...(config.dockerPrefix ? { LNM_DOCKER_PREFIX: config.dockerPrefix } : {}) },
    serviceAddress: opts.serviceAddress,
    scrapeNodes,
    nodePorts: async () => new Set((await assignedPorts(pool)).keys()),
  });
  const readState = () => loadState(opts.store, METRICS_STACK_STREAM, metricsStack);
  const deployedHere = () => stat(path.join(dir, SCRAPE_TOKEN_FILE)).then(() => true, () => false);
  let owned = false;
  let takeover = false;
  let applied = -1;
  let lastSettings: MetricsStackSettings | null = null;
  let lastError: string | null = null;
  let timer: NodeJS.Timeout | null = null;
  let round: Promise<void> = Promise.resolve();
  let inRound = false;
  let again = false;
  /** The stream moved (or may have): the next round reads it. */
  let streamDue = true;
  let lastStreamRead = 0;
  let lastRead: Awaited<ReturnType<typeof readState>> | null = null;
  /** What was last published (without the scrape times of failing targets): the row is written only when this changes. */
  let published: string | null = null;
  /** The scrape targets as last read from the nodes table (null: read it whole), and the nodes changed since. */
  let scrape: Map<number, ScrapeNode> | null = null;
  const changedNodes = new Set<number>();
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn, fn);
    chain = run.catch(() => undefined);
    return run;
  };

  async function scrapeNodes(): Promise<ScrapeNode[]> {
    if (!scrape) {
      changedNodes.clear();
      const { items } = await listNodes(pool, { limit: 1_000_000, offset: 0 });
      scrape = new Map(items.map((n) => [n.id, scrapeNode(n)]));
    } else if (changedNodes.size) {
      const ids = [...changedNodes];
      changedNodes.clear();
      try {
        const { items } = await listNodes(pool, { ids, limit: ids.length, offset: 0 });
        for (const id of ids) scrape.delete(id);
        for (const n of items) scrape.set(n.id, scrapeNode(n));
      } catch (err) {
        for (const id of ids) changedNodes.add(id);
        throw err;
      }
    }
    return [...scrape.values()].sort((a, b) => a.id - b.id);
  }

  /** A Prometheus another holder on this host left running (it was killed -9): stopped before ours starts on its port. */
  async function stopLeftover(): Promise<void> {
    const r = await pool.query('SELECT instance, hostname, pid, dir FROM metrics_stack_runtime WHERE id = 1');
    const row = r.rows[0] as { instance: string; hostname: string; pid: number | null; dir: string } | undefined;
    if (!row || row.instance === opts.instanceId || row.hostname !== hostname() || !row.pid || row.dir === dir) return;
    const cmdline = await readFile(`/proc/${row.pid}/cmdline`, 'utf8').catch(() => '');
    if (!cmdline.includes(path.join(row.dir, 'prometheus.yml'))) return; // gone, or the pid is another process's now
    opts.log({ pid: row.pid, instance: row.instance }, 'stopping the Prometheus the previous holder of the metrics stack left running');
    const gone = async (ms: number) => {
      for (const end = Date.now() + ms; Date.now() < end; await new Promise((res) => setTimeout(res, 100))) if (!(await readFile(`/proc/${row.pid}/cmdline`, 'utf8').then((c) => c.includes(row.dir), () => false))) return true;
      return false;
    };
    try {
      process.kill(row.pid, 'SIGTERM');
      if (!(await gone(10_000))) process.kill(row.pid, 'SIGKILL');
      await gone(5_000);
    } catch {
      // it ended by itself
    }
  }

  /** Brings the engine here in line with the stream (called on the holder, under serial); what it read. */
  async function converge(): Promise<Awaited<ReturnType<typeof readState>>> {
    const read = await readState();
    const { state, version } = read;
    if (!takeover && version === applied) return read;
    const first = takeover;
    takeover = false;
    try {
      if (first) await stopLeftover();
      if (state.status === 'not_deployed') {
        if (await deployedHere()) await runtime.remove(lastSettings ?? { ...METRICS_STACK_DEFAULTS, engine: config.nodeEngine });
      } else {
        const s = state.settings;
        lastSettings = s;
        const running = (await runtime.status(s)).state === 'running';
        if (state.status === 'running' && !running) await ((await deployedHere()) ? runtime.start(s) : runtime.deploy(s));
        if (state.status === 'stopped' && running) await runtime.stop(s);
      }
      lastError = null;
    } catch (err) {
      lastError = `the instance running the metrics stack could not bring it to ${state.status}: ${(err as Error).message}`;
      opts.log({ err: (err as Error).message }, 'the metrics stack could not be brought in line with its last operation');
    }
    applied = version;
    return read;
  }

  /** Writes what this holder sees of the stream at `version`, only while it holds the lease (checked in the statement). */
  async function publish({ state, version }: Awaited<ReturnType<typeof readState>>): Promise<void> {
    const view = await liveStatusView(deps, state);
    if (lastError && state.status !== 'not_deployed' && view.running !== true) view.error = lastError;
    const pid = state.status === 'not_deployed' ? null : ((await runtime.status(state.settings)).pid ?? null);
    // A failing target's scrape time moves at each scrape: alone, it is no change worth a write.
    const seen = JSON.stringify([version, pid, { ...view, lastScrapeErrors: (view.lastScrapeErrors as Array<Record<string, unknown>> | undefined)?.map(({ lastScrape: _, ...t }) => t) }]);
    if (seen === published) return;
    await pool.query(
      `INSERT INTO metrics_stack_runtime (id, instance, hostname, pid, dir, version, view, observed_at)
       SELECT 1, $1, $2, $3, $4, $5, $6, now() WHERE EXISTS (SELECT 1 FROM leases WHERE name = $7 AND holder = $1 AND expires_at > now())
       ON CONFLICT (id) DO UPDATE SET instance = EXCLUDED.instance, hostname = EXCLUDED.hostname, pid = EXCLUDED.pid, dir = EXCLUDED.dir, version = EXCLUDED.version, view = EXCLUDED.view, observed_at = EXCLUDED.observed_at`,
      [opts.instanceId, hostname(), pid, dir, version, JSON.stringify(view), METRICS_STACK_LEASE],
    );
    published = seen;
  }

  /** The wait before the next round when no notice comes: a look at a running Prometheus each scrape interval, else the safety round. */
  const nextDelay = (): number => {
    if (!opts.holds() || !opts.serviceAddress()) return WAIT_MS;
    const safety = Math.max(0, lastStreamRead + SAFETY_MS - Date.now());
    const state = lastRead?.state;
    return state?.status === 'running' ? Math.min(safety, Math.min(state.settings.scrapeIntervalSeconds * 1000, OBSERVE_MAX_MS)) : safety;
  };

  const tick = () => {
    if (!owned) return;
    timer = null;
    inRound = true;
    round = serial(async () => {
      // Not before the service listens: Prometheus's config names the service's address.
      if (!owned || !opts.holds() || !opts.serviceAddress()) return;
      if (streamDue || !lastRead || Date.now() - lastStreamRead >= SAFETY_MS) {
        streamDue = false;
        lastStreamRead = Date.now();
        lastRead = await converge();
      }
      if (!scrape || changedNodes.size) await runtime.syncTargets().catch((err: Error) => opts.log({ err: err.message }, 'metrics targets could not be written'));
      await publish(lastRead);
    }).catch((err: Error) => {
      streamDue = true; // the safety round's wait is no retry: the next round reads the stream again
      opts.log({ err: err.message }, 'metrics stack round failed');
    }).finally(() => {
      inRound = false;
      if (!owned) return;
      const now = again;
      again = false;
      timer = setTimeout(tick, now ? 0 : nextDelay());
      timer.unref();
    });
  };

  /** A notice: a round now (or right after the one running). */
  const wake = () => {
    if (!owned) return;
    if (inRound) {
      again = true;
      return;
    }
    if (timer) clearTimeout(timer);
    tick();
  };

  opts.applied((batch) => {
    if (!owned) return;
    if (batch === null) {
      // The read models were emptied and are being replayed: read everything again.
      scrape = null;
      streamDue = true;
      return wake();
    }
    let moved = false;
    let nodes = false;
    for (const e of batch) {
      if (e.streamId === METRICS_STACK_STREAM) moved = true;
      else if (TARGET_EVENTS.has(e.type) && e.streamId.startsWith('node-')) {
        const id = Number((e.data as { nodeId?: unknown }).nodeId);
        if (Number.isSafeInteger(id)) changedNodes.add(id);
        else scrape = null;
        nodes = true;
      }
    }
    if (moved) streamDue = true;
    if (moved || nodes) wake();
  });

  const deps: MetricsStackDeps = {
    ...runtime,
    async owner() {
      if (owned && opts.holds()) return { instance: opts.instanceId, here: true };
      const r = await pool.query('SELECT holder FROM leases WHERE name = $1 AND expires_at > now()', [METRICS_STACK_LEASE]);
      const instance = (r.rows[0]?.holder as string | undefined) ?? null;
      // Held here by the table but not by this instance's own clock (it is about to renew or lose it): here, and alone() says so.
      return { instance, here: owned && instance === opts.instanceId };
    },
    async reported() {
      const r = await pool.query('SELECT instance, version, view, observed_at FROM metrics_stack_runtime WHERE id = 1');
      const row = r.rows[0];
      return row ? ({ instance: row.instance, version: Number(row.version), view: row.view, at: new Date(row.observed_at).toISOString() } satisfies MetricsStackReport) : null;
    },
    alone: (fn) =>
      serial(async () => {
        if (!owned || !opts.holds()) throw new UnavailableError('The metrics stack moved to another instance during the request; send it again.');
        const result = await fn();
        // What the operation did is what the stream now says: the next round has nothing to converge.
        const read = await readState();
        applied = read.version;
        lastRead = read;
        lastError = null;
        await publish(read).catch((err: Error) => opts.log({ err: err.message }, 'metrics stack status could not be published'));
        return result;
      }),
    async exportNode(nodeId) {
      const { state } = await loadState(opts.store, nodeStream(nodeId), nodeAggregate);
      if (!state.node || state.deleted) return null;
      const ops = await opts.operationsFor(state.node, 'observe');
      if (!ops) return { ok: false, reason: `platform ${state.node.platform} is not served by this server` };
      try {
        return { ok: true, text: nodeExposition(await ops.probe(2000)) };
      } catch (err) {
        return { ok: false, reason: (err as Error).message };
      }
    },
  };

  return {
    deps,
    async own() {
      if (owned) return;
      owned = true;
      takeover = true;
      streamDue = true;
      lastRead = null;
      published = null;
      scrape = null;
      tick();
      await round;
    },
    async disown() {
      if (!owned) return;
      owned = false;
      if (timer) clearTimeout(timer);
      timer = null;
      await round.catch(() => undefined);
      await serial(async () => {
        const { state } = await readState();
        if (state.status !== 'not_deployed' && (await runtime.status(state.settings)).state === 'running') await runtime.stop(state.settings);
      }).catch((err: Error) => opts.log({ err: err.message }, 'the metrics stack could not be stopped on handing it over'));
    },
    async standDown() {
      if (owned || !(await deployedHere())) return;
      await serial(async () => {
        const { state } = await readState();
        if (state.status !== 'not_deployed' && (await runtime.status(state.settings)).state === 'running') {
          opts.log({}, 'another instance runs the metrics stack: stopping the Prometheus left running here');
          await runtime.stop(state.settings);
        }
      }).catch((err: Error) => opts.log({ err: err.message }, 'the metrics stack left here could not be stopped'));
    },
  };
}
