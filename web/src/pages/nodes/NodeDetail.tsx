// One node: its status and block height live (polled), actions, live logs, metrics charts from
// the managed Prometheus, certificates with renew (consortium), history of events.
import { useParams, useNavigate, Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, getJson, unwrap } from '../../api/client';
import { POLL_MS } from '../../api/queries';
import { useSession } from '../../session';
import { QueryView } from '../../components/states';
import { DataTable, type Column } from '../../components/DataTable';
import { NodeMetrics } from './NodeMetrics';
import { NodeCertificates } from './NodeCertificates';
import { NodeUpgrade } from './NodeUpgrade';
import { StatusBadge, When } from '../../components/format';
import { NodeActions } from './nodeActions';
import { NodeSettings } from './NodeSettings';
import { LiveLogs } from './LiveLogs';
import { NodeConfigEdit } from './NodeConfigEdit';
import { LedgerXGroupSection } from '../ledgerx/LedgerXGroupSection';

interface NodeEvent {
  id: string;
  event: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

export default function NodeDetail() {
  const id = Number(useParams().id);
  const navigate = useNavigate();
  const { can } = useSession();
  const node = useQuery({ queryKey: ['node', id], refetchInterval: POLL_MS, queryFn: () => unwrap(api.GET('/api/v1/nodes/{id}', { params: { path: { id } } })) });
  // Only for a node that is there: an unknown id is one not-found message, no other sections.
  const events = useQuery({ queryKey: ['node', id, 'events'], enabled: node.isSuccess, refetchInterval: 5_000, queryFn: () => getJson<{ items: NodeEvent[]; total: number }>(`/api/v1/nodes/${id}/events?limit=500`) });
  return (
    <section>
      <p className="crumbs">
        <Link to="/nodes">Nodes</Link> /
      </p>
      <QueryView q={node} what="Loading node">
        {(n) => (
          <>
            <h1>
              {n.name} <StatusBadge status={n.status} />
            </h1>
            <NodeActions id={n.id} name={n.name} status={n.status} onDeleted={() => navigate('/nodes')} />
            {'config' in n ? <NodeSettings node={{ id: n.id, name: n.name, status: n.status, platform: n.platform, config: n.config as Record<string, unknown> }} /> : null}
            <dl className="facts">
              <dt>Platform</dt>
              <dd>{n.platform}</dd>
              <dt>Role</dt>
              <dd>{n.role}</dd>
              <dt>Status</dt>
              <dd data-testid="node-status">{n.status}</dd>
              <dt>Block height</dt>
              <dd data-testid="node-block-height">{n.block_height ?? '—'}</dd>
              <dt>Peers</dt>
              <dd>{n.peer_count ?? '—'}</dd>
              <dt>Client</dt>
              <dd>{n.client}</dd>
              <dt>Engine</dt>
              <dd>{n.engine}</dd>
              {'fabric_version' in n ? (
                <>
                  <dt>Fabric release</dt>
                  <dd data-testid="node-fabric-version">{n.fabric_version ?? (n.engine === 'docker' ? 'the image\'s' : '—')}</dd>
                </>
              ) : null}
              <dt>Started</dt>
              <dd>
                <When at={n.started_at} />
              </dd>
              {n.error ? (
                <>
                  <dt>Error</dt>
                  <dd className="error-text">{n.error}</dd>
                </>
              ) : null}
            </dl>
            {n.platform === 'LEDGERX' ? <LedgerXGroupSection node={n} /> : <NodeConfigEdit key={`${n.id}-${n.status}`} node={n as never} />}
          </>
        )}
      </QueryView>
      {node.data ? (
        <>
      {can('NODE_LOGS_READ') ? (
        <section aria-labelledby="logs-title">
          <h2 id="logs-title">Logs</h2>
          <LiveLogs nodeId={id} status={node.data?.status} lastError={node.data?.error ?? null} />
        </section>
      ) : null}
      {can('METRICS_READ') ? (
        <section aria-labelledby="metrics-title">
          <h2 id="metrics-title">Metrics</h2>
          <NodeMetrics nodeId={id} />
        </section>
      ) : null}
      {node.data && 'fabric_version' in node.data && node.data.fabric_version ? (
        <section aria-labelledby="upgrade-title">
          <h2 id="upgrade-title">Fabric release</h2>
          <NodeUpgrade nodeId={id} name={node.data.name} fabricVersion={node.data.fabric_version} engine={node.data.engine} hostId={(node.data.config as { hostId?: number } | undefined)?.hostId ?? null} />
        </section>
      ) : null}
      {node.data && 'identity_key_id' in node.data && can('KEY_READ') ? (
        <section aria-labelledby="certificates-title">
          <h2 id="certificates-title">Certificates</h2>
          <NodeCertificates
            nodeId={id}
            name={node.data.name}
            status={node.data.status}
            identityKeyId={node.data.identity_key_id}
            tlsKeyId={node.data.tls_key_id}
            chaincodeId={node.data.role === 'chaincode' ? Number((node.data.config as { chaincodeId?: number }).chaincodeId) || undefined : undefined}
          />
        </section>
      ) : null}
      <section aria-labelledby="events-title">
        <h2 id="events-title">Events</h2>
        <QueryView q={events} what="Loading events">
          {(d) => <DataTable caption="The node's events, newest first" rows={[...d.items].reverse()} columns={eventColumns} rowKey={(e) => e.id} empty="No events." />}
        </QueryView>
      </section>
        </>
      ) : null}
    </section>
  );
}

const eventColumns: Array<Column<NodeEvent>> = [
  { header: 'When', cell: (e) => <When at={e.timestamp} /> },
  { header: 'Event', cell: (e) => e.event },
  { header: 'Details', cell: (e) => <span className="details">{summarize(e.data)}</span> },
];

function summarize(data: Record<string, unknown>): string {
  return Object.entries(data ?? {})
    .filter(([, v]) => v !== null && typeof v !== 'object')
    .slice(0, 6)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(', ');
}
