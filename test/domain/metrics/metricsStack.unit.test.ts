import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { metricsStack, type MetricsStackEvent, type MetricsStackState } from '../../../domain/metrics/metricsStack.ts';
import { ConflictError } from '../../../domain/shared/errors.ts';

const settings = { engine: 'process' as const, port: 9090, scrapeIntervalSeconds: 15, retentionDays: 15 };
const fold = (events: MetricsStackEvent[]): MetricsStackState => events.reduce(metricsStack.evolve, metricsStack.initialState());
const deployed = fold([{ type: 'MetricsStackDeployed', data: { ...settings, at: 't0' } }]);

test('deploy once; a second deploy, and anything on an undeployed stack, is a conflict', () => {
  assert.throws(() => metricsStack.decide({ type: 'DeployMetricsStack', settings, at: 't1' }, deployed), (e: unknown) => e instanceof ConflictError);
  for (const type of ['StopMetricsStack', 'UndeployMetricsStack'] as const) assert.throws(() => metricsStack.decide({ type, at: 't' }, fold([])), (e: unknown) => e instanceof ConflictError);
  assert.throws(() => metricsStack.decide({ type: 'StartMetricsStack', at: 't', running: false }, fold([])), (e: unknown) => e instanceof ConflictError);
});

test('start is refused while it runs, and accepted after a crash (recorded running, engine says not)', () => {
  assert.throws(() => metricsStack.decide({ type: 'StartMetricsStack', at: 't1', running: true }, deployed), (e: unknown) => e instanceof ConflictError);
  assert.equal(metricsStack.decide({ type: 'StartMetricsStack', at: 't1', running: false }, deployed).map((e) => e.type), ['MetricsStackStarted']);
});

test('stop, then undeploy, returns to nothing deployed with settings forgotten', () => {
  const stopped = fold([{ type: 'MetricsStackDeployed', data: { ...settings, at: 't0' } }, { type: 'MetricsStackStopped', data: { at: 't1' } }]);
  assert.is(stopped.status, 'stopped');
  assert.throws(() => metricsStack.decide({ type: 'StopMetricsStack', at: 't2' }, stopped), (e: unknown) => e instanceof ConflictError);
  assert.equal(metricsStack.evolve(stopped, { type: 'MetricsStackUndeployed', data: { at: 't3' } }), { status: 'not_deployed' });
});

test.run();
