// EVM and consortium networks side by side, with their status; create (or import) for those allowed.
import { Link } from 'react-router';
import { useConsortiumNetworks, useEvmNetworks } from '../../api/queries';
import { Can } from '../../session';
import { QueryView } from '../../components/states';
import { DataTable } from '../../components/DataTable';
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
            <Link className="button" to="/networks/import">
              Import network
            </Link>
          </div>
        </Can>
      </div>
      <h2>EVM networks</h2>
      <QueryView q={evm} what="Loading EVM networks">
        {(d) => (
          <DataTable
            caption="EVM networks"
            empty="No EVM networks yet."
            rows={d.items}
            rowKey={(n) => n.id}
            columns={[
              { header: 'Name', cell: (n) => <Link to={`/networks/evm/${n.id}`}>{n.name}</Link> },
              { header: 'Status', cell: (n) => <StatusBadge status={n.status} /> },
              { header: 'Chain id', cell: (n) => n.chain_id },
              { header: 'Consensus', cell: (n) => n.consensus },
              { header: 'Client', cell: (n) => n.client },
              { header: 'Nodes', cell: (n) => n.node_count },
              { header: 'Created', cell: (n) => <When at={n.created_at} /> },
            ]}
          />
        )}
      </QueryView>
      <h2>Consortium networks</h2>
      <QueryView q={consortium} what="Loading consortium networks">
        {(d) => (
          <DataTable
            caption="Consortium networks"
            empty="No consortium networks yet."
            rows={d.items}
            rowKey={(n) => n.id}
            columns={[
              { header: 'Name', cell: (n) => <Link to={`/networks/consortium/${n.id}`}>{n.name}</Link> },
              { header: 'Status', cell: (n) => <StatusBadge status={n.status} /> },
              { header: 'Channel', cell: (n) => n.channel_name },
              { header: 'Consensus', cell: (n) => n.consensus },
              { header: 'Organizations', cell: (n) => n.organizations.map((o) => o.msp_id).join(', ') },
              { header: 'Created', cell: (n) => <When at={n.created_at} /> },
            ]}
          />
        )}
      </QueryView>
      <LedgerXNetworkList />
    </section>
  );
}
