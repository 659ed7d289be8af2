// What the metrics routes need from the managed metrics stack (a Prometheus run by a node
// engine) and from the service's exporter of nodes that export no metrics themselves. The
// composition root wires adapters/metrics/* into it.
import type { NodeEngineKind, NodeStatus } from '../nodes/nodeEngine.ts';
import type { MetricsStackSettings } from './metricsStack.ts';

export interface ScrapeTarget {
  job: string;
  instance: string;
  nodeId: number | null;
  health: 'up' | 'down' | 'unknown';
  lastError: string;
  lastScrape: string;
  scrapeUrl: string;
}

export interface RangeSeries {
  labels: Record<string, string>;
  values: Array<[number, string]>;
}

export type PrometheusAvailability = { ok: true; what: string } | { ok: false; what: string; reason: string };

/** A node's figures for the exporter: exposition text, why the node did not answer, or null for no such node. */
export type NodeExport = { ok: true; text: string } | { ok: false; reason: string } | null;

/** What the instance running the stack last saw of it (GET /metrics/status's body, less `instance`). */
export interface MetricsStackReport {
  instance: string;
  /** The metrics-stack stream's version it had applied. */
  version: number;
  view: Record<string, unknown>;
  at: string;
}

export interface MetricsStackDeps {
  /**
   * Where the stack runs: the instance holding the `work:metrics-stack` lease now (null while none
   * does), and whether that is this instance. Only that instance runs Prometheus.
   */
  owner(): Promise<{ instance: string | null; here: boolean }>;
  /** What the holder last published (each second and after each operation); null before any. */
  reported(): Promise<MetricsStackReport | null>;
  /** On the holder: runs an operation with no reconciling round beside it, then publishes the status. */
  alone<T>(fn: () => Promise<T>): Promise<T>;
  /** True when `token` is the scrape token the managed Prometheus presents on GET /metrics. */
  scrapeTokenMatches(token: string): Promise<boolean>;
  /** A node's live figures in exposition format (asked of the node at this moment). */
  exportNode(nodeId: number): Promise<NodeExport>;
  /** The engine new stacks run on by default (LNM_NODE_ENGINE). */
  defaultEngine: NodeEngineKind;
  /** Whether Prometheus can run on this engine: the binary (process) or image (docker) it needs. */
  available(engine: NodeEngineKind): Promise<PrometheusAvailability>;
  /** The first port from 9090 up that nothing listens on and no node holds. */
  freePort(): Promise<number>;
  /** Writes config, scrape token and targets, then starts; on failure leaves nothing behind. */
  deploy(settings: MetricsStackSettings): Promise<void>;
  /** Rewrites config and targets (the data stays), then starts. */
  start(settings: MetricsStackSettings): Promise<void>;
  /** Stops it; its data stays. */
  stop(settings: MetricsStackSettings): Promise<void>;
  /** Stops it and deletes everything: config, token, data. */
  remove(settings: MetricsStackSettings): Promise<void>;
  status(settings: MetricsStackSettings): Promise<NodeStatus>;
  /** Rewrites the discovery files from the managed nodes (when deployed); true when they changed. */
  syncTargets(): Promise<boolean>;
  url(settings: MetricsStackSettings): string;
  version(settings: MetricsStackSettings): Promise<string>;
  targets(settings: MetricsStackSettings): Promise<ScrapeTarget[]>;
  /** The first value of an instant query; null when nothing matches. */
  scalar(settings: MetricsStackSettings, expression: string): Promise<number | null>;
  range(settings: MetricsStackSettings, expression: string, start: number, end: number, stepSeconds: number): Promise<RangeSeries[]>;
}
