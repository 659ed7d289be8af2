// EVM and consortium networks side by side, with their status; create for those allowed.
import { Link } from 'react-router';
import { useConsortiumNetworks, useEvmNetworks } from '../../api/queries';
import { Can } from '../../session';
import { Empty, QueryView } from '../../components/states';
import { StatusBadge, When } from '../../components/format';
import { LedgerXNetworkList } from '../ledgerx/LedgerXNetworkList';

export default function Networks() {
  const evm = useEvmNetworks();
  const consortium = useConsortiumNetworks();
  return (
    <section>
      <div className="title-row">
        <h1>Networks</h1>
        <Can permission="NETWORK_CREATE">
          <div className="actions">
            <Link className="button primary" to="/networks/evm/new">
              Create EVM network
            </Link>
            <Link className="button primary" to="/networks/consortium/new">
              Create consortium network
            </Link>
            <Link className="button primary" to="/networks/ledgerx/new">
              Create ledgerX network
            </Link>
          </div>
        </Can>
      </div>
      <h2>EVM networks</h2>
      <QueryView q={evm} what="Loading EVM networks">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No EVM networks yet.</Empty>
          ) : (
            <table>
              <caption className="sr-only">EVM networks</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Chain id</th>
                  <th scope="col">Consensus</th>
                  <th scope="col">Client</th>
                  <th scope="col">Nodes</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {d.items.map((n) => (
                  <tr key={n.id}>
                    <td>
                      <Link to={`/networks/evm/${n.id}`}>{n.name}</Link>
                    </td>
                    <td>
                      <StatusBadge status={n.status} />
                    </td>
                    <td>{n.chain_id}</td>
                    <td>{n.consensus}</td>
                    <td>{n.client}</td>
                    <td>{n.node_count}</td>
                    <td>
                      <When at={n.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
      <h2>Consortium networks</h2>
      <QueryView q={consortium} what="Loading consortium networks">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No consortium networks yet.</Empty>
          ) : (
            <table>
              <caption className="sr-only">Consortium networks</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Channel</th>
                  <th scope="col">Consensus</th>
                  <th scope="col">Organizations</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {d.items.map((n) => (
                  <tr key={n.id}>
                    <td>
                      <Link to={`/networks/consortium/${n.id}`}>{n.name}</Link>
                    </td>
                    <td>
                      <StatusBadge status={n.status} />
                    </td>
                    <td>{n.channel_name}</td>
                    <td>{n.consensus}</td>
                    <td>{n.organizations.map((o) => o.msp_id).join(', ')}</td>
                    <td>
                      <When at={n.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
      <LedgerXNetworkList />
    </section>
  );
}
