// A ledgerX network's nodes: its orderer groups (parties) with their four roles, the committers
// that joined with their five services, each with its status; join buttons for groups not yet
// joined and for committers outside any network (with NETWORK_UPDATE). A join starts the roles
// one by one and can take minutes; the button says so while it waits.
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useAllNodes } from '../../api/queries';
import { useSession } from '../../session';
import { ActionError, Empty, QueryView } from '../../components/states';
import { StatusBadge, When } from '../../components/format';
import { useLedgerXNetworkNodes, useLedgerXNetworks, type LedgerXMember, type LedgerXNetwork, type LedgerXNode } from './queries';
import { groupViewOf, RoleList } from './RoleList';

export function LedgerXNodesTab({ network }: { network: LedgerXNetwork }) {
  const { can } = useSession();
  const qc = useQueryClient();
  const id = network.id;
  const nodes = useLedgerXNetworkNodes(id);
  const join = useMutation({
    mutationFn: ({ nodeId, committer }: { nodeId: number; committer: boolean }) =>
      committer
        ? unwrap(api.POST('/api/v1/networks/ledgerx/{id}/committers/{nodeId}/join', { params: { path: { id, nodeId } } }))
        : unwrap(api.POST('/api/v1/networks/ledgerx/{id}/orderer-groups/{nodeId}/join', { params: { path: { id, nodeId } } })),
    onSettled: () => Promise.all([qc.invalidateQueries({ queryKey: ['nodes'] }), qc.invalidateQueries({ queryKey: ['networks'] })]),
  });
  const groups = network.nodes.filter((m) => m.role !== 'committer');
  const committers = network.nodes.filter((m) => m.role === 'committer');
  return (
    <>
      <ActionError error={join.error} />
      {join.isPending ? (
        <p role="status" className="muted">
          Joining: the roles get the genesis block and start one after another; this can take a few minutes.
        </p>
      ) : null}
      <QueryView q={nodes} what="Loading the network's nodes">
        {(d) => {
          const byId = new Map(d.items.map((n) => [n.id, n]));
          const statusOf = (nodeId: number) => byId.get(nodeId)?.status;
          const joinButton = (m: LedgerXMember, committer: boolean) =>
            can('NETWORK_UPDATE') ? (
              <>
                <button type="button" disabled={join.isPending} onClick={() => join.mutate({ nodeId: m.node_id, committer })} aria-label={`Join ${m.name} to the network`}>
                  Join
                </button>
                {join.isPending && join.variables?.nodeId === m.node_id ? <span className="muted"> joining…</span> : null}
              </>
            ) : (
              'Not joined'
            );
          return (
            <>
              <h2>Orderer groups</h2>
              {groups.length === 0 ? <Empty>No orderer groups.</Empty> : groups.map((m) => <Member key={m.node_id} m={m} node={byId.get(m.node_id)} statusOf={statusOf} join={joinButton(m, false)} />)}
              <h2>Committers</h2>
              {committers.length === 0 ? <Empty>No committer has joined yet: the explorer and namespaces need one.</Empty> : committers.map((m) => <Member key={m.node_id} m={m} node={byId.get(m.node_id)} statusOf={statusOf} join={null} />)}
            </>
          );
        }}
      </QueryView>
      {can('NETWORK_UPDATE') ? <FreeCommitters onJoin={(nodeId) => join.mutate({ nodeId, committer: true })} pending={join.isPending ? (join.variables?.nodeId ?? null) : null} /> : null}
    </>
  );
}

function Member({ m, node, statusOf, join }: { m: LedgerXMember; node: LedgerXNode | undefined; statusOf: (id: number) => string | undefined; join: ReactNode }) {
  const g = node ? groupViewOf(node) : null;
  return (
    <article className="card" aria-label={`${m.role === 'committer' ? 'Committer' : 'Orderer group'} ${m.name}`}>
      <h3>
        <Link to={`/nodes/${m.node_id}`}>{m.name}</Link> <StatusBadge status={node?.status} />
      </h3>
      <dl className="facts">
        <dt>Organization</dt>
        <dd>{m.msp_id}</dd>
        {m.party_id !== null ? (
          <>
            <dt>Party</dt>
            <dd>{m.party_id}</dd>
          </>
        ) : null}
        <dt>Joined</dt>
        <dd>
          {m.joined ? (
            <>
              Joined <When at={m.joined_at} />
            </>
          ) : (
            join
          )}
        </dd>
        {node?.error ? (
          <>
            <dt>Error</dt>
            <dd className="error-text">{node.error}</dd>
          </>
        ) : null}
      </dl>
      {g ? <RoleList group={g.view} kind={g.kind} status={statusOf} label={`${m.name}: ${g.kind === 'committer' ? 'services' : 'roles'}`} /> : null}
    </article>
  );
}

/** Committers in no network yet: each can join this one. */
function FreeCommitters({ onJoin, pending }: { onJoin: (nodeId: number) => void; pending: number | null }) {
  const all = useAllNodes('LEDGERX');
  const networks = useLedgerXNetworks();
  return (
    <>
      <h2>Committers not in a network</h2>
      <QueryView q={all} what="Loading committers">
        {(d) => {
          const taken = new Set((networks.data?.items ?? []).flatMap((n) => n.nodes.map((x) => x.node_id)));
          const free = d.items.filter((n) => n.nodeType === 'LEDGERX_COMMITTER' && !taken.has(n.id));
          return free.length === 0 ? (
            <Empty>
              No committer outside a network. Create one under <Link to="/nodes">Nodes</Link> (kind “LedgerX committer”).
            </Empty>
          ) : (
            <table>
              <caption className="sr-only">Committers that can join this network</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Join</th>
                </tr>
              </thead>
              <tbody>
                {free.map((n) => (
                  <tr key={n.id}>
                    <td>
                      <Link to={`/nodes/${n.id}`}>{n.name}</Link>
                    </td>
                    <td>
                      <StatusBadge status={n.status} />
                    </td>
                    <td>
                      <button type="button" disabled={pending !== null} onClick={() => onJoin(n.id)} aria-label={`Join ${n.name} to the network`}>
                        Join
                      </button>
                      {pending === n.id ? <span className="muted"> joining…</span> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          );
        }}
      </QueryView>
    </>
  );
}
