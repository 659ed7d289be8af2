// Networks and nodes by platform and status, what an operator checks first (DashboardGlance.tsx),
// and the latest audit entries (for those who may read them).
import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { useAllNodes, useConsortiumNetworks, useEvmNetworks } from '../api/queries';
import { useSession } from '../session';
import { Empty, ErrorState, Loading, QueryView } from '../components/states';
import { DataTable } from '../components/DataTable';
import { StatusBadge, When } from '../components/format';
import { DashboardGlance } from './DashboardGlance';

function countBy<T>(items: T[], key: (t: T) => string): Array<[string, number]> {
  const m = new Map<string, number>();
  for (const i of items) m.set(key(i), (m.get(key(i)) ?? 0) + 1);
  return [...m.entries()].sort((a, b) => a[0].localeCompare(b[0]));
}

export default function Dashboard() {
  const { can } = useSession();
  const nodes = useAllNodes();
  const evm = useEvmNetworks();
  const consortium = useConsortiumNetworks();
  return (
    <section>
      <div className="title-row">
        <h1>Dashboard</h1>
        {can('NETWORK_CREATE') ? (
          <Link className="button primary" to="/networks/evm/new">
            Quick start: an EVM network
          </Link>
        ) : null}
        {can('NETWORK_CREATE') && can('NODE_CREATE') && can('ORGANIZATION_CREATE') ? (
          <Link className="button" to="/networks/consortium/quick-start">
            Quick start: a consortium network
          </Link>
        ) : null}
        {can('NETWORK_CREATE') ? (
          <Link className="button" to="/networks/ledgerx/quick-start">
            Quick start: a ledgerX network
          </Link>
        ) : null}
      </div>
      <div className="tiles">
        <article className="card tile" aria-labelledby="tile-networks">
          <h2 id="tile-networks">Networks</h2>
          {evm.isPending || consortium.isPending ? (
            <Loading what="Loading networks" />
          ) : evm.error || consortium.error ? (
            <ErrorState error={evm.error ?? consortium.error} />
          ) : (
            <>
              <p className="big">{(evm.data?.total ?? 0) + (consortium.data?.total ?? 0)}</p>
              {(evm.data?.total ?? 0) + (consortium.data?.total ?? 0) > 0 ? (
              <table className="compact">
                <caption className="sr-only">Networks by platform and status</caption>
                <thead>
                  <tr>
                    <th scope="col">Platform</th>
                    <th scope="col">Status</th>
                    <th scope="col">Count</th>
                  </tr>
                </thead>
                <tbody>
                  {[
                    ...countBy(evm.data!.items, (n) => n.status).map(([s, c]) => ['EVM', s, c] as const),
                    ...countBy(consortium.data!.items, (n) => n.status).map(([s, c]) => ['Consortium', s, c] as const),
                  ].map(([p, s, c]) => (
                    <tr key={p + s}>
                      <td>{p}</td>
                      <td>
                        <StatusBadge status={s} />
                      </td>
                      <td>{c}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              ) : (
                <Empty>
                  No networks yet. <Link to="/networks">Go to Networks</Link>
                </Empty>
              )}
            </>
          )}
        </article>
        <article className="card tile" aria-labelledby="tile-nodes">
          <h2 id="tile-nodes">Nodes</h2>
          <QueryView q={nodes} what="Loading nodes">
            {(d) =>
              d.total === 0 ? (
                <Empty>No nodes yet. They appear here when a network starts or a node is created.</Empty>
              ) : (
                <>
                  <p className="big" data-testid="node-total">
                    {d.total}
                  </p>
                  <table className="compact">
                    <caption className="sr-only">Nodes by platform and status</caption>
                    <thead>
                      <tr>
                        <th scope="col">Platform</th>
                        <th scope="col">Status</th>
                        <th scope="col">Count</th>
                      </tr>
                    </thead>
                    <tbody>
                      {countBy(d.items, (n) => `${n.platform}\u0000${n.status}`).map(([k, c]) => {
                        const [p, s] = k.split('\u0000');
                        return (
                          <tr key={k}>
                            <td>{p}</td>
                            <td>
                              <Link to={`/nodes?platform=${p}&status=${s}`}>
                                <StatusBadge status={s} />
                              </Link>
                            </td>
                            <td>{c}</td>
                          </tr>
                        );
                      })}
                    </tbody>
                  </table>
                </>
              )
            }
          </QueryView>
        </article>
      </div>
      <DashboardGlance />
      {can('SYSTEM_MONITOR') ? <RecentAudit /> : null}
    </section>
  );
}

function RecentAudit() {
  const q = useQuery({
    queryKey: ['audit', 'recent'],
    refetchInterval: 10_000,
    queryFn: () => unwrap(api.GET('/api/v1/audit-logs', { params: { query: { limit: 10 } } })),
  });
  return (
    <article className="card" aria-labelledby="recent-audit">
      <h2 id="recent-audit">Recent activity</h2>
      <QueryView q={q} what="Loading activity">
        {(d) => (
          <DataTable
            caption="The ten latest audit entries"
            empty="No audit entries yet."
            rows={d.items}
            rowKey={(e) => e.id}
            columns={[
              { header: 'When', cell: (e) => <When at={e.timestamp} /> },
              { header: 'User', cell: (e) => e.user },
              { header: 'Action', cell: (e) => e.action },
              { header: 'Resource', cell: (e) => `${e.resource_type}${e.resource_name ? ` ${e.resource_name}` : e.resource_id ? ` #${e.resource_id}` : ''}` },
              { header: 'Status', cell: (e) => e.status },
            ]}
          />
        )}
      </QueryView>
      <p>
        <Link to="/audit">All audit entries</Link>
      </p>
    </article>
  );
}
