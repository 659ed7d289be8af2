// The service's own Prometheus metrics (prom-client, a registry of its own, not the global one):
// counters and histograms fed as things happen, gauges read at scrape time from the event
// store head, the projection and saga checkpoints, and the nodes read model.
import client from 'prom-client';
import type { ServiceMetrics } from '../../domain/metrics/serviceMetrics.ts';

/** What the gauges are read from at each scrape (the composition root wires the queries). */
export interface ServiceGaugeSources {
  headPosition(): Promise<number>;
  /** Checkpoint of every projection and saga, by name. */
  checkpoints(): Promise<{ projections: Record<string, number>; sagas: Record<string, number> }>;
  /** Node count per platform and status. */
  nodeCounts(): Promise<Array<{ platform: string; status: string; count: number }>>;
  /** Outbound webhook deliveries kept (finished ones are pruned after 30 days), per status. */
  webhookDeliveries(): Promise<Array<{ status: string; count: number }>>;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createServiceMetrics(sources: ServiceGaugeSources): ServiceMetrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'lnm_' });
  const requests = new client.Histogram({ name: 'lnm_http_request_duration_seconds', help: 'HTTP requests by declared route, method and status', labelNames: ['route', 'method', 'status'], buckets: SECONDS, registers: [registry] });
  const appends = new client.Counter({ name: 'lnm_event_store_appends_total', help: 'Appends to the event store, by outcome', labelNames: ['outcome'], registers: [registry] });
  const appendedEvents = new client.Counter({ name: 'lnm_event_store_appended_events_total', help: 'Events appended to the event store', registers: [registry] });
  const appendSeconds = new client.Histogram({ name: 'lnm_event_store_append_duration_seconds', help: 'Latency of event store appends', labelNames: ['outcome'], buckets: SECONDS, registers: [registry] });
  const probes = new client.Counter({ name: 'lnm_node_health_checks_total', help: 'Health checks of nodes by outcome (healthy, unreachable, not_running)', labelNames: ['outcome'], registers: [registry] });
  const probeSeconds = new client.Histogram({ name: 'lnm_node_probe_duration_seconds', help: 'Duration of probes of a node\'s own API, by platform and whether it answered', labelNames: ['platform', 'answered'], buckets: SECONDS, registers: [registry] });
  const head = new client.Gauge({ name: 'lnm_event_store_head_position', help: 'Highest position of the event store', registers: [registry] });
  const projectionLag = new client.Gauge({ name: 'lnm_projection_lag_events', help: 'Events appended but not yet applied by the projection', labelNames: ['projection'], registers: [registry] });
  const sagaLag = new client.Gauge({ name: 'lnm_saga_lag_events', help: 'Events appended but not yet handled by the saga', labelNames: ['saga'], registers: [registry] });
  const nodes = new client.Gauge({ name: 'lnm_nodes', help: 'Managed nodes by platform and status', labelNames: ['platform', 'status'], registers: [registry] });
  const deliveries = new client.Gauge({ name: 'lnm_webhook_deliveries', help: 'Outbound webhook deliveries on record by status (pending, retrying, succeeded, exhausted, cancelled)', labelNames: ['status'], registers: [registry] });
  const scrapeErrors = new client.Counter({ name: 'lnm_metrics_gauge_read_errors_total', help: 'Scrapes whose gauges could not be read (database or event store down)', registers: [registry] });

  async function readGauges(): Promise<void> {
    const [position, checkpoints, counts, hooks] = await Promise.all([sources.headPosition(), sources.checkpoints(), sources.nodeCounts(), sources.webhookDeliveries()]);
    head.set(position);
    projectionLag.reset();
    for (const [name, at] of Object.entries(checkpoints.projections)) projectionLag.set({ projection: name }, Math.max(0, position - at));
    sagaLag.reset();
    for (const [name, at] of Object.entries(checkpoints.sagas)) sagaLag.set({ saga: name }, Math.max(0, position - at));
    nodes.reset();
    for (const c of counts) nodes.set({ platform: c.platform, status: c.status }, c.count);
    deliveries.reset();
    for (const d of hooks) deliveries.set({ status: d.status }, d.count);
  }

  return {
    observeRequest(route, method, status, seconds) {
      requests.observe({ route, method, status: String(status) }, seconds);
    },
    observeAppend(events, seconds, ok) {
      const outcome = ok ? 'ok' : 'failed';
      appends.inc({ outcome });
      appendSeconds.observe({ outcome }, seconds);
      if (ok) appendedEvents.inc(events);
    },
    observeProbeResult(outcome) {
      probes.inc({ outcome });
    },
    observeProbeDuration(platform, answered, seconds) {
      probeSeconds.observe({ platform, answered: String(answered) }, seconds);
    },
    async render() {
      // The counters and histograms are worth serving even when the database is down.
      await readGauges().catch(() => scrapeErrors.inc());
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
