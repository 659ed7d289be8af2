import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nodeSeries, parseStep, parseTime, rangeQueryOf } from '../../../domain/metrics/metricsQuery.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

const fieldsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    assert.instance(err, ValidationError);
    return (err as ValidationError).details!.map((d) => d.field);
  }
  assert.unreachable('no ValidationError');
  return [];
};

test('no range fields: no range query', () => {
  assert.is(rangeQueryOf(3, {}), null);
});

test('a named series and a metric name are scoped to the node', () => {
  const named = rangeQueryOf(3, { query: 'block_height', start: '1700000000', end: '1700000600', step: '15s' })!;
  assert.match(named.expression, /ethereum_blockchain_height\{node_id="3"\}/);
  assert.is(named.stepSeconds, 15);
  const metric = rangeQueryOf(3, { query: 'go_goroutines', start: '2026-11-23T10:00:00Z', end: '2026-11-23T11:00:00Z', step: '60' })!;
  assert.is(metric.expression, 'go_goroutines{node_id="3"}');
  assert.is(metric.end - metric.start, 3600);
});

test('the summary reads geth 1.13\'s own series (its /debug/metrics/prometheus names), scoped to the node', () => {
  const q = nodeSeries(4);
  assert.match(q.block_height, 'chain_head_block{node_id="4"}');
  assert.match(q.peers, 'p2p_peers{node_id="4"}');
  assert.match(q.cpu, 'system_cpu_procload_total{node_id="4"}[1m]');
  assert.match(q.cpu, 'process_cpu_seconds_total{node_id="4"}[1m]');
});

test('half-given, malformed, reversed and oversized range queries name their fields', () => {
  assert.equal(fieldsOf(() => rangeQueryOf(1, { query: 'up' })), ['start', 'end', 'step']);
  assert.equal(fieldsOf(() => rangeQueryOf(1, { query: 'up"} or vector(1) #', start: '1', end: '2', step: '1' })), ['query']);
  assert.equal(fieldsOf(() => rangeQueryOf(1, { query: 'up', start: 'yesterday', end: '2', step: '1' })), ['start']);
  assert.equal(fieldsOf(() => rangeQueryOf(1, { query: 'up', start: '100', end: '50', step: '1' })), ['end']);
  assert.equal(fieldsOf(() => rangeQueryOf(1, { query: 'up', start: '1', end: '2', step: '0' })), ['step']);
  assert.equal(fieldsOf(() => rangeQueryOf(1, { query: 'up', start: '1', end: '2', step: '5 minutes' })), ['step']);
  assert.equal(fieldsOf(() => rangeQueryOf(1, { query: 'up', start: '0', end: '86400', step: '1s' })), ['step']);
});

test('times and steps parse as Prometheus takes them', () => {
  assert.is(parseTime('1700000000.5'), 1700000000.5);
  assert.is(parseTime('2026-11-23T10:00:00+01:00'), Date.parse('2026-11-23T09:00:00Z') / 1000);
  assert.is(parseTime('2026-13-45'), null);
  assert.is(parseStep('5m'), 300);
  assert.is(parseStep('250ms'), 0.25);
  assert.is(parseStep('-1'), null);
});

test.run();
