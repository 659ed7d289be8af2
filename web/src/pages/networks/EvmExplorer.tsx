// An EVM network's explorer (GET /networks/evm/{id}/blocks, /blocks/{n}, /transactions/{hash},
// /accounts/{address}, /search) in the shared explorer (components/ChainExplorer): a block's gas,
// a transaction's sender, value, gas and logs (decoded with the ABI of a contract the service
// deployed), an account's balance, nonce and code, and a search box for any number, hash or address.
import { api, unwrap, type Json } from '../../api/client';
import { ChainExplorer, type ChainSource } from '../../components/ChainExplorer';

type EvmBlock = Json<'/api/v1/networks/evm/{id}/blocks/{numberOrHash}', 'get'>;
type EvmTx = Json<'/api/v1/networks/evm/{id}/transactions/{hash}', 'get'>;
type EvmAccount = Json<'/api/v1/networks/evm/{id}/accounts/{address}', 'get'>;
type Listed = Json<'/api/v1/networks/evm/{id}/blocks', 'get'>['items'][number];

type Row = { id: string; type: string; creator_msp_id: string | null; to: string | null; value: string | null };
type Block = Listed & { transactions: Row[] } & { previous_hash: string; data_hash: string };
type Tx = Omit<EvmTx, 'type'> & { id: string; type: string; tx_type: number | null; creator_msp_id: string | null; timestamp: null };

const blockOf = (b: EvmBlock): Block => ({
  ...b,
  previous_hash: b.parent_hash,
  data_hash: b.transactions_root,
  transactions: b.transactions.map((t) => ({ id: t.hash, type: t.to ? 'call' : 'create', creator_msp_id: t.from, to: t.to, value: t.value })),
});
const txOf = (t: EvmTx): Tx => ({ ...t, tx_type: t.type, id: t.hash, type: t.to ? 'call' : t.contract_address ? 'contract creation' : 'create', creator_msp_id: t.from, timestamp: null });

function source(id: number): ChainSource<Listed, Row, Block, Tx> {
  return {
    queryKey: ['evm-explorer', id],
    blocks: (limit, offset) => unwrap(api.GET('/api/v1/networks/evm/{id}/blocks', { params: { path: { id }, query: { limit, offset } } })),
    block: async (num) => blockOf(await unwrap(api.GET('/api/v1/networks/evm/{id}/blocks/{numberOrHash}', { params: { path: { id, numberOrHash: String(num) } } }))),
    transaction: async (hash) => txOf(await unwrap(api.GET('/api/v1/networks/evm/{id}/transactions/{hash}', { params: { path: { id, hash } } }))),
    async search(q) {
      const found = await unwrap(api.GET('/api/v1/networks/evm/{id}/search', { params: { path: { id }, query: { q } } }));
      if (found.kind === 'block') return { kind: 'block', block: Number(found.id) };
      if (found.kind === 'transaction') return { kind: 'transaction', id: String(found.id) };
      return { kind: 'account', address: String(found.id) };
    },
    account: (address) => unwrap(api.GET('/api/v1/networks/evm/{id}/accounts/{address}', { params: { path: { id, address } } })),
    labels: { dataHash: 'Transactions root', creator: 'From' },
    blockColumns: [{ header: 'Gas used', cell: (b) => b.gas_used ?? '—' }],
    blockFacts: [
      { term: 'Miner', value: (b) => <code className="hash">{b.miner ?? '—'}</code> },
      { term: 'Sealer (Clique)', value: (b) => <code className="hash">{b.sealer ?? '—'}</code> },
      { term: 'Gas used / limit', value: (b) => `${b.gas_used ?? '—'} / ${b.gas_limit ?? '—'}` },
      { term: 'Time', value: (b) => new Date(b.timestamp).toLocaleString() },
    ],
    transactionColumns: [
      { header: 'To', cell: (t) => (t.to ? <code className="hash">{t.to}</code> : 'contract creation') },
      { header: 'Value (wei)', cell: (t) => t.value ?? '—' },
    ],
    transactionStatus: { term: 'Status', testId: 'evm-tx-status', value: (t) => t.status },
    transactionFacts: [
      {
        term: 'To',
        value: (t, go) =>
          t.to ?? t.contract_address ? (
            <button type="button" className="link hash" onClick={() => go.account((t.to ?? t.contract_address)!)}>
              {t.to ?? `${t.contract_address} (created)`}
            </button>
          ) : (
            '—'
          ),
      },
      { term: 'Value (wei)', value: (t) => t.value ?? '—' },
      { term: 'Revert reason', testId: 'evm-tx-revert', value: (t) => (t.status === 'reverted' ? (t.revert_reason ?? 'not given') : '—') },
      { term: 'Gas used / limit', testId: 'evm-tx-gas', value: (t) => `${t.gas_used ?? '—'} / ${t.gas ?? '—'}` },
      { term: 'Nonce', value: (t) => t.nonce ?? '—' },
      {
        term: 'Logs',
        testId: 'evm-tx-logs',
        value: (t) =>
          t.logs.length === 0 ? (
            'none'
          ) : (
            <ul>
              {t.logs.map((l, i) => (
                <li key={i}>
                  {l.name ? `${l.contract_name ?? l.address}: ${l.name}(${Object.entries(l.args ?? {}).map(([k, v]) => `${k}: ${String(v)}`).join(', ')})` : <code className="hash">{`${l.address} ${l.topics.join(' ')}`}</code>}
                </li>
              ))}
            </ul>
          ),
      },
    ],
    accountFacts: [
      { term: 'Balance (wei)', testId: 'evm-account-balance', value: (a: EvmAccount) => a.balance },
      { term: 'Nonce', value: (a: EvmAccount) => a.nonce },
      { term: 'Code', testId: 'evm-account-code', value: (a: EvmAccount) => (a.code_size ? `${a.code_size} bytes${a.contract ? ` (contract ${a.contract.name})` : ''}` : 'none (an account)') },
      {
        term: 'Sent by the service',
        value: (a: EvmAccount, go) =>
          a.service_transactions.length === 0 ? (
            'nothing recorded'
          ) : (
            <ul>
              {a.service_transactions.map((x) => (
                <li key={x.transaction_hash}>
                  deployment of {x.contract_name}:{' '}
                  <button type="button" className="link hash" onClick={() => go.transaction(x.transaction_hash)}>
                    {x.transaction_hash}
                  </button>
                </li>
              ))}
            </ul>
          ),
      },
    ],
    empty: 'No blocks yet.',
  };
}

export function EvmExplorer({ id }: { id: number }) {
  return (
    <>
      <h2>Explorer</h2>
      <ChainExplorer source={source(id)} />
    </>
  );
}
