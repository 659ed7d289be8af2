// A node's figures from the managed Prometheus (GET /metrics/node/{id}): the instant summary
// (up, block height, peers, CPU, memory, its scrape) and a chart of one series over a window,
// refreshed every 15 s. Without a running metrics stack the API answers 503: said in words with
// a link to the metrics page, where it is deployed.
import { lazy, Suspense, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { useOperate } from '../metrics/MetricsStack';
import { Can } from '../../session';
import { api, ApiError, unwrap } from '../../api/client';
import { ActionError, ErrorState, Loading } from '../../components/states';
import type { ChartSeries } from '../../components/TimeChart';

const TimeChart = lazy(() => import('../../components/TimeChart'));

const SERIES = {
  block_height: { label: 'Block height', unit: '' },
  peers: { label: 'Peers', unit: '' },
  cpu: { label: 'CPU', unit: 'cores' },
  memory: { label: 'Resident memory', unit: 'MiB' },
  up: { label: 'Up (1) or down (0)', unit: '' },
} as const;
type SeriesName = keyof typeof SERIES;

const WINDOWS = [
  { label: 'last 15 minutes', seconds: 900, step: '15s' },
  { label: 'last hour', seconds: 3600, step: '30s' },
  { label: 'last 6 hours', seconds: 21_600, step: '2m' },
  { label: 'last 24 hours', seconds: 86_400, step: '5m' },
];

export function NodeMetrics({ nodeId }: { nodeId: number }) {
  const [name, setName] = useState<SeriesName>('block_height');
  const [win, setWin] = useState(0);
  const w = WINDOWS[win];
  const q = useQuery({
    queryKey: ['metrics', 'node', nodeId, name, win],
    refetchInterval: 15_000,
    retry: false,
    queryFn: () => {
      const end = Math.floor(Date.now() / 1000);
      return unwrap(api.GET('/api/v1/metrics/node/{id}', { params: { path: { id: nodeId }, query: { query: name, start: String(end - w.seconds), end: String(end), step: w.step } } }));
    },
  });
  const series: ChartSeries[] = useMemo(
    () =>
      (q.data?.range?.series ?? []).map((s, i) => ({
        label: s.labels.job ? `${SERIES[name].label} (${s.labels.job})` : `${SERIES[name].label}${i ? ` ${i + 1}` : ''}`,
        points: s.values.map(([t, v]) => [t, name === 'memory' ? Number(v) / 1048576 : Number(v)] as [number, number]),
      })),
    [q.data, name],
  );
  return (
    <>
      <form className="filters" aria-label="Chart" onSubmit={(e) => e.preventDefault()}>
        <label>
          Series
          <select value={name} onChange={(e) => setName(e.target.value as SeriesName)}>
            {(Object.keys(SERIES) as SeriesName[]).map((k) => (
              <option key={k} value={k}>
                {SERIES[k].label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Window
          <select value={win} onChange={(e) => setWin(Number(e.target.value))}>
            {WINDOWS.map((x, i) => (
              <option key={x.label} value={i}>
                {x.label}
              </option>
            ))}
          </select>
        </label>
      </form>
      {q.isPending ? (
        <Loading what="Asking Prometheus" />
      ) : q.error instanceof ApiError && q.error.status === 503 ? (
        <MetricsUnavailable status={String(q.error.context.status ?? '')} />
      ) : q.error ? (
        <ErrorState error={q.error} retry={() => q.refetch()} />
      ) : (
        <>
          <dl className="facts" data-testid="metrics-summary">
            <dt>Scraped</dt>
            <dd>{q.data.scrape ? `${q.data.scrape.health}${q.data.scrape.lastError ? `: ${q.data.scrape.lastError}` : ''}` : 'not yet a target'}</dd>
            <dt>Up</dt>
            <dd>{q.data.up === null ? '—' : q.data.up ? 'yes' : 'no'}</dd>
            <dt>Block height</dt>
            <dd data-testid="metrics-block-height">{q.data.blockHeight ?? '—'}</dd>
            <dt>Peers</dt>
            <dd>{q.data.peers ?? '—'}</dd>
            <dt>CPU</dt>
            <dd>{q.data.cpuCores === null ? '—' : `${q.data.cpuCores.toFixed(3)} cores`}</dd>
            <dt>Memory</dt>
            <dd>{q.data.memoryBytes === null ? '—' : `${(q.data.memoryBytes / 1048576).toFixed(1)} MiB`}</dd>
          </dl>
          {series.every((s) => s.points.length === 0) ? (
            <div className="state empty">No samples of {SERIES[name].label.toLowerCase()} in the {w.label}: the node may not export it, or Prometheus has not scraped it yet.</div>
          ) : (
            <Suspense fallback={<Loading what="Loading chart" />}>
              <TimeChart title={`${SERIES[name].label}, ${w.label}`} unit={SERIES[name].unit} series={series} />
            </Suspense>
          )}
        </>
      )}
    </>
  );
}

/**
 * No figures because the metrics stack does not run: said as what to do, with the button that
 * does it (start a stopped stack here; deploying takes the metrics page's form), never as an API
 * route to call.
 */
function MetricsUnavailable({ status }: { status: string }) {
  const start = useOperate('/api/v1/metrics/start'); // its answer refreshes every metrics query, these charts' too
  const stopped = status === 'stopped';
  return (
    <div className="state empty" data-testid="metrics-unavailable">
      <p>{stopped ? 'The metrics stack is stopped' : 'The metrics stack is not deployed'}: it is the Prometheus the service runs, which keeps these figures.</p>
      <Can permission="METRICS_MANAGE">
        {stopped ? (
          <button type="button" className="primary" disabled={start.isPending} onClick={() => start.mutate()}>
            {start.isPending ? 'Starting the metrics stack…' : 'Start the metrics stack'}
          </button>
        ) : (
          <Link className="button primary" to="/metrics">
            Deploy the metrics stack
          </Link>
        )}
      </Can>
      <ActionError error={start.error} />
    </div>
  );
}
