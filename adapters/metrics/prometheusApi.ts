// The few calls of Prometheus's HTTP API the metrics routes need: build info, active targets,
// instant and range queries. Failures are thrown with Prometheus's own error text.
import type { RangeSeries as PrometheusSeries, ScrapeTarget as PrometheusTarget } from '../../domain/metrics/metricsStackPorts.ts';

export function prometheusApi(baseUrl: string, timeoutMs = 5000) {
  async function get<T>(apiPath: string, params: Record<string, string> = {}): Promise<T> {
    const url = `${baseUrl}${apiPath}${Object.keys(params).length ? '?' + new URLSearchParams(params) : ''}`;
    const r = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    const body = (await r.json().catch(() => null)) as { status?: string; data?: T; error?: string } | null;
    if (!r.ok || body?.status !== 'success') throw new Error(`Prometheus answered ${r.status}: ${body?.error ?? 'no JSON body'}`);
    return body.data as T;
  }
  return {
    async version(): Promise<string> {
      return (await get<{ version: string }>('/api/v1/status/buildinfo')).version;
    },
    async targets(): Promise<PrometheusTarget[]> {
      const data = await get<{ activeTargets: Array<{ labels: Record<string, string>; health: PrometheusTarget['health']; lastError: string; lastScrape: string; scrapeUrl: string }> }>('/api/v1/targets', { state: 'active' });
      return data.activeTargets.map((t) => ({
        job: t.labels.job,
        instance: t.labels.instance,
        nodeId: t.labels.node_id ? Number(t.labels.node_id) : null,
        health: t.health,
        lastError: t.lastError,
        lastScrape: t.lastScrape,
        scrapeUrl: t.scrapeUrl,
      }));
    },
    /** The first sample's value of an instant query; null when the query matches nothing. */
    async scalar(query: string): Promise<number | null> {
      const data = await get<{ result: Array<{ value: [number, string] }> }>('/api/v1/query', { query });
      const v = data.result[0]?.value[1];
      return v === undefined || !Number.isFinite(Number(v)) ? null : Number(v);
    },
    async range(query: string, start: number, end: number, step: number): Promise<PrometheusSeries[]> {
      const data = await get<{ result: Array<{ metric: Record<string, string>; values: Array<[number, string]> }> }>('/api/v1/query_range', { query, start: String(start), end: String(end), step: String(step) });
      return data.result.map((r) => ({ labels: r.metric, values: r.values }));
    },
  };
}

export type PrometheusApi = ReturnType<typeof prometheusApi>;
