// A ledgerX network's explorer, read from a joined committer's sidecar and query service: chain
// info, committed blocks newest first (polled: the height grows), a block's transactions with
// their commit status, and one transaction (by a click or by its id) with the committer's status.
import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { Empty, QueryView } from '../../components/states';
import { Pager, When } from '../../components/format';
import type { LedgerXBlock } from './queries';

const PAGE = 10;

export function LedgerXExplorer({ id }: { id: number }) {
  const [offset, setOffset] = useState(0);
  const [block, setBlock] = useState<number | null>(null);
  const [tx, setTx] = useState<string | null>(null);
  const [find, setFind] = useState('');
  const info = useQuery({ queryKey: ['ledgerx', id, 'info'], refetchInterval: 5_000, queryFn: () => unwrap(api.GET('/api/v1/networks/ledgerx/{id}/info', { params: { path: { id } } })) });
  const blocks = useQuery({ queryKey: ['ledgerx', id, 'blocks', offset], refetchInterval: 5_000, queryFn: () => unwrap(api.GET('/api/v1/networks/ledgerx/{id}/blocks', { params: { path: { id }, query: { limit: PAGE, offset } } })) });
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
      <form
        className="actions"
        aria-label="Find a transaction"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          if (find.trim()) setTx(find.trim());
        }}
      >
        <label>
          Transaction id
          <input value={find} maxLength={128} onChange={(e) => setFind(e.target.value)} />
        </label>
        <button type="submit">Show transaction</button>
      </form>
      {tx ? <TransactionView id={id} txId={tx} onBlock={setBlock} /> : null}
      <h2>Blocks</h2>
      <QueryView q={blocks} what="Loading blocks">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No committed blocks yet.</Empty>
          ) : (
            <>
              <table>
                <caption className="sr-only">Blocks, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Block</th>
                    <th scope="col">Transactions</th>
                    <th scope="col">Committed</th>
                    <th scope="col">Time</th>
                    <th scope="col">Hash</th>
                  </tr>
                </thead>
                <tbody>
                  {d.items.map((b) => (
                    <tr key={b.number}>
                      <td>
                        <button type="button" className="link" onClick={() => setBlock(block === b.number ? null : b.number)} aria-expanded={block === b.number}>
                          #{b.number}
                        </button>
                      </td>
                      <td>{b.transaction_count}</td>
                      <td>{b.committed_count}</td>
                      <td>
                        <When at={b.timestamp} />
                      </td>
                      <td>
                        <code className="hash">{b.hash}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager total={d.total} limit={PAGE} offset={offset} onOffset={setOffset} />
            </>
          )
        }
      </QueryView>
      {block !== null ? <BlockView id={id} num={block} onTx={setTx} /> : null}
    </>
  );
}

function Namespaces({ list }: { list: LedgerXBlock['transactions'][number]['namespaces'] }) {
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

function BlockView({ id, num, onTx }: { id: number; num: number; onTx: (tx: string) => void }) {
  const q = useQuery({ queryKey: ['ledgerx', id, 'block', num], queryFn: () => unwrap(api.GET('/api/v1/networks/ledgerx/{id}/blocks/{blockNum}', { params: { path: { id, blockNum: num } } })) });
  return (
    <article className="card" aria-label={`Block ${num}`}>
      <h3>Block #{num}</h3>
      <QueryView q={q} what="Loading block">
        {(b) => (
          <>
            <dl className="facts">
              <dt>Hash</dt>
              <dd>
                <code className="hash">{b.hash}</code>
              </dd>
              <dt>Previous hash</dt>
              <dd>
                <code className="hash">{b.previous_hash}</code>
              </dd>
              <dt>Data hash</dt>
              <dd>
                <code className="hash">{b.data_hash}</code>
              </dd>
              <dt>Transactions</dt>
              <dd>
                {b.transaction_count} ({b.committed_count} committed)
              </dd>
            </dl>
            {b.transactions.length === 0 ? (
              <Empty>No transactions.</Empty>
            ) : (
              <table>
                <caption className="sr-only">Transactions of block {num}</caption>
                <thead>
                  <tr>
                    <th scope="col">Transaction</th>
                    <th scope="col">Type</th>
                    <th scope="col">Creator</th>
                    <th scope="col">Status</th>
                    <th scope="col">Namespaces</th>
                  </tr>
                </thead>
                <tbody>
                  {b.transactions.map((t, i) => (
                    <tr key={t.id || `${t.type}-${i}`}>
                      <td>
                        {t.id ? (
                          <button type="button" className="link hash" onClick={() => onTx(t.id)} title="Show this transaction">
                            {t.id}
                          </button>
                        ) : (
                          '—'
                        )}
                      </td>
                      <td>{t.type}</td>
                      <td>{t.creator_msp_id ?? '—'}</td>
                      <td>{t.status ?? '—'}</td>
                      <td>
                        <Namespaces list={t.namespaces} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
      </QueryView>
    </article>
  );
}

function TransactionView({ id, txId, onBlock }: { id: number; txId: string; onBlock: (n: number) => void }) {
  const q = useQuery({ queryKey: ['ledgerx', id, 'tx', txId], queryFn: () => unwrap(api.GET('/api/v1/networks/ledgerx/{id}/transactions/{txId}', { params: { path: { id, txId } } })) });
  return (
    <article className="card" aria-label="Transaction">
      <h3>Transaction</h3>
      <QueryView q={q} what="Loading transaction">
        {(t) => (
          <dl className="facts">
            <dt>Id</dt>
            <dd>
              <code className="hash">{t.id}</code>
            </dd>
            <dt>Commit status</dt>
            <dd data-testid="ledgerx-tx-status">
              {t.status} (code {t.status_code})
            </dd>
            <dt>Block</dt>
            <dd>
              <button type="button" className="link" onClick={() => onBlock(t.block_number)}>
                #{t.block_number}
              </button>
              , position {t.tx_number}
            </dd>
            <dt>Type</dt>
            <dd>{t.type}</dd>
            <dt>Creator</dt>
            <dd>{t.creator_msp_id ?? '—'}</dd>
            <dt>Time</dt>
            <dd>
              <When at={t.timestamp} />
            </dd>
            <dt>Namespaces</dt>
            <dd>
              <Namespaces list={t.namespaces} />
            </dd>
          </dl>
        )}
      </QueryView>
    </article>
  );
}
