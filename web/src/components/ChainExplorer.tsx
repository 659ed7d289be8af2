// One explorer for every platform's chain (the consortium channel, the ledgerX network, an EVM
// network): a transaction found by its id (or, where the platform offers a search, whatever a
// term names: a block, a transaction, an account), the blocks newest first (polled: the height
// grows), a block's facts and transactions, one transaction's facts with a link to its block, and
// where the platform has accounts (EVM) an account. The platform passes how to read its blocks and
// transactions, its own columns, facts and labels (ledgerX: the committed count, the commit status,
// namespaces; consortium: the validation code; EVM: sender, value, gas, decoded logs).
import { useState, type FormEvent, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ActionError, Empty, QueryView, FieldError, invalid } from './states';
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
  /** null while pending (EVM). */
  block_number: number | null;
  /** Its position in the block, where the platform says. */
  tx_number?: number;
}

/** Where a fact's value may lead: another block, transaction or account of the same explorer. */
export interface ChainNav {
  block(num: number): void;
  transaction(id: string): void;
  account(address: string): void;
}

/** A term and its value in a facts list (dl); testId marks the value. */
export interface Fact<T> {
  term: string;
  value: (row: T, go: ChainNav) => ReactNode;
  testId?: string;
}

/** What a search term is, as the platform's search answers it. */
export type ChainFound = { kind: 'block'; block: number } | { kind: 'transaction'; id: string } | { kind: 'account'; address: string };

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
  /** Labels where the platform names things otherwise (EVM: "Transactions root", "From"). */
  labels?: { dataHash?: string; creator?: string };
  /** A search by any term (block number, hash, address): replaces the find-a-transaction box. */
  search?(term: string): Promise<ChainFound>;
  /** An account's facts (EVM), shown when a search or a fact leads to one. */
  account?(address: string): Promise<unknown>;
  accountFacts?: Array<Fact<any>>;
}

function Facts<T>({ row, facts, go }: { row: T; facts: Array<Fact<T>>; go: ChainNav }) {
  return (
    <>
      {facts.map((f) => [
        <dt key={`${f.term}-t`}>{f.term}</dt>,
        <dd key={`${f.term}-d`} data-testid={f.testId}>
          {f.value(row, go)}
        </dd>,
      ])}
    </>
  );
}

export function ChainExplorer<B extends ChainBlock, T extends ChainTransaction, D extends ChainBlockDetail<T>, X extends ChainTransactionDetail>({ source }: { source: ChainSource<B, T, D, X> }) {
  const [offset, setOffset] = useState(0);
  const [block, setBlock] = useState<number | null>(null);
  const [tx, setTx] = useState<string | null>(null);
  const [account, setAccount] = useState<string | null>(null);
  const [find, setFind] = useState('');
  const [searchError, setSearchError] = useState<unknown>(null);
  const blocks = useQuery({ queryKey: [...source.queryKey, 'blocks', offset], refetchInterval: 5_000, queryFn: () => source.blocks(PAGE, offset) });
  const extra = source.blockColumns ?? [];
  const go: ChainNav = { block: setBlock, transaction: setTx, account: setAccount };
  const search = source.search;
  return (
    <>
      <form
        className="actions"
        aria-label={search ? 'Search the chain' : 'Find a transaction'}
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          const term = find.trim();
          if (!term) return;
          if (!search) return setTx(term);
          setSearchError(null);
          search(term).then(
            (found) => (found.kind === 'block' ? setBlock(found.block) : found.kind === 'transaction' ? setTx(found.id) : setAccount(found.address)),
            (err: unknown) => setSearchError(err),
          );
        }}
      >
        <label>
          {search ? 'Block number, hash or address' : 'Transaction id'}
          <input {...invalid(searchError, 'q')} value={find} maxLength={128} onChange={(e) => setFind(e.target.value)} />
          <FieldError error={searchError} field="q" />
        </label>
        <button type="submit">{search ? 'Search' : 'Show transaction'}</button>
      </form>
      <ActionError error={searchError} />
      {account && source.account ? <AccountView source={source} address={account} go={go} /> : null}
      {tx ? <TransactionView source={source} txId={tx} go={go} /> : null}
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
      {block !== null ? <BlockView source={source} num={block} go={go} /> : null}
    </>
  );
}

function AccountView<B extends ChainBlock, T extends ChainTransaction, D extends ChainBlockDetail<T>, X extends ChainTransactionDetail>({ source, address, go }: { source: ChainSource<B, T, D, X>; address: string; go: ChainNav }) {
  const q = useQuery({ queryKey: [...source.queryKey, 'account', address], queryFn: () => source.account!(address) });
  return (
    <article className="card" aria-label="Account">
      <h3>Account</h3>
      <QueryView q={q} what="Loading account">
        {(a) => (
          <dl className="facts">
            <dt>Address</dt>
            <dd>
              <code className="hash">{address}</code>
            </dd>
            <Facts row={a} facts={source.accountFacts ?? []} go={go} />
          </dl>
        )}
      </QueryView>
    </article>
  );
}

function BlockView<B extends ChainBlock, T extends ChainTransaction, D extends ChainBlockDetail<T>, X extends ChainTransactionDetail>({ source, num, go }: { source: ChainSource<B, T, D, X>; num: number; go: ChainNav }) {
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
              <dt>{source.labels?.dataHash ?? 'Data hash'}</dt>
              <dd>
                <code className="hash">{b.data_hash}</code>
              </dd>
              <Facts row={b} facts={source.blockFacts ?? []} go={go} />
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
                    <th scope="col">{source.labels?.creator ?? 'Creator'}</th>
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
                          <button type="button" className="link hash" onClick={() => go.transaction(t.id)} title="Show this transaction">
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

function TransactionView<B extends ChainBlock, T extends ChainTransaction, D extends ChainBlockDetail<T>, X extends ChainTransactionDetail>({ source, txId, go }: { source: ChainSource<B, T, D, X>; txId: string; go: ChainNav }) {
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
            <Facts row={t} facts={[source.transactionStatus]} go={go} />
            <dt>Block</dt>
            <dd>
              {t.block_number === null ? (
                'pending'
              ) : (
                <button type="button" className="link" onClick={() => go.block(t.block_number!)}>
                  #{t.block_number}
                </button>
              )}
              {t.tx_number !== undefined ? `, position ${t.tx_number}` : null}
            </dd>
            <dt>Type</dt>
            <dd>{t.type}</dd>
            <dt>{source.labels?.creator ?? 'Creator'}</dt>
            <dd>
              {t.creator_msp_id && source.account ? (
                <button type="button" className="link hash" onClick={() => go.account(t.creator_msp_id!)}>
                  {t.creator_msp_id}
                </button>
              ) : (
                (t.creator_msp_id ?? '—')
              )}
            </dd>
            <dt>Time</dt>
            <dd>
              <When at={t.timestamp} />
            </dd>
            <Facts row={t} facts={source.transactionFacts ?? []} go={go} />
          </dl>
        )}
      </QueryView>
    </article>
  );
}
