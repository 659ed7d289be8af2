// The metrics stack: the Prometheus the service deploys and runs (GET /metrics/status, polled):
// whether it runs, its address and version, targets up and down with the last scrape errors;
// deploy it (engine, port, scrape interval, retention; GET /metrics/defaults fills the form and
// says when Prometheus cannot run here), start, stop and undeploy (its data deleted, after a
// confirmation). Each node's charts are on the node's page.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Json } from '../../api/client';
import { ActionError, QueryView, FieldError, invalid } from '../../components/states';
import { DataTable, type Column } from '../../components/DataTable';
import { StatusBadge, When } from '../../components/format';
import { Can } from '../../session';

type Status = Json<'/api/v1/metrics/status', 'get'>;
type Target = Status['lastScrapeErrors'][number];

const STATUS_KEY = ['metrics', 'status'];

const targetColumns: Array<Column<Target>> = [
  { header: 'Job', cell: (t) => t.job },
  { header: 'Node', cell: (t) => (t.nodeId ? <Link to={`/nodes/${t.nodeId}`}>#{t.nodeId}</Link> : '—') },
  { header: 'Scrape URL', cell: (t) => <code className="hash">{t.scrapeUrl}</code> },
  { header: 'Health', cell: (t) => t.health },
  { header: 'Last error', cell: (t) => <span className="error-text">{t.lastError}</span> },
  { header: 'Last scrape', cell: (t) => <When at={t.lastScrape} /> },
];

export default function MetricsStack() {
  const status = useQuery({ queryKey: STATUS_KEY, refetchInterval: 5_000, queryFn: () => unwrap(api.GET('/api/v1/metrics/status')) });
  return (
    <section>
      <h1>Metrics</h1>
      <p className="muted">A Prometheus the service runs on this host: it scrapes the service and every node, and each node's page charts its figures.</p>
      <QueryView q={status} what="Asking for the metrics stack's status">
        {(s) => (s.deployed ? <Deployed s={s} /> : <NotDeployed />)}
      </QueryView>
    </section>
  );
}

export function useOperate(path: '/api/v1/metrics/start' | '/api/v1/metrics/stop' | '/api/v1/metrics/undeploy') {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.POST(path)),
    onSuccess: (s) => qc.setQueryData(STATUS_KEY, s),
    onSettled: () => qc.invalidateQueries({ queryKey: ['metrics'] }),
  });
}

function Deployed({ s }: { s: Status }) {
  const start = useOperate('/api/v1/metrics/start');
  const stop = useOperate('/api/v1/metrics/stop');
  const undeploy = useOperate('/api/v1/metrics/undeploy');
  const [confirm, setConfirm] = useState(false);
  const busy = start.isPending || stop.isPending || undeploy.isPending;
  return (
    <>
      <div className="tiles">
        <article className="card tile" aria-labelledby="stack-title">
          <h2 id="stack-title">
            Prometheus <StatusBadge status={s.status} />
          </h2>
          <dl className="facts">
            <dt>Status</dt>
            <dd data-testid="stack-status">{s.status}</dd>
            <dt>Address</dt>
            <dd>{s.url ? <code>{s.url}</code> : '—'}</dd>
            <dt>Version</dt>
            <dd>{s.version ?? '—'}</dd>
            <dt>Engine</dt>
            <dd>{s.settings?.engine}</dd>
            <dt>Scrape interval</dt>
            <dd>{s.settings?.scrapeIntervalSeconds} s</dd>
            <dt>Retention</dt>
            <dd>{s.settings?.retentionDays} days</dd>
            <dt>Deployed</dt>
            <dd>
              <When at={s.deployedAt} />
            </dd>
          </dl>
          {s.error ? <p className="error-text" role="alert">{s.error}</p> : null}
        </article>
        <article className="card tile" aria-labelledby="targets-title">
          <h2 id="targets-title">Targets</h2>
          <p className="big" data-testid="targets-up">
            {s.targets.up} / {s.targets.total}
          </p>
          <p className="muted">
            up of all targets; {s.targets.down} down, {s.targets.unknown} not scraped yet.
          </p>
        </article>
      </div>
      <Can permission="METRICS_MANAGE">
        <div className="actions">
          {s.running ? (
            <button type="button" disabled={busy} onClick={() => stop.mutate()}>
              {stop.isPending ? 'Stopping…' : 'Stop Prometheus'}
            </button>
          ) : (
            <button type="button" className="primary" disabled={busy} onClick={() => start.mutate()}>
              {start.isPending ? 'Starting…' : 'Start Prometheus'}
            </button>
          )}
          {!confirm ? (
            <button type="button" className="danger" disabled={busy} onClick={() => setConfirm(true)}>
              Undeploy
            </button>
          ) : (
            <span role="group" aria-label="Confirm undeploy" className="actions">
              Delete Prometheus and all its data?
              <button type="button" className="danger" disabled={busy} onClick={() => undeploy.mutate()}>
                {undeploy.isPending ? 'Undeploying…' : 'Undeploy and delete its data'}
              </button>
              <button type="button" disabled={busy} onClick={() => setConfirm(false)}>
                Cancel
              </button>
            </span>
          )}
        </div>
        <ActionError error={start.error ?? stop.error ?? undeploy.error} />
      </Can>
      <h2>Last scrape errors</h2>
      <DataTable caption="Targets whose last scrape failed" rows={s.lastScrapeErrors} columns={targetColumns} rowKey={(t) => `${t.job}/${t.instance}`} empty={s.running ? 'No target failed its last scrape.' : 'Prometheus is not running: nothing is scraped.'} />
    </>
  );
}

function NotDeployed() {
  return (
    <>
      <div className="state empty" data-testid="stack-status">
        The metrics stack is not deployed: nodes' figures are not kept, and node pages show no charts.
      </div>
      <Can permission="METRICS_MANAGE">
        <DeployForm />
      </Can>
    </>
  );
}

function DeployForm() {
  const qc = useQueryClient();
  const defaults = useQuery({ queryKey: ['metrics', 'defaults'], queryFn: () => unwrap(api.GET('/api/v1/metrics/defaults')) });
  const [form, setForm] = useState<{ engine?: 'process' | 'docker'; port?: string; scrape?: string; retention?: string }>({});
  const deploy = useMutation({
    mutationFn: () => {
      const d = defaults.data!;
      return unwrap(
        api.POST('/api/v1/metrics/deploy', {
          body: { engine: form.engine ?? (d.engine as 'process' | 'docker'), port: Number(form.port ?? d.port), scrapeIntervalSeconds: Number(form.scrape ?? d.scrapeIntervalSeconds), retentionDays: Number(form.retention ?? d.retentionDays) },
        }),
      );
    },
    onSuccess: (s) => qc.setQueryData(STATUS_KEY, s),
  });
  return (
    <QueryView q={defaults} what="Loading the defaults">
      {(d) => (
        <form
          className="card form-grid"
          aria-labelledby="deploy-metrics-title"
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            deploy.mutate();
          }}
        >
          <h2 id="deploy-metrics-title">Deploy Prometheus</h2>
          {!d.available ? (
            <p className="error-text" role="alert">
              Prometheus cannot run here with the {d.engine} engine: {d.reason} (needs {d.needs}).
            </p>
          ) : null}
          <label>
            Engine
            <select {...invalid(deploy.error, 'engine')} value={form.engine ?? d.engine} onChange={(e) => setForm({ ...form, engine: e.target.value as 'process' | 'docker' })}>
              <option value="process">process (the prometheus program)</option>
              <option value="docker">docker</option>
            </select>
            <FieldError error={deploy.error} field="engine" />
          </label>
          <label>
            Port (on 127.0.0.1)
            <input {...invalid(deploy.error, 'port')} type="number" min={1024} max={65535} required value={form.port ?? d.port} onChange={(e) => setForm({ ...form, port: e.target.value })} />
            <FieldError error={deploy.error} field="port" />
          </label>
          <label>
            Scrape interval (seconds)
            <input {...invalid(deploy.error, 'scrapeIntervalSeconds')} type="number" min={5} max={3600} required value={form.scrape ?? d.scrapeIntervalSeconds} onChange={(e) => setForm({ ...form, scrape: e.target.value })} />
            <FieldError error={deploy.error} field="scrapeIntervalSeconds" />
          </label>
          <label>
            Retention (days)
            <input {...invalid(deploy.error, 'retentionDays')} type="number" min={1} max={3650} required value={form.retention ?? d.retentionDays} onChange={(e) => setForm({ ...form, retention: e.target.value })} />
            <FieldError error={deploy.error} field="retentionDays" />
          </label>
          <ActionError error={deploy.error} />
          <div>
            <button type="submit" className="primary" disabled={deploy.isPending}>
              {deploy.isPending ? 'Deploying…' : 'Deploy Prometheus'}
            </button>
          </div>
        </form>
      )}
    </QueryView>
  );
}
