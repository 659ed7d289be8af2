// Node sharing (pro): invitations made here (the JWT and this instance's key fingerprint shown
// once, to hand over), an invitation from another instance previewed and accepted after its
// key fingerprint is confirmed, the peers with their shared nodes, sync and revoke, and channel
// config update proposals: one proposed here (an application policy of a network whose change
// needs the admin of an organization a peer shares), one received signed here, one whose
// signatures came back submitted here. A peer's channels that an organization of this instance
// was added to are listed under the peers, to import (then its peers join it on the network's page).
import { useState } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Json } from '../../api/client';
import { Can, useSession } from '../../session';
import { EditionPage } from '../../components/EditionGate';
import { ActionError, Empty, QueryView, FieldError, invalid } from '../../components/states';
import { StatusBadge, When } from '../../components/format';
import { DataTable } from '../../components/DataTable';
import type { Rejoined } from '../networks/ConfigChangeReview';

type Peer = Json<'/api/v1/nodesharing/peers', 'get'>['items'][number];

export default function Sharing() {
  return (
    <EditionPage title="Node sharing" needs="Node sharing needs" edition="pro">
      <SharingBody />
    </EditionPage>
  );
}

function SharingBody() {
  const peers = useQuery({ queryKey: ['sharing', 'peers'], refetchInterval: 10_000, queryFn: () => unwrap(api.GET('/api/v1/nodesharing/peers', { params: { query: { limit: 500 } } })) });
  return (
    <>
      <p className="hint">Instances that share see each other's public node metadata (names, endpoints, TLS and identity certificates), never keys.</p>
      <div className="tiles">
        <Can permission="SHARING_MANAGE">
          <Invite />
        </Can>
        <Can permission="system:configure">
          <Accept />
        </Can>
      </div>
      <h2>Peers</h2>
      <QueryView q={peers} what="Loading peers">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No peer instances yet. Create an invitation here and accept it on the other instance (or the other way round).</Empty>
          ) : (
            <>
              <Peers items={d.items} />
              <SharedChannels peers={d.items} />
            </>
          )
        }
      </QueryView>
      <Proposals />
    </>
  );
}

function Invite() {
  const [bidirectional, setBidirectional] = useState(true);
  const [hours, setHours] = useState('24');
  const m = useMutation({ mutationFn: () => unwrap(api.POST('/api/v1/nodesharing/invitations', { body: { bidirectional, expiresInSeconds: Math.round(Number(hours) * 3600) } })) });
  return (
    <form
      className="card form-grid"
      aria-labelledby="invite-title"
      onSubmit={(e) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h2 id="invite-title">Invite another instance</h2>
      <label className="inline">
        <input type="checkbox" checked={bidirectional} onChange={(e) => setBidirectional(e.target.checked)} />
        Both ways (otherwise only the accepting instance shares its nodes)
      </label>
      <label>
        Valid for (hours)
        <input {...invalid(m.error, 'expiresInSeconds')} type="number" min={1} max={720} required value={hours} onChange={(e) => setHours(e.target.value)} />
        <FieldError error={m.error} field="expiresInSeconds" />
      </label>
      <ActionError error={m.error} />
      {m.data ? (
        <div className="secret-once" role="status">
          <p>
            Invitation {m.data.invitation_id}, single use, until <When at={m.data.expires_at} />. Give it to the other instance's administrator, and tell them this
            key fingerprint over another channel:
          </p>
          <p>
            Key fingerprint: <code data-testid="invitation-fingerprint">{m.data.key_fingerprint}</code>
          </p>
          <label>
            Invitation
            <textarea className="code" readOnly rows={4} value={m.data.invitation_jwt} />
          </label>
        </div>
      ) : null}
      <div className="actions">
        <button type="submit" className="primary" disabled={m.isPending}>
          Create invitation
        </button>
      </div>
    </form>
  );
}

function Accept() {
  const qc = useQueryClient();
  const [jwt, setJwt] = useState('');
  const [fingerprint, setFingerprint] = useState('');
  const preview = useMutation({ mutationFn: () => unwrap(api.POST('/api/v1/nodesharing/invitations/preview', { body: { invitation_jwt: jwt.trim() } })) });
  const accept = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/nodesharing/accept', { body: { invitation_jwt: jwt.trim(), fingerprint: fingerprint.trim() } })),
    onSuccess: async () => {
      setJwt('');
      setFingerprint('');
      preview.reset();
      await qc.invalidateQueries({ queryKey: ['sharing'] });
    },
  });
  const p = preview.data;
  return (
    <form
      className="card form-grid"
      aria-labelledby="accept-title"
      onSubmit={(e) => {
        e.preventDefault();
        if (!p) preview.mutate();
        else accept.mutate();
      }}
    >
      <h2 id="accept-title">Accept an invitation</h2>
      <label>
        Invitation from the other instance
        <textarea
          {...invalid(preview.error ?? accept.error, 'invitation_jwt')}
          className="code"
          rows={4}
          required
          spellCheck={false}
          value={jwt}
          onChange={(e) => {
            setJwt(e.target.value);
            preview.reset();
            accept.reset();
          }}
        />
        <FieldError error={preview.error ?? accept.error} field="invitation_jwt" />
      </label>
      <ActionError error={preview.error} />
      {p ? (
        <>
          <dl className="facts" data-testid="invitation-preview">
            <dt>Inviting instance</dt>
            <dd>
              <code>{p.inviter_instance_id}</code>
            </dd>
            <dt>Its sharing address</dt>
            <dd>{p.url}</dd>
            <dt>TLS certificate (pinned)</dt>
            <dd>
              <code className="hash">{p.tls_fingerprint}</code>
            </dd>
            <dt>Signed by the key</dt>
            <dd>
              <code className="hash">{p.key_fingerprint}</code>
            </dd>
            <dt>Shares</dt>
            <dd>{p.bidirectional ? 'both ways' : 'only this instance shares its nodes'}</dd>
            <dt>Expires</dt>
            <dd>
              <When at={p.expires_at} />
            </dd>
          </dl>
          <label>
            The key fingerprint the inviter told you
            <input {...invalid(accept.error, 'fingerprint')} required value={fingerprint} onChange={(e) => setFingerprint(e.target.value)} autoComplete="off" />
            <FieldError error={accept.error} field="fingerprint" />
          </label>
          {fingerprint && fingerprint.trim() !== p.key_fingerprint ? <p className="error-text">This is not the fingerprint of the key that signed the invitation: do not accept.</p> : null}
        </>
      ) : null}
      <ActionError error={accept.error} />
      {accept.data ? (
        <p className="verdict valid" role="status">
          Now sharing with {accept.data.instance_id}: {accept.data.nodes.length} node(s) received.
        </p>
      ) : null}
      <div className="actions">
        {!p ? (
          <button type="submit" disabled={preview.isPending || !jwt.trim()}>
            Check invitation
          </button>
        ) : (
          <button type="submit" className="primary" disabled={accept.isPending || fingerprint.trim() !== p.key_fingerprint}>
            {accept.isPending ? 'Accepting…' : 'Accept invitation'}
          </button>
        )}
      </div>
    </form>
  );
}

function Peers({ items }: { items: Peer[] }) {
  const qc = useQueryClient();
  const { can } = useSession();
  const [confirming, setConfirming] = useState<number | null>(null);
  const sync = useMutation({
    mutationFn: (id: number) => unwrap(api.POST('/api/v1/nodesharing/sync', { body: { peer_node_id: id } })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['sharing'] }),
  });
  const revoke = useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/v1/nodesharing/peers/{id}', { params: { path: { id } } })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['sharing'] }),
  });
  return (
    <>
      <ActionError error={sync.error ?? revoke.error} />
      <DataTable
        caption="Peer instances"
        rows={items}
        rowKey={(p) => p.id}
        columns={[
          { header: 'Instance', cell: (p) => <code>{p.instance_id}</code> },
          { header: 'Address', cell: (p) => p.url },
          { header: 'Role', cell: (p) => (p.role === 'inviter' ? 'we invited it' : 'it invited us') },
          { header: 'Shares', cell: (p) => (p.bidirectional ? 'both ways' : p.shares_with_peer ? 'we share with it' : 'it shares with us') },
          { header: 'Status', cell: (p) => <StatusBadge status={p.status} /> },
          { header: 'Its nodes', cell: (p) => (p.nodes.length ? p.nodes.map((n) => `${n.name} (${n.nodeType})`).join(', ') : 'none') },
          { header: 'Last sync', cell: (p) => <When at={p.last_sync_at} /> },
          {
            header: 'Actions',
            cell: (p) =>
              can('SHARING_MANAGE') && p.status !== 'revoked' ? (
                <div className="actions">
                  <button type="button" disabled={sync.isPending} onClick={() => sync.mutate(p.id)} aria-label={`Sync with ${p.instance_id}`}>
                    Sync
                  </button>
                  {confirming === p.id ? (
                    <button type="button" className="danger" onClick={() => revoke.mutate(p.id)} aria-label={`Yes, revoke ${p.instance_id}`}>
                      Yes, revoke
                    </button>
                  ) : (
                    <button type="button" className="danger" onClick={() => setConfirming(p.id)} aria-label={`Revoke ${p.instance_id}`}>
                      Revoke
                    </button>
                  )}
                </div>
              ) : null,
          },
        ]}
      />
    </>
  );
}

type LocalNetwork = { id: number; name: string; channel_name: string };
type ImportAnswer = { network_id: number; name: string; channel_name: string; peer_id: number };

/** The peers' channels an organization of this instance belongs to: imported here, their peers can join them. */
function SharedChannels({ peers }: { peers: Peer[] }) {
  const rows = peers.filter((p) => p.status === 'active').flatMap((p) => p.networks.map((n) => ({ peer: p, network: n })));
  const local = useQuery({ queryKey: ['networks', 'consortium', 'all'], queryFn: () => unwrap(api.GET('/api/v1/networks/consortium', { params: { query: { limit: 500 } } })) as Promise<unknown> as Promise<{ items: LocalNetwork[] }> });
  return (
    <>
      <h2>Channels shared with this instance</h2>
      <p className="hint">A peer instance lists its channels once an organization of this instance is in their configuration (sync to see a new one). Import one to record it here from its block 0, then join this instance's peers on its page.</p>
      {rows.length === 0 ? (
        <Empty>No peer instance shares a channel with an organization of this instance yet.</Empty>
      ) : (
        <QueryView q={local} what="Loading this instance's networks">
          {(d) => (
            <DataTable
              caption="Channels shared by peer instances"
              rows={rows}
              rowKey={(r) => `${r.peer.id}-${r.network.network_id}`}
              columns={[
                { header: 'Peer instance', cell: (r) => <code>{r.peer.instance_id}</code> },
                { header: 'Network there', cell: (r) => r.network.name },
                { header: 'Channel', cell: (r) => r.network.channel_name },
                { header: 'Organizations', cell: (r) => r.network.organizations.join(', ') },
                { header: 'Orderers', cell: (r) => r.network.orderer_endpoints.join(', ') || '—' },
                { header: 'Here', cell: (r) => <ImportChannel peer={r.peer} network={r.network} local={d.items.find((n) => n.channel_name === r.network.channel_name)} /> },
              ]}
            />
          )}
        </QueryView>
      )}
    </>
  );
}

function ImportChannel({ peer, network, local }: { peer: Peer; network: Peer['networks'][number]; local: LocalNetwork | undefined }) {
  const qc = useQueryClient();
  const { can } = useSession();
  const [name, setName] = useState(network.name);
  const m = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/nodesharing/peers/{id}/networks/{networkId}/import', { params: { path: { id: peer.id, networkId: network.network_id } }, body: name.trim() && name.trim() !== network.name ? { name: name.trim() } : {} })) as Promise<unknown> as Promise<ImportAnswer>,
    onSuccess: () => qc.invalidateQueries({ queryKey: ['networks'] }),
  });
  const done = m.data ? { id: m.data.network_id, name: m.data.name } : local;
  if (done) {
    return (
      <span data-testid={`imported-${network.channel_name}`}>
        Imported as <Link to={`/networks/consortium/${done.id}`} aria-label={`Open ${done.name} to join its peers`}>{done.name}</Link>: join its peers there.
      </span>
    );
  }
  if (!can('NETWORK_CREATE')) return <>Not imported</>;
  return (
    <form
      className="filters"
      aria-label={`Import channel ${network.channel_name}`}
      onSubmit={(e) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <label>
        Name here
        <input {...invalid(m.error, 'name')} required maxLength={64} value={name} onChange={(e) => setName(e.target.value)} />
        <FieldError error={m.error} field="name" />
      </label>
      <button type="submit" className="primary" disabled={m.isPending}>
        {m.isPending ? 'Importing…' : 'Import'}
      </button>
      <ActionError error={m.error} />
    </form>
  );
}

type Proposal = { id: string; role: string; peer_id: number | null; network_id: number; channel_name: string; description: string; status: string; changes: string[]; kinds: string[]; missing_organizations: string[]; signed_by: string[]; created_at: string; rejoined?: Rejoined | null };
const PROPOSAL_POLICIES = ['Readers', 'Writers', 'Admins', 'Endorsement', 'LifecycleEndorsement'];

/** Channel config updates signed across instances: proposed here (each opens on its own page: diff, signatures, submit), received to sign with the organizations held here. */
function Proposals() {
  const qc = useQueryClient();
  const { can } = useSession();
  const orgs = useQuery({ queryKey: ['organizations', 'all'], enabled: can('ORGANIZATION_READ'), queryFn: () => unwrap(api.GET('/api/v1/organizations', { params: { query: { limit: 500 } } })) });
  const heldHere = new Set((orgs.data?.items ?? []).map((o) => o.mspId));
  const signAs = useMutation({ mutationFn: ({ id, mspId }: { id: string; mspId: string }) => unwrap(api.POST('/api/v1/nodesharing/proposals/{id}/sign', { params: { path: { id }, query: { organizations: mspId } } })), onSettled: () => qc.invalidateQueries({ queryKey: ['sharing', 'proposals'] }) });
  const list = useQuery({ queryKey: ['sharing', 'proposals'], refetchInterval: 5_000, queryFn: async () => (await unwrap(api.GET('/api/v1/nodesharing/proposals'))) as unknown as { items: Proposal[] } });
  const sign = useMutation({ mutationFn: (id: string) => unwrap(api.POST('/api/v1/nodesharing/proposals/{id}/sign', { params: { path: { id } } })), onSettled: () => qc.invalidateQueries({ queryKey: ['sharing', 'proposals'] }) });
  const submit = useMutation({ mutationFn: (id: string) => unwrap(api.POST('/api/v1/nodesharing/proposals/{id}/submit', { params: { path: { id } } })) as Promise<unknown> as Promise<{ sequence: number; block_number: number; signed_by: string[] }>, onSettled: () => qc.invalidateQueries({ queryKey: ['sharing', 'proposals'] }) });
  return (
    <>
      <h2>Config update proposals</h2>
      <p className="hint">
        A channel change that needs the admin signature of an organization this instance does not hold becomes a proposal (from the channel's page, or below for an application policy): it travels to the instance holding that
        organization, or its operator uploads a detached signature on the proposal's page; it is submitted from there once the policy is met.
      </p>
      <Can permission="NETWORK_UPDATE">
        <Propose />
      </Can>
      <QueryView q={list} what="Loading proposals">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No proposals sent or received yet.</Empty>
          ) : (
            <DataTable
              caption="Config update proposals"
              rows={d.items}
              rowKey={(p) => p.id}
              columns={[
                { header: 'Proposal', cell: (p) => (p.role === 'signer' ? <code>{p.id}</code> : <Link to={`/sharing/proposals/${encodeURIComponent(p.id)}`} aria-label={`Open proposal ${p.id}`}><code>{p.id}</code></Link>) },
                { header: 'Proposed by', cell: (p) => (p.role === 'signer' ? `peer ${p.peer_id} (received)` : p.peer_id ? `this instance (sent to peer ${p.peer_id})` : 'this instance (signatures uploaded here)') },
                { header: 'Channel', cell: (p) => p.channel_name },
                { header: 'Change', cell: (p) => p.kinds.join(', ') || '—' },
                { header: 'What', cell: (p) => <>{p.description}{p.changes.length ? <> (<code>{p.changes.join(', ')}</code>)</> : null}</> },
                { header: 'Signed by', cell: (p) => p.signed_by.join(', ') || '—' },
                { header: 'Missing', cell: (p) => (p.status === 'submitted' ? '—' : p.missing_organizations.filter((m) => !p.signed_by.includes(m)).join(', ') || 'none') },
                {
                  header: 'Status',
                  cell: (p) => (
                    <>
                      <span data-testid={`proposal-status-${p.id}`}>{p.status}</span>
                      {/* A submitted BFT consenter removal: what became of the removed orderer (rejoined as a follower or not). */}
                      {p.rejoined ? (
                        <>
                          {' '}
                          <span className={`badge ${p.rejoined.consensus_relation === 'follower' ? 'status-running' : 'status-error'}`} data-testid={`proposal-rejoined-${p.id}`} title={p.rejoined.steps.join('; ')}>
                            {p.rejoined.consensus_relation === 'follower' ? `orderer rejoined as follower (height ${p.rejoined.height})` : `orderer not rejoined (${p.rejoined.consensus_relation}, ${p.rejoined.status})`}
                          </span>
                        </>
                      ) : null}
                    </>
                  ),
                },
                {
                  header: 'Actions',
                  cell: (p) => (
                    <Can permission="NETWORK_UPDATE">
                      {p.role === 'signer' && p.status === 'awaiting-signatures' ? (
                        <>
                          <button type="button" disabled={sign.isPending} onClick={() => sign.mutate(p.id)} aria-label={`Sign proposal ${p.id}`}>
                            Sign
                          </button>
                          {p.missing_organizations.filter((m) => heldHere.has(m)).map((m) => (
                            <button key={m} type="button" disabled={signAs.isPending} onClick={() => signAs.mutate({ id: p.id, mspId: m })} aria-label={`Sign ${p.id} with ${m} only`}>
                              Sign as {m}
                            </button>
                          ))}
                        </>
                      ) : null}
                      {p.role !== 'signer' && p.status !== 'submitted' ? (
                        <button type="button" className="primary" disabled={submit.isPending} onClick={() => submit.mutate(p.id)} aria-label={`Submit proposal ${p.id}`}>
                          Submit
                        </button>
                      ) : null}
                    </Can>
                  ),
                },
              ]}
            />
          )
        }
      </QueryView>
      <ActionError error={sign.error ?? signAs.error ?? submit.error} />
      {signAs.data ? <p role="status" className="verdict valid">Signed by {(signAs.data as unknown as { signed_by: string[] }).signed_by.join(', ')}; the signature went back to the proposer.</p> : null}
      {sign.data ? <p role="status" className="verdict valid">Signed by {(sign.data as unknown as { signed_by: string[] }).signed_by.join(', ')}; the signatures went back to the proposer.</p> : null}
      {submit.data ? <p role="status" className="verdict valid" data-testid="proposal-submitted">Submitted: configuration sequence {submit.data.sequence}, block {submit.data.block_number}, signed by {submit.data.signed_by.join(', ')}.</p> : null}
    </>
  );
}

function Propose() {
  const qc = useQueryClient();
  const networks = useQuery({ queryKey: ['networks', 'consortium', 'all'], queryFn: () => unwrap(api.GET('/api/v1/networks/consortium', { params: { query: { limit: 500 } } })) as Promise<unknown> as Promise<{ items: Array<{ id: number; name: string; channel_name: string }> }> });
  const [networkId, setNetworkId] = useState('');
  const [name, setName] = useState('Endorsement');
  const [type, setType] = useState<'ImplicitMeta' | 'Signature'>('ImplicitMeta');
  const [rule, setRule] = useState('');
  const [description, setDescription] = useState('');
  const m = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/nodesharing/proposals', { body: { network_id: Number(networkId), policies: { [name]: { type, rule: rule.trim() } }, ...(description.trim() ? { description: description.trim() } : {}) } })) as Promise<unknown> as Promise<{ status: string; proposal_id: string | null; missing_organizations: string[] }>,
    onSettled: () => qc.invalidateQueries({ queryKey: ['sharing', 'proposals'] }),
  });
  return (
    <QueryView q={networks} what="Loading networks">
      {(d) =>
        d.items.length === 0 ? (
          <Empty>No consortium network to propose a change to.</Empty>
        ) : (
          <form
            className="card form-grid"
            aria-label="Propose a policy change"
            onSubmit={(e) => {
              e.preventDefault();
              m.mutate();
            }}
          >
            <label>
              Network
              <select {...invalid(m.error, 'network_id')} required value={networkId} onChange={(e) => setNetworkId(e.target.value)}>
                <option value="">Pick a network</option>
                {d.items.map((n) => (
                  <option key={n.id} value={n.id}>
                    {n.name} ({n.channel_name})
                  </option>
                ))}
              </select>
              <FieldError error={m.error} field="network_id" />
            </label>
            <label>
              Policy
              <select {...invalid(m.error, 'policies')} value={name} onChange={(e) => setName(e.target.value)}>
                {PROPOSAL_POLICIES.map((p) => (
                  <option key={p} value={p}>
                    {p}
                  </option>
                ))}
              </select>
              <FieldError error={m.error} field="policies" />
            </label>
            <label>
              Type
              <select value={type} onChange={(e) => setType(e.target.value as 'ImplicitMeta' | 'Signature')}>
                <option value="ImplicitMeta">ImplicitMeta</option>
                <option value="Signature">Signature</option>
              </select>
            </label>
            <label>
              Rule
              <input {...invalid(m.error, `policies.${name}.rule`)} className="code" required value={rule} onChange={(e) => setRule(e.target.value)} placeholder="ANY Endorsement" />
              <FieldError error={m.error} field={`policies.${name}.rule`} />
            </label>
            <label>
              What the other operator is asked to sign (optional)
              <input {...invalid(m.error, 'description')} value={description} maxLength={1000} onChange={(e) => setDescription(e.target.value)} />
              <FieldError error={m.error} field="description" />
            </label>
            <ActionError error={m.error} />
            {m.data ? (
              <p role="status" className="verdict valid" data-testid="proposal-sent">
                {m.data.status === 'unchanged' ? 'Nothing to change: the channel already has this policy.' : `Sent for signatures to the peer holding ${m.data.missing_organizations.join(', ')}: proposal ${m.data.proposal_id}.`}
              </p>
            ) : null}
            <div>
              <button type="submit" className="primary" disabled={m.isPending}>
                {m.isPending ? 'Proposing…' : 'Propose'}
              </button>
            </div>
          </form>
        )
      }
    </QueryView>
  );
}
