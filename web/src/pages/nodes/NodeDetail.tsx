// One node: its status and block height live (polled), actions, history of events, live logs.
import { useParams, useNavigate, Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, getJson, unwrap } from '../../api/client';
import { POLL_MS } from '../../api/queries';
import { useSession } from '../../session';
import { Empty, QueryView } from '../../components/states';
import { StatusBadge, When } from '../../components/format';
import { NodeActions } from './nodeActions';
import { LiveLogs } from './LiveLogs';
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
  const events = useQuery({ queryKey: ['node', id, 'events'], refetchInterval: 5_000, queryFn: () => getJson<{ items: NodeEvent[]; total: number }>(`/api/v1/nodes/${id}/events?limit=500`) });
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
            {n.platform === 'LEDGERX' ? <LedgerXGroupSection node={n} /> : null}
          </>
        )}
      </QueryView>
      {can('NODE_LOGS_READ') ? (
        <section aria-labelledby="logs-title">
          <h2 id="logs-title">Logs</h2>
          <LiveLogs nodeId={id} />
        </section>
      ) : null}
      <section aria-labelledby="events-title">
        <h2 id="events-title">Events</h2>
        <QueryView q={events} what="Loading events">
          {(d) =>
            d.items.length === 0 ? (
              <Empty>No events.</Empty>
            ) : (
              <table>
                <caption className="sr-only">The node's events, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Event</th>
                    <th scope="col">Details</th>
                  </tr>
                </thead>
                <tbody>
                  {[...d.items].reverse().map((e) => (
                    <tr key={e.id}>
                      <td>
                        <When at={e.timestamp} />
                      </td>
                      <td>{e.event}</td>
                      <td className="details">{summarize(e.data)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </QueryView>
      </section>
    </section>
  );
}

function summarize(data: Record<string, unknown>): string {
  return Object.entries(data ?? {})
    .filter(([, v]) => v !== null && typeof v !== 'object')
    .slice(0, 6)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(', ');
}
