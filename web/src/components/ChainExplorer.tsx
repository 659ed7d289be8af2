// One explorer for every platform's chain (the consortium channel, the ledgerX network): a
// transaction found by its id, the blocks newest first (polled: the height grows), a block's
// facts and transactions, and one transaction's facts with a link to its block. The platform
// passes how to read its blocks and transactions and its own columns and facts (ledgerX: the
// committed count, the commit status, namespaces; consortium: the validation code).
import { useState, type FormEvent, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Empty, QueryView } from './states';
import { Pager, When } from './format';
import type { Column } from './DataTable';

const PAGE = 10;

export interface ChainBlock {
  number: number;
  hash: string;
  transaction_count: number;
  timestamp: string | null;
}
export interface ChainTransaction {
  id: string;
  type: string;
  creator_msp_id: string | null;
}
export interface ChainBlockDetail<T extends ChainTransaction> {
  hash: string;
  previous_hash: string;
  data_hash: string;
  transactions: T[];
}
export interface ChainTransactionDetail {
  id: string;
  type: string;
  creator_msp_id: string | null;
  timestamp: string | null;
  block_number: number;
  /** Its position in the block, where the platform says. */
  tx_number?: number;
}

/** A term and its value in a facts list (dl); testId marks the value. */
export interface Fact<T> {
  term: string;
  value: (row: T) => ReactNode;
  testId?: string;
}

export interface ChainSource<B extends ChainBlock, T extends ChainTransaction, D extends ChainBlockDetail<T>, X extends ChainTransactionDetail> {
  /** The query cache's key for this chain, e.g. ['ledgerx', id]. */
  queryKey: readonly unknown[];
  blocks(limit: number, offset: number): Promise<{ items: B[]; total: number }>;
  block(num: number): Promise<D>;
  transaction(txId: string): Promise<X>;
  /** Block columns after "Transactions". */
  blockColumns?: Array<Column<B>>;
  /** Block facts after the three hashes. */
  blockFacts?: Array<Fact<D>>;
  /** Transaction columns after "Creator" in a block's table. */
  transactionColumns: Array<Column<T>>;
  /** The transaction's outcome (validation code, commit status), shown after its id. */
  transactionStatus: Fact<X>;
  /** Transaction facts after its time. */
  transactionFacts?: Array<Fact<X>>;
  /** The empty state when the chain has no block. */
  empty: string;
}

function Facts<T>({ row, facts }: { row: T; facts: Array<Fact<T>> }) {
  return (
    <>
      {facts.map((f) => [
        <dt key={`${f.term}-t`}>{f.term}</dt>,
        <dd key={`${f.term}-d`} data-testid={f.testId}>
          {f.value(row)}
        </dd>,
      ])}
    </>
  );
}

export function ChainExplorer<B extends ChainBlock, T extends ChainTransaction, D extends ChainBlockDetail<T>, X extends ChainTransactionDetail>({ source }: { source: ChainSource<B, T, D, X> }) {
  const [offset, setOffset] = useState(0);
  const [block, setBlock] = useState<number | null>(null);
  const [tx, setTx] = useState<string | null>(null);
  const [find, setFind] = useState('');
  const blocks = useQuery({ queryKey: [...source.queryKey, 'blocks', offset], refetchInterval: 5_000, queryFn: () => source.blocks(PAGE, offset) });
  const extra = source.blockColumns ?? [];
  return (
    <>
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
      {tx ? <TransactionView source={source} txId={tx} onBlock={setBlock} /> : null}
      <h2>Blocks</h2>
      <QueryView q={blocks} what="Loading blocks">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>{source.empty}</Empty>
          ) : (
            <>
              <table>
                <caption className="sr-only">Blocks, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Block</th>
                    <th scope="col">Transactions</th>
                    {extra.map((c) => (
                      <th key={c.header} scope="col">
                        {c.header}
                      </th>
                    ))}
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
                      {extra.map((c) => (
                        <td key={c.header}>{c.cell(b)}</td>
                      ))}
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
      {block !== null ? <BlockView source={source} num={block} onTx={setTx} /> : null}
    </>
  );
}

function BlockView<B extends ChainBlock, T extends ChainTransaction, D extends ChainBlockDetail<T>, X extends ChainTransactionDetail>({ source, num, onTx }: { source: ChainSource<B, T, D, X>; num: number; onTx: (tx: string) => void }) {
  const q = useQuery({ queryKey: [...source.queryKey, 'block', num], queryFn: () => source.block(num) });
  const columns = source.transactionColumns;
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
              <Facts row={b} facts={source.blockFacts ?? []} />
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
                    {columns.map((c) => (
                      <th key={c.header} scope="col">
                        {c.header}
                      </th>
                    ))}
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
                      {columns.map((c) => (
                        <td key={c.header}>{c.cell(t)}</td>
                      ))}
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

function TransactionView<B extends ChainBlock, T extends ChainTransaction, D extends ChainBlockDetail<T>, X extends ChainTransactionDetail>({ source, txId, onBlock }: { source: ChainSource<B, T, D, X>; txId: string; onBlock: (n: number) => void }) {
  const q = useQuery({ queryKey: [...source.queryKey, 'tx', txId], queryFn: () => source.transaction(txId) });
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
            <Facts row={t} facts={[source.transactionStatus]} />
            <dt>Block</dt>
            <dd>
              <button type="button" className="link" onClick={() => onBlock(t.block_number)}>
                #{t.block_number}
              </button>
              {t.tx_number !== undefined ? `, position ${t.tx_number}` : null}
            </dd>
            <dt>Type</dt>
            <dd>{t.type}</dd>
            <dt>Creator</dt>
            <dd>{t.creator_msp_id ?? '—'}</dd>
            <dt>Time</dt>
            <dd>
              <When at={t.timestamp} />
            </dd>
            <Facts row={t} facts={source.transactionFacts ?? []} />
          </dl>
        )}
      </QueryView>
    </article>
  );
}
