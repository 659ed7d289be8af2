// The ledgerX networks of the networks page: one Fabric-X channel each, its orderer groups
// (parties) and committers with how many have joined.
import { Link } from 'react-router';
import { Empty, QueryView } from '../../components/states';
import { Can } from '../../session';
import { When } from '../../components/format';
import { useLedgerXNetworks } from './queries';

export function LedgerXNetworkList() {
  const q = useLedgerXNetworks();
  return (
    <>
      <div className="title-row">
        <h2>LedgerX networks</h2>
        <Can permission="NETWORK_CREATE">
          <Link className="button" to="/networks/ledgerx/quick-start">
            Quick start: a ledgerX network
          </Link>
        </Can>
      </div>
      <QueryView q={q} what="Loading ledgerX networks">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No ledgerX (Fabric-X) networks yet.</Empty>
          ) : (
            <table>
              <caption className="sr-only">LedgerX networks</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Channel</th>
                  <th scope="col">Orderer groups</th>
                  <th scope="col">Committers</th>
                  <th scope="col">Organizations</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {d.items.map((n) => {
                  const groups = n.nodes.filter((m) => m.role !== 'committer');
                  const committers = n.nodes.filter((m) => m.role === 'committer');
                  return (
                    <tr key={n.id}>
                      <td>
                        <Link to={`/networks/ledgerx/${n.id}`}>{n.name}</Link>
                      </td>
                      <td>{n.channel_name}</td>
                      <td>
                        {groups.length} ({groups.filter((g) => g.joined).length} joined)
                      </td>
                      <td>{committers.length}</td>
                      <td>{[...new Set(n.nodes.map((m) => m.msp_id))].join(', ') || '—'}</td>
                      <td>
                        <When at={n.created_at} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )
        }
      </QueryView>
    </>
  );
}
