// What the metrics routes need from the managed metrics stack (a Prometheus run by a node
// engine) and from the service's exporter of nodes that export no metrics themselves. The
// composition root wires adapters/metrics/* into it.

export interface MetricsStackDeps {
  /** True when `token` is the scrape token the managed Prometheus presents on GET /metrics. */
  scrapeTokenMatches(token: string): boolean;
  /** A node's live figures in exposition format; null when there is no such node. */
  exportNode(nodeId: number): Promise<string | null>;
}
