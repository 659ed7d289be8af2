// What an operator checks first, at a glance on the dashboard: nodes in error or down with their
// reason, each network's height, certificates expiring or expired, the last backup of each
// schedule with its status, and webhooks whose deliveries fail. Each part shows only to those who
// may read it (and webhooks only on an edition that has them); every part links to its page.
import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { POLL_MS, useAllNodes, useConsortiumNetworks, useEvmNetworks, type NodeItem } from '../api/queries';
import { editionAtLeast, useSession } from '../session';
import { QueryView } from '../components/states';
import { DataTable } from '../components/DataTable';
import { StatusBadge, When } from '../components/format';

const PAGE = 500;

export function DashboardGlance() {
  const { can, me } = useSession();
  return (
    <div className="tiles glance">
      {can('NODE_READ') ? <NodesInError /> : null}
      {can('NETWORK_READ') && can('NODE_READ') ? <NetworkHeights /> : null}
      {can('KEY_READ') ? <ExpiringCertificates /> : null}
      {can('BACKUP_READ') ? <LastBackups /> : null}
      {can('system:configure') && editionAtLeast(me.edition, 'pro') ? <FailingWebhooks /> : null}
    </div>
  );
}

function Card({ id, title, children }: { id: string; title: string; children: React.ReactNode }) {
  return (
    <article className="card tile" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </article>
  );
}

function NodesInError() {
  const nodes = useAllNodes();
  return (
    <Card id="glance-errors" title="Nodes in error">
      <QueryView q={nodes} what="Loading nodes">
        {(d) => (
          <DataTable
            caption="Nodes in error or down, with their reason"
            empty="No node in error or down."
            rows={d.items.filter((n) => n.status === 'error' || n.status === 'down')}
            rowKey={(n) => n.id}
            columns={[
              { header: 'Node', cell: (n) => <Link to={`/nodes/${n.id}`}>{n.name}</Link> },
              { header: 'Status', cell: (n) => <StatusBadge status={n.status} /> },
              { header: 'Reason', cell: (n) => <span className="error-text">{n.error ?? '—'}</span> },
            ]}
          />
        )}
      </QueryView>
    </Card>
  );
}

/** The networks a node belongs to: an evm node's network_id, a consortium node's memberships. */
function networksOf(n: NodeItem): number[] {
  const o = n as { network_id?: number | null; networks?: Array<{ network_id: number }> };
  return [...(o.network_id ? [o.network_id] : []), ...(o.networks?.map((m) => m.network_id) ?? [])];
}

function NetworkHeights() {
  const nodes = useAllNodes();
  const evm = useEvmNetworks();
  const consortium = useConsortiumNetworks();
  const rows = [
    ...(evm.data?.items.map((n) => ({ key: `evm-${n.id}`, id: n.id, name: n.name, platform: 'EVM', to: `/networks/evm/${n.id}` })) ?? []),
    ...(consortium.data?.items.map((n) => ({ key: `consortium-${n.id}`, id: n.id, name: n.name, platform: 'Consortium', to: `/networks/consortium/${n.id}` })) ?? []),
  ].map((r) => {
    const members = nodes.data?.items.filter((n) => n.platform === (r.platform === 'EVM' ? 'EVM' : 'CONSORTIUM') && networksOf(n).includes(r.id)) ?? [];
    const heights = members.map((n) => n.block_height).filter((h): h is number => typeof h === 'number');
    return { ...r, height: heights.length ? Math.max(...heights) : null, running: members.filter((n) => n.status === 'running').length, total: members.length };
  });
  return (
    <Card id="glance-heights" title="Network heights">
      <QueryView q={evm} what="Loading networks">
        {() => (
          <DataTable
            caption="Each network's block height: the highest its nodes report"
            empty="No networks yet."
            rows={rows}
            rowKey={(r) => r.key}
            columns={[
              { header: 'Network', cell: (r) => <Link to={r.to}>{r.name}</Link> },
              { header: 'Platform', cell: (r) => r.platform },
              { header: 'Height', cell: (r) => r.height ?? '—' },
              { header: 'Nodes running', cell: (r) => `${r.running} of ${r.total}` },
            ]}
          />
        )}
      </QueryView>
      <p className="muted">Refreshed every {POLL_MS / 1000} s from the nodes' last probes.</p>
    </Card>
  );
}

const DAY_MS = 86_400_000;
/** From the certificate's end itself (a key's expiryStatus is the expiry monitor's last pass, which may lag). */
function expiryOf(expiresAt: string | null): 'valid' | 'expiring' | 'expired' {
  if (!expiresAt) return 'valid';
  const left = new Date(expiresAt).getTime() - Date.now();
  return left <= 0 ? 'expired' : left <= 30 * DAY_MS ? 'expiring' : 'valid';
}

function ExpiringCertificates() {
  const keys = useQuery({ queryKey: ['keys', 'glance'], refetchInterval: 60_000, queryFn: () => unwrap(api.GET('/api/v1/keys', { params: { query: { limit: PAGE } } })) });
  return (
    <Card id="glance-certificates" title="Certificates expiring">
      <QueryView q={keys} what="Loading keys">
        {(d) => (
          <DataTable
            caption="Certificates expiring within 30 days or expired"
            empty="No certificate expires within 30 days."
            rows={d.items.filter((k) => expiryOf(k.expiresAt) !== 'valid')}
            rowKey={(k) => k.id}
            columns={[
              { header: 'Key', cell: (k) => <Link to="/organizations">{k.name}</Link> },
              { header: 'Expires', cell: (k) => <When at={k.expiresAt} /> },
              { header: 'State', cell: (k) => <span className={`badge expiry-${expiryOf(k.expiresAt)}`}>{expiryOf(k.expiresAt)}</span> },
            ]}
          />
        )}
      </QueryView>
    </Card>
  );
}

function LastBackups() {
  const schedules = useQuery({ queryKey: ['backup-schedules'], refetchInterval: 30_000, queryFn: () => unwrap(api.GET('/api/v1/backups/schedules', { params: { query: { limit: PAGE } } })) });
  const lastIds = schedules.data?.items.map((s) => s.last_backup_id).filter((id): id is number => id !== null) ?? [];
  const backups = useQuery({
    queryKey: ['backups', 'glance', lastIds.join(',')],
    enabled: !!schedules.data,
    refetchInterval: 30_000,
    queryFn: () => Promise.all(lastIds.map((id) => unwrap(api.GET('/api/v1/backups/{id}', { params: { path: { id } } })).catch(() => null))),
  });
  return (
    <Card id="glance-backups" title="Last backup per schedule">
      <QueryView q={schedules} what="Loading schedules">
        {(d) => (
          <DataTable
            caption="Each backup schedule's last backup and its status"
            empty="No backup schedules."
            rows={d.items}
            rowKey={(s) => s.id}
            columns={[
              { header: 'Schedule', cell: (s) => <Link to="/backups">{s.name}</Link> },
              { header: 'Last run', cell: (s) => (s.last_run_at ? <When at={s.last_run_at} /> : 'never') },
              {
                header: 'Status',
                cell: (s) => {
                  const b = backups.data?.find((x) => x && x.id === s.last_backup_id);
                  return b ? <StatusBadge status={b.status} /> : s.last_backup_id === null ? '—' : '…';
                },
              },
            ]}
          />
        )}
      </QueryView>
    </Card>
  );
}

function FailingWebhooks() {
  const hooks = useQuery({ queryKey: ['webhooks', 'glance'], refetchInterval: 30_000, queryFn: () => unwrap(api.GET('/api/v1/webhooks', { params: { query: { limit: PAGE } } })) });
  return (
    <Card id="glance-webhooks" title="Webhook deliveries failing">
      <QueryView q={hooks} what="Loading webhooks">
        {(d) => (
          <DataTable
            caption="Webhooks whose last deliveries failed, or that were disabled for it"
            empty="No webhook is failing."
            rows={d.items.filter((w) => w.consecutiveFailures > 0 || w.disabledAt !== null)}
            rowKey={(w) => w.id}
            columns={[
              { header: 'Webhook', cell: (w) => <Link to={`/webhooks/${w.id}`}>{w.name}</Link> },
              { header: 'Failed in a row', cell: (w) => w.consecutiveFailures },
              { header: 'State', cell: (w) => (w.enabled ? 'enabled' : `disabled${w.disabledReason ? `: ${w.disabledReason}` : ''}`) },
            ]}
          />
        )}
      </QueryView>
    </Card>
  );
}
