// The service's own metrics, as the HTTP layer, the event store and the health monitor feed
// them: a port, so only adapters/metrics/serviceMetrics.ts knows prom-client.

export interface ServiceMetrics {
  /** One answered HTTP request: `route` is the declared route path (never the raw URL). */
  observeRequest(route: string, method: string, status: number, seconds: number): void;
  /** One append to the event store: how many events, how long, whether it failed. */
  observeAppend(events: number, seconds: number, ok: boolean): void;
  /** The outcome of one health check of a node, as the health monitor records it. */
  observeProbeResult(outcome: 'healthy' | 'unreachable' | 'not_running'): void;
  /** How long one probe of a node's own API (JSON-RPC, /healthz) took, and whether it answered. */
  observeProbeDuration(platform: string, answered: boolean, seconds: number): void;
  /** The exposition text (gauges are read at this moment). */
  render(): Promise<{ contentType: string; body: string }>;
}
