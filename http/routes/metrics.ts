// The managed metrics stack (SPEC Metrics): a real Prometheus deployed, started, stopped and
// undeployed through the API (events MetricsStack*), its scrape configuration following the
// managed nodes through file-based discovery, and each node's figures read back from it.
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { metricsStackOf, metricsStackState, metricsStackStatus, operateMetricsStack } from '../../application/metrics/metricsStackOperations.ts';
import { IdParam } from './schemas.ts';
import { ConflictError, NotFoundError, UnavailableError } from '../../domain/shared/errors.ts';
import { METRICS_STACK_DEFAULTS, metricsStack, type MetricsStackCommand, type MetricsStackSettings, type MetricsStackState } from '../../domain/metrics/metricsStack.ts';
import type { MetricsStackDeps } from '../../domain/metrics/metricsStackPorts.ts';
import { METRIC_NAME, NODE_SERIES_NAMES, nodeSeries, rangeQueryOf } from '../../domain/metrics/metricsQuery.ts';
import { assignedPorts, getNode } from '../../projections/nodes.ts';

const tags = ['metrics'];
const Engine = Type.Union([Type.Literal('process'), Type.Literal('docker')]);
const Num = Type.Union([Type.Number(), Type.Null()]);
const Str = Type.Union([Type.String(), Type.Null()]);
const Settings = {
  engine: Engine,
  port: Type.Integer({ description: 'Prometheus listens on 127.0.0.1:<port>' }),
  scrapeIntervalSeconds: Type.Integer(),
  retentionDays: Type.Integer(),
};
const Target = Type.Object({ job: Type.String(), instance: Type.String(), nodeId: Type.Union([Type.Integer(), Type.Null()]), health: Type.String(), lastError: Type.String(), lastScrape: Type.String(), scrapeUrl: Type.String() });
const StatusView = Type.Object({
  deployed: Type.Boolean(),
  status: Type.String({ description: 'not_deployed, running, stopped, or exited (it ended without a stop) / unknown, as the engine sees it' }),
  running: Type.Boolean(),
  settings: Type.Union([Type.Object(Settings), Type.Null()]),
  url: Str,
  version: Str,
  deployedAt: Str,
  targets: Type.Object({ up: Type.Integer(), down: Type.Integer(), unknown: Type.Integer(), total: Type.Integer() }),
  lastScrapeErrors: Type.Array(Target, { description: 'targets whose last scrape failed, with Prometheus\'s error' }),
  error: Type.Optional(Type.String({ description: 'why Prometheus could not be asked, while it should be running' })),
  instance: Type.Union([Type.String(), Type.Null()], { description: 'the service instance that runs Prometheus (it holds the work:metrics-stack lease; the status is what it sees); null while none does' }),
});

const simple = (path: string, summary: string, description: string, type: 'StartMetricsStack' | 'StopMetricsStack' | 'UndeployMetricsStack', effect: (stack: MetricsStackDeps, s: MetricsStackSettings) => Promise<void>) =>
  defineRoute({
    method: 'post', path, summary, description, tags, permission: 'METRICS_MANAGE',
    responses: { 200: { description: 'status afterwards', schema: StatusView }, 409: { description: 'not deployed, or already in that state' }, 503: { description: 'Prometheus cannot run here (start)' } },
    async handler(input) {
      const at = input.deps.clock().toISOString();
      if (type !== 'StartMetricsStack') return { body: await operateMetricsStack(input, { type, at }, effect) };
      // Start after a crash: recorded as running, but the engine (of the instance running it) says it is not.
      return { body: await operateMetricsStack(input, async (state) => ({ type, at, running: state.status !== 'not_deployed' && (await metricsStackStatus(input.deps)).running === true }), effect) };
    },
  });

export const metricsRoutes = [
  defineRoute({
    method: 'get', path: '/metrics/defaults', summary: 'What a deploy without a body would run', tags, permission: 'METRICS_READ',
    responses: {
      200: {
        description: 'defaults',
        schema: Type.Object({ ...Settings, available: Type.Boolean(), needs: Type.String({ description: 'the binary (process engine) or image (docker engine) Prometheus runs from' }), reason: Type.Optional(Type.String()) }),
      },
    },
    async handler({ deps }) {
      const stack = metricsStackOf(deps);
      const a = await stack.available(stack.defaultEngine);
      return {
        body: {
          engine: stack.defaultEngine, port: await stack.freePort(), scrapeIntervalSeconds: METRICS_STACK_DEFAULTS.scrapeIntervalSeconds, retentionDays: METRICS_STACK_DEFAULTS.retentionDays,
          available: a.ok, needs: a.what, ...(a.ok ? {} : { reason: a.reason }),
        },
      };
    },
  }),
  defineRoute({
    method: 'post', path: '/metrics/deploy', summary: 'Deploy and start the managed Prometheus', tags, permission: 'METRICS_MANAGE',
    description: 'Runs Prometheus (process engine: the prometheus program, Debian package `prometheus`; docker engine: LNM_IMAGE_PROMETHEUS) listening on 127.0.0.1. It scrapes the service itself (with a scrape token written 0600 for it), every node that serves /metrics (besu metrics port, Fabric operations port) and, through the service, nodes that serve none (anvil). Its targets follow the nodes through file-based discovery, without restarts. With several instances it runs on the one holding the work:metrics-stack lease (the status names it) and moves with that lease; a request to another instance is recorded there and applied by the holder before the answer. Records MetricsStackDeployed.',
    body: Type.Object({
      engine: Type.Optional(Engine),
      port: Type.Optional(Type.Integer({ minimum: 1024, maximum: 65535, description: 'default: the first free port from 9090' })),
      scrapeIntervalSeconds: Type.Optional(Type.Integer({ minimum: 5, maximum: 3600, description: `default ${METRICS_STACK_DEFAULTS.scrapeIntervalSeconds}` })),
      retentionDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: `default ${METRICS_STACK_DEFAULTS.retentionDays}` })),
    }, { additionalProperties: false }),
    responses: { 201: { description: 'deployed and running', schema: StatusView }, 409: { description: 'already deployed, or the port is taken' }, 503: { description: 'Prometheus cannot run here (no binary, image or Docker Engine)' } },
    async handler(input) {
      const { deps, body } = input;
      const stack = metricsStackOf(deps);
      const at = deps.clock().toISOString();
      const probe: MetricsStackSettings = { engine: body.engine ?? stack.defaultEngine, port: body.port ?? 0, scrapeIntervalSeconds: body.scrapeIntervalSeconds ?? METRICS_STACK_DEFAULTS.scrapeIntervalSeconds, retentionDays: body.retentionDays ?? METRICS_STACK_DEFAULTS.retentionDays };
      const command = async (state: MetricsStackState): Promise<MetricsStackCommand> => {
        metricsStack.decide({ type: 'DeployMetricsStack', settings: probe, at }, state); // 409 before a port is looked for
        const settings = { ...probe, port: body.port ?? (await stack.freePort()) };
        const holder = (await assignedPorts(deps.pool)).get(settings.port);
        if (holder) throw new ConflictError(`Port ${settings.port} is assigned to node ${holder}; choose another port.`, { field: 'port', port: settings.port });
        return { type: 'DeployMetricsStack', settings, at };
      };
      return { status: 201, body: await operateMetricsStack(input, command, (st, s) => st.deploy(s)) };
    },
  }),
  simple('/metrics/undeploy', 'Stop the managed Prometheus and delete it with its data', 'Records MetricsStackUndeployed.', 'UndeployMetricsStack', (stack, s) => stack.remove(s)),
  simple('/metrics/start', 'Start the stopped Prometheus again (its data kept)', 'Rewrites its configuration and targets first; also starts one that ended without a stop (status exited). Records MetricsStackStarted.', 'StartMetricsStack', (stack, s) => stack.start(s)),
  simple('/metrics/stop', 'Stop the managed Prometheus (its data kept)', 'Records MetricsStackStopped.', 'StopMetricsStack', (stack, s) => stack.stop(s)),
  defineRoute({
    method: 'get', path: '/metrics/status', summary: 'Whether Prometheus runs, its version, targets up and down, and the last scrape errors', tags, permission: 'METRICS_READ',
    responses: { 200: { description: 'status', schema: StatusView } },
    async handler({ deps }) {
      return { body: await metricsStackStatus(deps) };
    },
  }),
  defineRoute({
    method: 'get', path: '/metrics/node/:id', summary: "A node's figures from Prometheus: an instant summary, and a range query", tags, permission: 'METRICS_READ',
    description: `The summary: up, block height (besu, geth, anvil through the service) or ledger height (Fabric, highest channel), peers, CPU (cores, 1-minute rate) and resident memory where the node exports them (null otherwise: geth exports no resident memory), and the node's scrape. A range query takes query (${NODE_SERIES_NAMES.join(', ')}, or any metric name, scoped to the node), start and end (unix seconds or RFC 3339), step (seconds or 15s, 5m, 1h), at most 11000 points.`,
    params: IdParam,
    query: Type.Object({
      query: Type.Optional(Type.String({ maxLength: 200, pattern: METRIC_NAME.source, description: `${NODE_SERIES_NAMES.join(', ')}, or a metric name` })),
      start: Type.Optional(Type.String({ maxLength: 40 })),
      end: Type.Optional(Type.String({ maxLength: 40 })),
      step: Type.Optional(Type.String({ maxLength: 20 })),
    }, { additionalProperties: false }),
    responses: {
      200: {
        description: 'the summary, and the range when asked',
        schema: Type.Object({
          nodeId: Type.Integer(), name: Type.String(), platform: Type.String(), at: Type.String(),
          up: Type.Union([Type.Boolean(), Type.Null()]), blockHeight: Num, peers: Num, cpuCores: Num, memoryBytes: Num,
          scrape: Type.Union([Target, Type.Null()]),
          range: Type.Optional(Type.Object({ query: Type.String(), expression: Type.String(), start: Type.Number(), end: Type.Number(), step: Type.Number(), series: Type.Array(Type.Object({ labels: Type.Record(Type.String(), Type.String()), values: Type.Array(Type.Tuple([Type.Number(), Type.String()])) })) })),
        }),
      },
      404: { description: 'no such node' },
      503: { description: 'the metrics stack is not running' },
    },
    async handler({ deps, params, query }) {
      const range = rangeQueryOf(params.id, query); // 400 before anything else
      const stack = metricsStackOf(deps);
      const node = await getNode(deps.pool, params.id);
      if (!node) throw new NotFoundError('Node', params.id);
      const { state } = await metricsStackState(deps);
      if (state.status !== 'running') throw new UnavailableError(`The metrics stack is ${state.status === 'not_deployed' ? 'not deployed: deploy' : 'stopped: start'} the metrics stack first.`, { status: state.status });
      const s = state.settings;
      const series = nodeSeries(node.id);
      let summary;
      try {
        const [up, blockHeight, peers, cpuCores, memoryBytes, targets] = await Promise.all([
          stack.scalar(s, series.up), stack.scalar(s, series.block_height), stack.scalar(s, series.peers), stack.scalar(s, series.cpu), stack.scalar(s, series.memory), stack.targets(s),
        ]);
        summary = { up: up === null ? null : up === 1, blockHeight, peers, cpuCores, memoryBytes, scrape: targets.find((t) => t.nodeId === node.id) ?? null };
        if (range) {
          const found = await stack.range(s, range.expression, range.start, range.end, range.stepSeconds);
          Object.assign(summary, { range: { query: range.query, expression: range.expression, start: range.start, end: range.end, step: range.stepSeconds, series: found } });
        }
      } catch (err) {
        throw new UnavailableError(`Prometheus did not answer: ${(err as Error).message}`);
      }
      return { body: { nodeId: node.id, name: node.name, platform: node.platform, at: deps.clock().toISOString(), ...summary } };
    },
  }),
];
