// An EVM network: genesis facts, validators, its nodes and the chain's block height, live; its
// contracts: deploy, and call (read and write functions from the recorded ABI, or any contract at
// an address with a pasted ABI); validator votes (ValidatorVotes.tsx); adding a validator or
// bootnode (AddNetworkNode.tsx); the map of its nodes and links (EvmNetworkMap.tsx); the chain's
// blocks, transactions and accounts in the shared explorer (EvmExplorer.tsx).
import { Link, useParams } from 'react-router';
import { useQueries, useQuery } from '@tanstack/react-query';
import { DeleteNetwork } from './DeleteNetwork';
import { api, getJson, unwrap, type Json } from '../../api/client';
import { abiFunctions } from '../../components/abi';
import { POLL_MS } from '../../api/queries';
import { Can, useSession } from '../../session';
import { QueryView } from '../../components/states';
import { StatusBadge, When } from '../../components/format';
import { NodeActions } from '../nodes/nodeActions';
import { DeployContract } from './DeployContract';
import { ContractAt, ContractCalls } from './ContractCalls';
import { EvmNetworkMap } from './EvmNetworkMap';
import { AddNetworkNode } from './AddNetworkNode';
import { ValidatorVotes } from './ValidatorVotes';
import { EvmExplorer } from './EvmExplorer';
import { NetworkOperations } from './NetworkOperations';
import { DataTable, type Column } from '../../components/DataTable';

type NetworkNode = Json<'/api/v1/networks/evm/{id}/nodes', 'get'>['items'][number];
type Contract = Json<'/api/v1/networks/evm/{id}/contracts', 'get'>['items'][number];

const nodeColumns: Array<Column<NetworkNode>> = [
  { header: 'Name', cell: (node) => <Link to={`/nodes/${node.id}`}>{node.name}</Link> },
  { header: 'Role', cell: (node) => node.role },
  { header: 'Status', cell: (node) => <StatusBadge status={node.status} /> },
  { header: 'Block height', cell: (node) => node.block_height ?? '—' },
  { header: 'RPC', cell: (node) => (node.endpoints.rpc_http ? <code>{node.endpoints.rpc_http}</code> : '—') },
  { header: 'Actions', cell: (node) => <NodeActions id={node.id} name={node.name} status={node.status} /> },
];

const contractColumns: Array<Column<Contract>> = [
  { header: 'Name', cell: (c) => c.name },
  { header: 'Address', cell: (c) => <code className="hash">{c.address}</code> },
  { header: 'Functions', cell: (c) => abiFunctions(c.abi).length || <span className="muted">no ABI</span> },
  { header: 'Deployed', cell: (c) => <When at={c.deployed_at} /> },
];

type Network = Json<'/api/v1/networks/evm/{id}', 'get'>;

/** The network, or one not-found (or error) message and nothing else: no sections or forms for a network that is not there. */
export default function EvmNetworkDetail() {
  const id = Number(useParams().id);
  const network = useQuery({ queryKey: ['network', 'evm', id], refetchInterval: 5_000, queryFn: () => unwrap(api.GET('/api/v1/networks/evm/{id}', { params: { path: { id } } })) });
  return (
    <section>
      <p className="crumbs">
        <Link to="/networks">Networks</Link> /
      </p>
      <QueryView q={network} what="Loading network">
        {(n) => <EvmNetwork n={n} />}
      </QueryView>
    </section>
  );
}

function EvmNetwork({ n }: { n: Network }) {
  const id = n.id;
  const { can } = useSession();
  const nodes = useQuery({ queryKey: ['nodes', 'network', id], refetchInterval: POLL_MS, queryFn: () => unwrap(api.GET('/api/v1/networks/evm/{id}/nodes', { params: { path: { id } } })) });
  const contracts = useQuery({ queryKey: ['contracts', id], refetchInterval: 10_000, queryFn: () => unwrap(api.GET('/api/v1/networks/evm/{id}/contracts', { params: { path: { id }, query: { limit: 100 } } })) });
  // The list's block_height is the last health probe's; the tile asks each running node live
  // (GET /nodes/{id} reads the node's JSON-RPC) every POLL_MS while the page is open.
  const running = nodes.data?.items.filter((n) => n.status === 'running') ?? [];
  const live = useQueries({
    queries: running.map((n) => ({ queryKey: ['node', n.id], refetchInterval: POLL_MS, queryFn: () => unwrap(api.GET('/api/v1/nodes/{id}', { params: { path: { id: n.id } } })) })),
  });
  const heights = [...live.map((q) => q.data?.block_height), ...(nodes.data?.items.map((n) => n.block_height) ?? [])].filter((h): h is number => typeof h === 'number');
  const height = heights.length ? Math.max(...heights) : null;
  return (
    <>
            <div className="title-row">
              <h1>
                {n.name} <StatusBadge status={n.status} />
              </h1>
            </div>
            <NetworkOperations networkId={id} statuses={nodes.data?.items.map((node) => node.status) ?? []} />
            <DeleteNetwork platform="evm" network={n}>
              <p>The network and its nodes go: each node is stopped and removed with its data. Its validator keys stay under Keys (they may hold funds or be reused); delete them there once the network is gone.</p>
            </DeleteNetwork>
            <div className="tiles">
              <article className="card tile" aria-labelledby="height-title">
                <h2 id="height-title">Block height</h2>
                <p className="big" data-testid="block-height" aria-live="off">
                  {height ?? '—'}
                </p>
                <p className="muted">Highest block any node of the network reports, asked live every {POLL_MS / 1000} s.</p>
              </article>
              <article className="card tile">
                <dl className="facts">
                  <dt>Chain id</dt>
                  <dd>{n.chain_id}</dd>
                  <dt>Consensus</dt>
                  <dd data-testid="consensus">{n.development_chain ? 'none: a one-node development chain' : n.consensus}</dd>
                  <dt>Block period</dt>
                  <dd>{n.block_time} s</dd>
                  <dt>Gas</dt>
                  <dd>{n.gas_pricing === 'free' ? 'free' : `min ${n.min_gas_price} wei, base fee ${n.base_fee} wei`}</dd>
                  <dt>Client</dt>
                  <dd>
                    {n.client} ({n.engine})
                  </dd>
                  <dt>Created</dt>
                  <dd>
                    <When at={n.created_at} />
                  </dd>
                  <dt>Genesis hash</dt>
                  <dd>
                    <code className="hash">{n.genesis_block_hash}</code>
                  </dd>
                </dl>
              </article>
            </div>
            <h2>{n.development_chain ? 'Its key' : 'Validators'}</h2>
            <p className="hint" data-testid="runs-as">
              A {n.runs_as}.{n.development_chain ? ' Its key signs the blocks and deploys contracts.' : ''}
            </p>
            <table>
              <caption className="sr-only">{n.development_chain ? 'Its key' : 'Validators'}</caption>
              <thead>
                <tr>
                  <th scope="col">Address</th>
                  <th scope="col">Key provider</th>
                  <th scope="col">Key held here</th>
                </tr>
              </thead>
              <tbody>
                {n.validators.map((v) => (
                  <tr key={v.address}>
                    <td>
                      <code>{v.address}</code>
                    </td>
                    <td>{v.key_provider ?? '—'}</td>
                    <td>{v.key_held ? 'yes' : 'no'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {n.development_chain ? null : (
              <>
                <ChainValidators networkId={id} />
                <ValidatorVotes networkId={id} />
              </>
            )}
      <h2>Nodes</h2>
      <Can permission="NODE_CREATE">
        <AddNetworkNode networkId={id} />
      </Can>
      <QueryView q={nodes} what="Loading nodes">
        {(d) => <DataTable caption="Nodes of the network" rows={d.items} columns={nodeColumns} rowKey={(n) => n.id} empty="No nodes yet: starting the network creates one per validator." />}
      </QueryView>
      <h2>Map</h2>
      <EvmNetworkMap networkId={id} />
      <EvmExplorer id={id} />
      <h2>Contracts</h2>
      <Can permission="CONTRACT_DEPLOY">
        <DeployContract networkId={id} />
      </Can>
      <QueryView q={contracts} what="Loading contracts">
        {(d) => (
          <>
            <DataTable caption="Contracts" rows={d.items} columns={contractColumns} rowKey={(c) => c.id} empty={can('CONTRACT_DEPLOY') ? 'No contracts deployed through the service yet: deploy one with "Deploy a contract" above.' : 'No contracts deployed through the service yet.'} />
            {d.items.length ? (
              <Can permission="CONTRACT_INVOKE">
                <ContractCalls contracts={d.items} />
              </Can>
            ) : null}
          </>
        )}
      </QueryView>
      <Can permission="CONTRACT_INVOKE">
        <ContractAt networkId={id} />
      </Can>
    </>
  );
}

interface ValidatorList {
  source: 'chain' | 'genesis';
  node_id?: number;
  voting: boolean;
  note?: string;
  validators: Array<{ address: string; key_held: boolean; node_id: number | null }>;
}

/** The validator set as the running chain reports it (GET /networks/{id}/validators), or the genesis set with why. */
function ChainValidators({ networkId }: { networkId: number }) {
  const q = useQuery({ queryKey: ['validators', networkId], refetchInterval: 10_000, queryFn: () => getJson<ValidatorList>(`/api/v1/networks/${networkId}/validators`) });
  return (
    <>
      <h3>Validators as the chain reports them</h3>
      <QueryView q={q} what="Asking the chain for its validators">
        {(d) => (
          <>
            <p className="hint" data-testid="validators-source">
              {d.source === 'chain' ? `Read from node #${d.node_id} just now.` : `From the genesis: ${d.note ?? ''}`}
            </p>
            <DataTable
              caption="Validators on the chain"
              empty="The chain reports no validators."
              rows={d.validators}
              rowKey={(v) => v.address}
              columns={[
                { header: 'Address', cell: (v) => <code>{v.address}</code> },
                { header: 'Key held here', cell: (v) => (v.key_held ? 'yes' : 'no') },
                { header: 'Node', cell: (v) => (v.node_id !== null ? <Link to={`/nodes/${v.node_id}`}>node #{v.node_id}</Link> : '—') },
              ]}
            />
          </>
        )}
      </QueryView>
    </>
  );
}
