// A ledgerX network's explorer, read from a joined committer's sidecar and query service: chain
// info, then the shared explorer (components/ChainExplorer) with ledgerX's columns: a block's
// committed count, a transaction's commit status and namespaces.
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { QueryView } from '../../components/states';
import { ChainExplorer, type ChainSource } from '../../components/ChainExplorer';
import type { LedgerXBlock, LedgerXTransaction } from './queries';

const blockPage = (id: number, limit: number, offset: number) => unwrap(api.GET('/api/v1/networks/ledgerx/{id}/blocks', { params: { path: { id }, query: { limit, offset } } }));

type Blocks = Awaited<ReturnType<typeof blockPage>>;
type Tx = LedgerXBlock['transactions'][number];

function source(id: number): ChainSource<Blocks['items'][number], Tx, LedgerXBlock, LedgerXTransaction> {
  return {
    queryKey: ['ledgerx', id],
    blocks: (limit, offset) => blockPage(id, limit, offset),
    block: (blockNum) => unwrap(api.GET('/api/v1/networks/ledgerx/{id}/blocks/{blockNum}', { params: { path: { id, blockNum } } })),
    transaction: (txId) => unwrap(api.GET('/api/v1/networks/ledgerx/{id}/transactions/{txId}', { params: { path: { id, txId } } })),
    blockColumns: [{ header: 'Committed', cell: (b) => b.committed_count }],
    blockFacts: [{ term: 'Transactions', value: (b) => `${b.transaction_count} (${b.committed_count} committed)` }],
    transactionColumns: [
      { header: 'Status', cell: (t) => t.status ?? '—' },
      { header: 'Namespaces', cell: (t) => <Namespaces list={t.namespaces} /> },
    ],
    transactionStatus: { term: 'Commit status', testId: 'ledgerx-tx-status', value: (t) => `${t.status} (code ${t.status_code})` },
    transactionFacts: [{ term: 'Namespaces', value: (t) => <Namespaces list={t.namespaces} /> }],
    empty: 'No committed blocks yet.',
  };
}

export function LedgerXExplorer({ id }: { id: number }) {
  const info = useQuery({ queryKey: ['ledgerx', id, 'info'], refetchInterval: 5_000, queryFn: () => unwrap(api.GET('/api/v1/networks/ledgerx/{id}/info', { params: { path: { id } } })) });
  return (
    <>
      <h2>Chain</h2>
      <QueryView q={info} what="Loading chain information">
        {(i) => (
          <dl className="facts">
            <dt>Height</dt>
            <dd data-testid="ledgerx-height">{i.height}</dd>
            <dt>Newest block hash</dt>
            <dd>
              <code className="hash">{i.current_block_hash}</code>
            </dd>
            <dt>Previous block hash</dt>
            <dd>
              <code className="hash">{i.previous_block_hash}</code>
            </dd>
            <dt>Config version</dt>
            <dd>{i.config_version}</dd>
            <dt>Read from</dt>
            <dd>
              {i.committer.name} (sidecar {i.committer.sidecar_endpoint}, query {i.committer.query_endpoint})
            </dd>
          </dl>
        )}
      </QueryView>
      <ChainExplorer source={source(id)} />
    </>
  );
}

function Namespaces({ list }: { list: Tx['namespaces'] }) {
  if (list.length === 0) return <span className="muted">—</span>;
  return (
    <>
      {list.map((n) => (
        <div key={n.ns_id}>
          <code>{n.ns_id}</code> v{n.ns_version}: {n.reads_only} read, {n.read_writes} read-write, {n.blind_writes} blind write
          {n.keys.length ? (
            <>
              {' '}
              (keys <code>{n.keys.join(', ')}</code>)
            </>
          ) : null}
        </div>
      ))}
    </>
  );
}
