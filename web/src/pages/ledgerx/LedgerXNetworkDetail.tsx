// A ledgerX network: its facts, genesis download and delete (LedgerXNetworkActions), then tabs: nodes (orderer groups, committers, joins),
// namespaces, explorer, map. Tabs that read the ledger need LEDGER_READ.
import { Link, useParams } from 'react-router';
import { useSession } from '../../session';
import { QueryView } from '../../components/states';
import { When } from '../../components/format';
import { useLedgerXNetwork } from './queries';
import { Tabs, type Tab } from './Tabs';
import { LedgerXNodesTab } from './LedgerXNodesTab';
import { LedgerXNamespaces } from './LedgerXNamespaces';
import { LedgerXExplorer } from './LedgerXExplorer';
import { LedgerXMap } from './LedgerXMap';
import { LedgerXNetworkActions } from './LedgerXNetworkActions';
import './ledgerx.css';

export default function LedgerXNetworkDetail() {
  const id = Number(useParams().id);
  const { can } = useSession();
  const network = useLedgerXNetwork(id);
  return (
    <section>
      <p className="crumbs">
        <Link to="/networks">Networks</Link> /
      </p>
      <QueryView q={network} what="Loading network">
        {(n) => {
          const tabs: Tab[] = [{ id: 'nodes', label: 'Nodes', render: () => <LedgerXNodesTab network={n} /> }];
          if (can('LEDGER_READ')) {
            tabs.push({ id: 'namespaces', label: 'Namespaces', render: () => <LedgerXNamespaces network={n} /> });
            tabs.push({ id: 'explorer', label: 'Explorer', render: () => <LedgerXExplorer id={n.id} /> });
          }
          tabs.push({ id: 'map', label: 'Map', render: () => <LedgerXMap id={n.id} /> });
          return (
            <>
              <h1>{n.name}</h1>
              <dl className="facts">
                <dt>Platform</dt>
                <dd>LedgerX (Hyperledger Fabric-X)</dd>
                <dt>Channel</dt>
                <dd>{n.channel_name}</dd>
                <dt>Ordering</dt>
                <dd>Arma ({n.nodes.filter((m) => m.role !== 'committer').length} {n.nodes.filter((m) => m.role !== 'committer').length === 1 ? 'party' : 'parties'})</dd>
                <dt>Organizations</dt>
                <dd>{[...new Set(n.nodes.map((m) => m.msp_id))].join(', ') || '—'}</dd>
                {n.description ? (
                  <>
                    <dt>Description</dt>
                    <dd>{n.description}</dd>
                  </>
                ) : null}
                <dt>Created</dt>
                <dd>
                  <When at={n.created_at} />
                </dd>
              </dl>
              <LedgerXNetworkActions network={n} />
              <Tabs label="Network" tabs={tabs} />
            </>
          );
        }}
      </QueryView>
    </section>
  );
}
