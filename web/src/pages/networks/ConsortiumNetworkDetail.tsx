// A consortium network: channel facts, member nodes with their join state and join buttons,
// chaincode (deploy the sample, invoke, query; Chaincode.tsx) and an explorer of the channel's blocks (newest first) with a block's transactions.
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, getJson, unwrap } from '../../api/client';
import { POLL_MS } from '../../api/queries';
import { useSession } from '../../session';
import { ActionError, Empty, ErrorState, Loading, QueryView } from '../../components/states';
import { Pager, StatusBadge, When } from '../../components/format';
import { Chaincodes } from './Chaincode';
import { ChannelConfig } from './ChannelConfig';

interface Block {
  number: number;
  hash: string;
  previous_hash: string;
  data_hash: string;
  transaction_count: number;
  timestamp: string | null;
}
interface BlockDetail extends Block {
  transactions: Array<{ id: string; type: string; creator_msp_id: string | null; timestamp: string | null; validation_code: string }>;
}

export default function ConsortiumNetworkDetail() {
  const id = Number(useParams().id);
  const network = useQuery({ queryKey: ['network', 'consortium', id], refetchInterval: 5_000, queryFn: () => unwrap(api.GET('/api/v1/networks/consortium/{id}', { params: { path: { id } } })) });
  return (
    <section>
      <p className="crumbs">
        <Link to="/networks">Networks</Link> /
      </p>
      <QueryView q={network} what="Loading network">
        {(n) => (
          <>
            <h1>
              {n.name} <StatusBadge status={n.status} />
            </h1>
            <dl className="facts">
              <dt>Channel</dt>
              <dd>{n.channel_name}</dd>
              <dt>Consensus</dt>
              <dd>{n.consensus}</dd>
              <dt>Organizations</dt>
              <dd>{n.organizations.map((o) => o.msp_id).join(', ') || '—'}</dd>
              <dt>Orderer organizations</dt>
              <dd>{n.orderer_organizations.map((o) => o.msp_id).join(', ') || '—'}</dd>
              <dt>Configuration sequence</dt>
              <dd>{n.config_sequence}</dd>
              <dt>Created</dt>
              <dd>
                <When at={n.created_at} />
              </dd>
            </dl>
          </>
        )}
      </QueryView>
      <Members id={id} />
      <ChannelConfig networkId={id} />
      <Chaincodes networkId={id} />
      <Explorer id={id} />
    </section>
  );
}

function Members({ id }: { id: number }) {
  const { can } = useSession();
  const qc = useQueryClient();
  const nodes = useQuery({ queryKey: ['nodes', 'consortium', id], refetchInterval: POLL_MS, queryFn: () => unwrap(api.GET('/api/v1/networks/consortium/{id}/nodes', { params: { path: { id } } })) });
  const join = useMutation({
    mutationFn: ({ nodeId, orderer }: { nodeId: number; orderer: boolean }) =>
      orderer
        ? unwrap(api.POST('/api/v1/networks/consortium/{id}/orderers/{ordererId}/join', { params: { path: { id, ordererId: nodeId } } }))
        : unwrap(api.POST('/api/v1/networks/consortium/{id}/peers/{peerId}/join', { params: { path: { id, peerId: nodeId } } })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['nodes'] }),
  });
  return (
    <>
      <h2>Nodes</h2>
      <ActionError error={join.error} />
      <QueryView q={nodes} what="Loading nodes">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No member nodes.</Empty>
          ) : (
            <table>
              <caption className="sr-only">Member nodes and whether each joined the channel</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Organization</th>
                  <th scope="col">Status</th>
                  <th scope="col">Joined</th>
                  <th scope="col">Height</th>
                </tr>
              </thead>
              <tbody>
                {d.items.map((node) => {
                  const membership = node.networks.find((m) => m.network_id === id);
                  const orderer = node.nodeType.includes('ORDERER');
                  return (
                    <tr key={node.id}>
                      <td>
                        <Link to={`/nodes/${node.id}`}>{node.name}</Link>
                      </td>
                      <td>{orderer ? 'Orderer' : 'Peer'}</td>
                      <td>{node.msp_id}</td>
                      <td>
                        <StatusBadge status={node.status} />
                      </td>
                      <td>
                        {membership?.joined ? (
                          <>
                            Joined <When at={membership.joined_at} />
                          </>
                        ) : can('NETWORK_UPDATE') ? (
                          <button type="button" disabled={join.isPending || node.status !== 'running'} onClick={() => join.mutate({ nodeId: node.id, orderer })} aria-label={`Join ${node.name} to the channel`}>
                            Join
                          </button>
                        ) : (
                          'Not joined'
                        )}
                      </td>
                      <td>{membership?.block_height ?? node.block_height ?? '—'}</td>
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

function Explorer({ id }: { id: number }) {
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<number | null>(null);
  const blocks = useQuery({ queryKey: ['blocks', id, offset], refetchInterval: 5_000, queryFn: () => getJson<{ items: Block[]; total: number; limit: number; offset: number }>(`/api/v1/networks/consortium/${id}/blocks?limit=10&offset=${offset}`) });
  return (
    <>
      <h2>Explorer</h2>
      {blocks.isPending ? (
        <Loading what="Loading blocks" />
      ) : blocks.error ? (
        <ErrorState error={blocks.error} retry={() => blocks.refetch()} />
      ) : blocks.data.items.length === 0 ? (
        <Empty>The channel has no blocks yet.</Empty>
      ) : (
        <>
          <table>
            <caption className="sr-only">Blocks, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Block</th>
                <th scope="col">Transactions</th>
                <th scope="col">Time</th>
                <th scope="col">Hash</th>
              </tr>
            </thead>
            <tbody>
              {blocks.data.items.map((b) => (
                <tr key={b.number}>
                  <td>
                    <button type="button" className="link" onClick={() => setOpen(open === b.number ? null : b.number)} aria-expanded={open === b.number}>
                      #{b.number}
                    </button>
                  </td>
                  <td>{b.transaction_count}</td>
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
          <Pager total={blocks.data.total} limit={10} offset={offset} onOffset={setOffset} />
          {open !== null ? <BlockView id={id} num={open} /> : null}
        </>
      )}
    </>
  );
}

function BlockView({ id, num }: { id: number; num: number }) {
  const q = useQuery({ queryKey: ['block', id, num], queryFn: () => getJson<BlockDetail>(`/api/v1/networks/consortium/${id}/blocks/${num}`) });
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
                    <th scope="col">Validation</th>
                  </tr>
                </thead>
                <tbody>
                  {b.transactions.map((t) => (
                    <tr key={t.id || t.type}>
                      <td>
                        <code className="hash">{t.id || '—'}</code>
                      </td>
                      <td>{t.type}</td>
                      <td>{t.creator_msp_id ?? '—'}</td>
                      <td>{t.validation_code}</td>
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
