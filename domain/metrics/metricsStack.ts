// The managed metrics stack: one Prometheus per deployment (run by the instance holding the
// work:metrics-stack lease, bin/metricsStack.ts), deployed, started, stopped and
// undeployed through the API. One stream; its events say what an operator did (the live state
// of the process or container is the engine's to tell).
import type { Decider } from '../shared/decider.ts';
import { assertNever } from '../shared/decider.ts';
import { ConflictError } from '../shared/errors.ts';
import type { NodeEngineKind } from '../nodes/nodeEngine.ts';

export const METRICS_STACK_STREAM = 'metrics-stack';

export interface MetricsStackSettings {
  engine: NodeEngineKind;
  /** Prometheus listens on 127.0.0.1:<port>. */
  port: number;
  scrapeIntervalSeconds: number;
  retentionDays: number;
}

export const METRICS_STACK_DEFAULTS = { port: 9090, scrapeIntervalSeconds: 15, retentionDays: 15 } as const;

export type MetricsStackState =
  | { status: 'not_deployed' }
  | { status: 'running' | 'stopped'; settings: MetricsStackSettings; deployedAt: string; changedAt: string };

export type MetricsStackEvent =
  | { type: 'MetricsStackDeployed'; data: MetricsStackSettings & { at: string } }
  | { type: 'MetricsStackStarted'; data: { at: string } }
  | { type: 'MetricsStackStopped'; data: { at: string } }
  | { type: 'MetricsStackUndeployed'; data: { at: string } };

export type MetricsStackCommand =
  | { type: 'DeployMetricsStack'; settings: MetricsStackSettings; at: string }
  /** `running`: whether the engine sees Prometheus running now (a crashed one may be started again). */
  | { type: 'StartMetricsStack'; at: string; running: boolean }
  | { type: 'StopMetricsStack'; at: string }
  | { type: 'UndeployMetricsStack'; at: string };

const notDeployed = () => new ConflictError('The metrics stack is not deployed: deploy the metrics stack first.', { status: 'not_deployed' }, 'METRICS_STACK_NOT_DEPLOYED');

export const metricsStack: Decider<MetricsStackState, MetricsStackCommand, MetricsStackEvent> = {
  initialState: () => ({ status: 'not_deployed' }),
  evolve(s, e) {
    switch (e.type) {
      case 'MetricsStackDeployed': {
        const { at, ...settings } = e.data;
        return { status: 'running', settings, deployedAt: at, changedAt: at };
      }
      case 'MetricsStackStarted':
        return s.status === 'not_deployed' ? s : { ...s, status: 'running', changedAt: e.data.at };
      case 'MetricsStackStopped':
        return s.status === 'not_deployed' ? s : { ...s, status: 'stopped', changedAt: e.data.at };
      case 'MetricsStackUndeployed':
        return { status: 'not_deployed' };
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'DeployMetricsStack':
        if (s.status !== 'not_deployed') throw new ConflictError(`The metrics stack is already deployed (${s.status}); undeploy it first to deploy it anew.`, { status: s.status }, 'METRICS_STACK_DEPLOYED');
        return [{ type: 'MetricsStackDeployed', data: { ...c.settings, at: c.at } }];
      case 'StartMetricsStack':
        if (s.status === 'not_deployed') throw notDeployed();
        if (s.status === 'running' && c.running) throw new ConflictError('The metrics stack is already running.', { status: s.status }, 'METRICS_STACK_RUNNING');
        return [{ type: 'MetricsStackStarted', data: { at: c.at } }];
      case 'StopMetricsStack':
        if (s.status === 'not_deployed') throw notDeployed();
        if (s.status === 'stopped') throw new ConflictError('The metrics stack is already stopped.', { status: s.status }, 'METRICS_STACK_STOPPED');
        return [{ type: 'MetricsStackStopped', data: { at: c.at } }];
      case 'UndeployMetricsStack':
        if (s.status === 'not_deployed') throw notDeployed();
        return [{ type: 'MetricsStackUndeployed', data: { at: c.at } }];
      default:
        return assertNever(c);
    }
  },
};
