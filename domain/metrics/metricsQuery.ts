// What GET /metrics/node/{id} asks Prometheus: the instant summary of one node (the same few
// figures, whatever exports them: besu, geth, Fabric's operations endpoint, or the service's own
// exporter of anvil), and a validated range query over one of that node's series.
import { ValidationError, type FieldIssue } from '../shared/errors.ts';

/** Prometheus refuses range queries of more points than this. */
export const MAX_RANGE_POINTS = 11_000;

/** A metric name: letters, digits, "_" and ":"; nothing that could leave the node's selector. */
export const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/** The summary's figures as PromQL over one node's series (the first of the alternatives a node exports wins). */
export function nodeSeries(nodeId: number): Record<NodeSeriesName, string> {
  const sel = `{node_id="${nodeId}"}`;
  return {
    up: `max(up${sel})`,
    // Fabric-X: the committer sidecar's ledger and arma's assembler's (adapters/ledgerx/fabricXLedgerMetrics.ts).
    // geth 1.13 (/debug/metrics/prometheus): chain_head_block, p2p_peers, and its process CPU
    // seconds as system_cpu_procload_total; it exports no resident memory.
    block_height: `max(ethereum_blockchain_height${sel} or chain_head_block${sel} or lnm_node_block_height${sel} or ledger_blockchain_height${sel} or sidecar_ledger_block_height${sel} or assembler_ledger_blocks_count_total${sel})`,
    peers: `max(ethereum_peer_count${sel} or p2p_peers${sel} or lnm_node_peer_count${sel} or gossip_membership_total_peers_known${sel})`,
    cpu: `sum(rate(process_cpu_seconds_total${sel}[1m]) or rate(system_cpu_procload_total${sel}[1m]))`,
    memory: `sum(process_resident_memory_bytes${sel})`,
  };
}

export const NODE_SERIES_NAMES = ['up', 'block_height', 'peers', 'cpu', 'memory'] as const;
export type NodeSeriesName = (typeof NODE_SERIES_NAMES)[number];

export interface RangeQueryInput {
  query?: string;
  start?: string;
  end?: string;
  step?: string;
}

export interface RangeQuery {
  query: string;
  /** The PromQL sent to Prometheus. */
  expression: string;
  /** Unix seconds. */
  start: number;
  end: number;
  stepSeconds: number;
}

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** Unix seconds, or an RFC 3339 time; null when neither. */
export function parseTime(v: string): number | null {
  if (/^\d{1,12}(\.\d{1,3})?$/.test(v)) return Number(v);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(v)) return null;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms / 1000 : null;
}

/** Seconds ("30") or a Prometheus duration ("15s", "5m", "1h"); null when neither. */
export function parseStep(v: string): number | null {
  if (/^\d{1,9}(\.\d{1,3})?$/.test(v)) return Number(v);
  const m = /^(\d{1,9})(ms|s|m|h|d|w)$/.exec(v);
  return m ? Number(m[1]) * UNIT_SECONDS[m[2]] : null;
}

/**
 * The range query of the request, or null when it asks for none (no query, start, end or
 * step). Anything half given or out of bounds is a ValidationError naming each field.
 */
export function rangeQueryOf(nodeId: number, input: RangeQueryInput): RangeQuery | null {
  const fields = ['query', 'start', 'end', 'step'] as const;
  if (fields.every((f) => input[f] === undefined)) return null;
  const issues: FieldIssue[] = fields.filter((f) => input[f] === undefined).map((f) => ({ field: f, message: 'is needed with a range query (query, start, end and step together)' }));
  const query = input.query;
  if (query !== undefined && !METRIC_NAME.test(query)) issues.push({ field: 'query', message: `must be ${NODE_SERIES_NAMES.join(', ')} or a metric name` });
  const start = input.start === undefined ? null : parseTime(input.start);
  const end = input.end === undefined ? null : parseTime(input.end);
  const step = input.step === undefined ? null : parseStep(input.step);
  if (input.start !== undefined && start === null) issues.push({ field: 'start', message: 'must be unix seconds or an RFC 3339 time' });
  if (input.end !== undefined && end === null) issues.push({ field: 'end', message: 'must be unix seconds or an RFC 3339 time' });
  if (input.step !== undefined && (step === null || step <= 0)) issues.push({ field: 'step', message: 'must be a positive number of seconds or a duration such as 15s, 5m, 1h' });
  if (start !== null && end !== null && end <= start) issues.push({ field: 'end', message: 'must be after start' });
  if (start !== null && end !== null && step && end > start && (end - start) / step > MAX_RANGE_POINTS) {
    issues.push({ field: 'step', message: `gives ${Math.ceil((end - start) / step)} points; at most ${MAX_RANGE_POINTS}: widen the step or narrow the range` });
  }
  if (issues.length) throw new ValidationError('The range query is not valid.', issues);
  const named = (NODE_SERIES_NAMES as readonly string[]).includes(query!) ? nodeSeries(nodeId)[query as NodeSeriesName] : null;
  return { query: query!, expression: named ?? `${query}{node_id="${nodeId}"}`, start: start!, end: end!, stepSeconds: step! };
}
