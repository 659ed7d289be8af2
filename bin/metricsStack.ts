// Wiring of the metrics stack (domain/metrics/metricsStackPorts.ts): the managed Prometheus
// runtime, the scrape targets from the nodes read model, the exporter of nodes that serve no
// metrics themselves, and the loop that keeps the discovery files in step with the nodes.
import type pg from 'pg';
import type { Config } from './config.ts';
import type { EventStore } from '../domain/shared/eventStore.ts';
import type { MetricsStackDeps } from '../domain/metrics/metricsStackPorts.ts';
import type { NodeOperationsFor } from '../domain/nodes/nodeOperations.ts';
import { loadState } from '../domain/shared/commandHandler.ts';
import { nodeAggregate, nodeStream } from '../domain/nodes/node.ts';
import { assignedPorts, listNodes } from '../projections/nodes.ts';
import { createMetricsStackRuntime } from '../adapters/metrics/metricsStackRuntime.ts';
import { metricsAddressOf } from '../adapters/metrics/prometheusTargets.ts';
import { nodeExposition } from '../adapters/metrics/nodeExporter.ts';

/** How often the discovery files are compared with the nodes (written only when they differ). */
const TARGET_SYNC_MS = 5_000;

export function createMetricsStack(opts: {
  config: Config;
  pool: pg.Pool;
  store: EventStore;
  operationsFor: NodeOperationsFor;
  serviceAddress: () => string;
  log: (obj: Record<string, unknown>, msg: string) => void;
}): { deps: MetricsStackDeps; close(): void } {
  const { config, pool } = opts;
  const runtime = createMetricsStackRuntime({
    dataDir: config.dataDir,
    defaultEngine: config.nodeEngine,
    binary: config.prometheusBin ?? null,
    env: { ...process.env, ...(config.prometheusImage ? { LNM_IMAGE_PROMETHEUS: config.prometheusImage } : {}) },
    serviceAddress: opts.serviceAddress,
    async scrapeNodes() {
      const { items } = await listNodes(pool, { limit: 1_000_000, offset: 0 });
      return items.map((n) => ({ id: n.id, name: n.name, platform: n.platform, nodeType: n.nodeType, client: n.client, networkId: n.networkId, metricsAddress: metricsAddressOf({ platform: n.platform, client: n.client, config: n.config as unknown as Record<string, unknown> }) }));
    },
    nodePorts: async () => new Set((await assignedPorts(pool)).keys()),
  });
  const timer = setInterval(() => {
    runtime.syncTargets().catch((err: Error) => opts.log({ err: err.message }, 'metrics targets could not be written'));
  }, TARGET_SYNC_MS);
  timer.unref();
  return {
    deps: {
      ...runtime,
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
    },
    close: () => clearInterval(timer),
  };
}
