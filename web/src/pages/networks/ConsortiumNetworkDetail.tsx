// A consortium network: channel facts, member nodes with their join state and join buttons (and,
// for a channel recorded without this instance's peers, e.g. one imported from a peer instance,
// a peer of one of its organizations held here picked and joined),
// chaincode (deploy, invoke, query; Chaincode.tsx) and the channel in the shared explorer (components/ChainExplorer: blocks newest
// first, a block's transactions, a transaction found by id).
import { Link, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { DeleteNetwork } from './DeleteNetwork';
import { ConsortiumAddMember } from './ConsortiumAddMember';
import { NetworkOperations } from './NetworkOperations';
import { api, ApiError, getJson, unwrap } from '../../api/client';
import { POLL_MS, useAllNodes } from '../../api/queries';
import { useState } from 'react';
import { useSession } from '../../session';
import { ActionError, Empty, QueryView } from '../../components/states';
import { StatusBadge, When } from '../../components/format';
import { ChainExplorer, type ChainSource } from '../../components/ChainExplorer';
import { Chaincodes } from './Chaincode';
import { ChannelConfig } from './ChannelConfig';
import { ConsensusMigration } from './ConsensusMigration';
import { ChannelConsenters, ChannelOrdererOrganizations, ChannelOrganizationMsp, ChannelOrganizationRemove } from './ChannelConsenters';

// The consortium ledger routes declare no response schema: their shapes as http/routes/consortium/consortiumChannels.ts answers them.
interface Block {
  number: number;
  hash: string;
  previous_hash: string;
  data_hash: string;
  transaction_count: number;
  timestamp: string | null;
}
interface BlockTx {
  id: string;
  type: string;
  creator_msp_id: string | null;
  timestamp: string | null;
  validation_code: string;
}
interface BlockDetail extends Block {
  transactions: BlockTx[];
}
interface TransactionDetail extends BlockTx {
  block_number: number;
}

export default function ConsortiumNetworkDetail() {
  const id = Number(useParams().id);
  const network = useQuery({ queryKey: ['network', 'consortium', id], refetchInterval: 5_000, queryFn: () => unwrap(api.GET('/api/v1/networks/consortium/{id}', { params: { path: { id } } })) });
  const members = useQuery({ queryKey: ['nodes', 'consortium', id], refetchInterval: POLL_MS, queryFn: () => unwrap(api.GET('/api/v1/networks/consortium/{id}/nodes', { params: { path: { id } } })) });
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
              <dt>Ordering</dt>
              <dd data-testid="ordering-health">
                <Ordering o={n.ordering} consensus={n.consensus} />
              </dd>
              <dt>Created</dt>
              <dd>
                <When at={n.created_at} />
              </dd>
            </dl>
            {members.data?.items.length ? <NetworkOperations networkId={id} statuses={members.data.items.map((m) => m.status)} /> : null}
            <ConsortiumAddMember network={n} />
            <DeleteNetwork platform="consortium" network={n} inUseHelp="Delete the peers and orderers that joined its channel first (their nodes' pages), then delete the network.">
              <p>The network's record goes, with its chaincode records and chaincode server nodes. It is refused while nodes that joined its channel remain.</p>
            </DeleteNetwork>
          </>
        )}
      </QueryView>
      {network.data ? (
        // Only for a network that is there: an unknown id is one not-found message, no other sections or forms.
        <>
          <Members id={id} organizationIds={network.data.organizations.map((o) => o.organization_id).filter((o): o is number => o !== null)} />
          <ChannelConfig networkId={id} />
          <ChannelConsenters networkId={id} channelName={network.data.channel_name} />
          <ConsensusMigration networkId={id} consensus={network.data.consensus} />
          <ChannelOrganizationRemove networkId={id} channelName={network.data.channel_name} mspIds={network.data.organizations.map((o) => o.msp_id)} />
          <ChannelOrganizationMsp networkId={id} channelName={network.data.channel_name} mspIds={network.data.organizations.map((o) => o.msp_id)} />
          <ChannelOrdererOrganizations networkId={id} channelName={network.data.channel_name} mspIds={network.data.orderer_organizations.map((o) => o.msp_id)} applicationMspIds={network.data.organizations.map((o) => o.msp_id)} />
          <Chaincodes networkId={id} />
          <Explorer id={id} />
        </>
      ) : null}
    </section>
  );
}

/**
 * Whether the channel can cut blocks with the orderers that run now (the read's `ordering`, from
 * the nodes' statuses): running of the channel's orderers, the faults tolerated and the quorum;
 * when it cannot, the reason naming the orderers that are not running.
 */
function Ordering({ o, consensus }: { o: { orderers: number; running: number; faults_tolerated: number; quorum: number; can_order: boolean; reason: string | null }; consensus: string }) {
  return (
    <>
      <strong data-testid="can-order">
        {o.can_order ? 'Can order' : 'Cannot order'}
      </strong>{' '}
      {o.running} of {o.orderers} {consensus === 'smartbft' ? 'SmartBFT' : 'raft'} orderers running; {o.quorum} needed, tolerates {o.faults_tolerated} {o.faults_tolerated === 1 ? 'fault' : 'faults'}
      {consensus === 'smartbft' ? ' (Byzantine)' : ' (crash)'}.
      {o.reason ? (
        <>
          {' '}
          <span role="alert" data-testid="ordering-reason">
            {o.reason}
          </span>
        </>
      ) : null}
    </>
  );
}

function Members({ id, organizationIds }: { id: number; organizationIds: number[] }) {
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
  // An orderer leaving: removed from the consenters first when it is one (the API checks the consenter rules), then the channel removed from it.
  // A peer leaving: removed from its organization's anchor peers first when it is one, then stopped, unjoined and started again.
  const [leaving, setLeaving] = useState<number | null>(null);
  const leave = useMutation({
    mutationFn: ({ nodeId, orderer }: { nodeId: number; orderer: boolean }): Promise<{ channel_name: string; steps: string[] }> =>
      orderer
        ? unwrap(api.POST('/api/v1/networks/consortium/{id}/orderers/{ordererId}/leave', { params: { path: { id, ordererId: nodeId } } }))
        : unwrap(api.POST('/api/v1/networks/consortium/{id}/peers/{peerId}/leave', { params: { path: { id, peerId: nodeId } } })),
    onSettled: () => {
      setLeaving(null);
      void qc.invalidateQueries({ queryKey: ['nodes'] });
      void qc.invalidateQueries({ queryKey: ['consenters', id] });
      void qc.invalidateQueries({ queryKey: ['channel-config', id] });
      void qc.invalidateQueries({ queryKey: ['network-map', id] });
    },
  });
  return (
    <>
      <h2>Nodes</h2>
      <div data-testid="leave-error">
        <ActionError error={leave.error} />
      </div>
      {leave.data ? (
        <div role="status" data-testid="leave-outcome">
          <p>Left channel {leave.data.channel_name}:</p>
          <ol>
            {leave.data.steps.map((s, i) => (
              <li key={i}>{s}</li>
            ))}
          </ol>
          <button type="button" onClick={() => leave.reset()}>Close</button>
        </div>
      ) : null}
      {can('NETWORK_UPDATE') && nodes.data ? <JoinLocalPeer organizationIds={organizationIds} members={nodes.data.items.map((n) => n.id)} join={(nodeId) => join.mutate({ nodeId, orderer: false })} pending={join.isPending} /> : null}
      <ActionError error={join.error} />
      {join.data ? <Joined answer={join.data} name={nodes.data?.items.find((n) => n.id === join.data.node_id)?.name ?? `node ${join.data.node_id}`} onClose={() => join.reset()} /> : null}
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
                            {can('NETWORK_UPDATE') ? (
                              leaving === node.id ? (
                                <span role="group" aria-label={`Confirm ${node.name} leaving the channel`}>
                                  {' '}
                                  {orderer
                                    ? "It is removed from the channel's consenters first if it is one (the consenters panel's dry run shows that diff), then the orderer drops the channel and its ledger."
                                    : "It is removed from its organization's anchor peers first if it is one; then the peer is stopped (Fabric's peer node unjoin needs it stopped), drops the channel and its ledger, and is restarted."}{' '}
                                  <button type="button" disabled={leave.isPending} onClick={() => leave.mutate({ nodeId: node.id, orderer })}>Leave</button> <button type="button" onClick={() => setLeaving(null)}>Cancel</button>
                                </span>
                              ) : (
                                <>
                                  {' '}
                                  <button type="button" onClick={() => setLeaving(node.id)} aria-label={`Leave channel: ${node.name}`}>Leave channel</button>
                                </>
                              )
                            ) : null}
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

/**
 * What a join answered. An orderer says how it stands in the channel: a consenter takes part in
 * consensus; an orderer added after the channel was made is not in its consenter set (the API
 * changes no consenters), so it joins as a follower: it pulls and keeps the chain and serves it,
 * without a vote.
 */
function Joined({ answer, name, onClose }: { answer: { role: string; already_joined: boolean; channel_name: string; orderer?: { status: string; consensus_relation: string; height: number } }; name: string; onClose: () => void }) {
  const o = answer.orderer;
  return (
    <div className="card" role="status" aria-label={`Join of ${name}`}>
      <p>
        <strong>
          {name} {answer.already_joined ? 'had already joined' : 'joined'} channel {answer.channel_name}
        </strong>
        {o ? (
          <>
            {' '}
            as a <span data-testid="consensus-relation">{o.consensus_relation}</span> (status {o.status}, height {o.height}).
            {o.consensus_relation === 'follower' ? ' It is not in the channel\'s consenter set: it pulls the chain from the consenters and serves it, without taking part in consensus.' : ''}
          </>
        ) : (
          '.'
        )}
      </p>
      <button type="button" onClick={onClose}>
        Close
      </button>
    </div>
  );
}

type PeerCandidate = { id: number; name: string; nodeType: string; status: string; organization_id?: number | null; msp_id?: string };

/** A running peer of one of the channel's organizations held here, not yet a member, joined to the channel. */
function JoinLocalPeer({ organizationIds, members, join, pending }: { organizationIds: number[]; members: number[]; join: (nodeId: number) => void; pending: boolean }) {
  const all = useAllNodes('CONSORTIUM');
  const [peerId, setPeerId] = useState('');
  const candidates = ((all.data?.items ?? []) as unknown as PeerCandidate[]).filter((n) => n.nodeType === 'CONSORTIUM_PEER' && n.organization_id != null && organizationIds.includes(n.organization_id) && !members.includes(n.id));
  if (candidates.length === 0) return null;
  const picked = candidates.find((n) => String(n.id) === peerId);
  return (
    <form
      className="filters"
      aria-label="Join a peer of this instance"
      onSubmit={(e) => {
        e.preventDefault();
        if (picked) join(picked.id);
      }}
    >
      <label>
        Peer of this instance
        <select required value={peerId} onChange={(e) => setPeerId(e.target.value)}>
          <option value="">Pick a peer</option>
          {candidates.map((n) => (
            <option key={n.id} value={n.id}>
              {n.name} ({n.msp_id ?? 'peer'}, {n.status})
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="primary" disabled={pending || !picked || picked.status !== 'running'}>
        Join to the channel
      </button>
      {picked && picked.status !== 'running' ? <span className="hint">The peer must be running to join.</span> : null}
    </form>
  );
}

/** The consortium channel in the shared explorer: a transaction's validation code is its outcome. */
function source(id: number): ChainSource<Block, BlockTx, BlockDetail, TransactionDetail> {
  return {
    queryKey: ['consortium', id],
    blocks: (limit, offset) => getJson<{ items: Block[]; total: number }>(`/api/v1/networks/consortium/${id}/blocks?limit=${limit}&offset=${offset}`),
    block: (num) => getJson<BlockDetail>(`/api/v1/networks/consortium/${id}/blocks/${num}`),
    transaction: (txId) => getJson<TransactionDetail>(`/api/v1/networks/consortium/${id}/transactions/${encodeURIComponent(txId)}`),
    transactionColumns: [{ header: 'Validation', cell: (t) => t.validation_code }],
    transactionStatus: { term: 'Validation', testId: 'consortium-tx-validation', value: (t) => t.validation_code },
    empty: 'The channel has no blocks yet.',
  };
}

interface ChainInfo {
  height: number;
  current_block_hash: string;
  previous_block_hash: string;
}

function Explorer({ id }: { id: number }) {
  const info = useQuery({ queryKey: ['consortium', id, 'info'], refetchInterval: 5_000, retry: false, queryFn: () => getJson<ChainInfo>(`/api/v1/networks/consortium/${id}/info`) });
  return (
    <>
      <h2>Explorer</h2>
      {info.error instanceof ApiError && info.error.status === 409 ? (
        <Empty>{info.error.message}</Empty>
      ) : (
        <QueryView q={info} what="Reading the chain's height">
          {(c) => (
            <dl className="facts" data-testid="consortium-chain-info">
              <dt>Height</dt>
              <dd>{c.height}</dd>
              <dt>Current block hash</dt>
              <dd>
                <code className="hash">{c.current_block_hash}</code>
              </dd>
              <dt>Previous block hash</dt>
              <dd>
                <code className="hash">{c.previous_block_hash || '—'}</code>
              </dd>
            </dl>
          )}
        </QueryView>
      )}
      <ChainExplorer source={source(id)} />
    </>
  );
}
