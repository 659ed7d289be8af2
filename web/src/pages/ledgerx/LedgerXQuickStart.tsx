// LedgerX (Fabric-X) quick start: a small form (the network's name, its organizations, optional
// channel, ports, address, committer database and key provider) whose one call
// (POST /networks/ledgerx/quickstart) runs on the server; the page then follows the record
// (GET /networks/ledgerx/quickstart/{id}, at /networks/ledgerx/quick-start/{id} so a reload or a
// shared link keeps following it) and shows each step as it completes, and a failed step's reason
// with the role that did not come up and its last log lines; then what it made (its create,
// GET /creations/{id}) and the one button that removes it all (POST /creations/{id}/undo).
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useSession } from '../../session';
import { ActionError, Empty, QueryView, FieldError, invalid } from '../../components/states';
import { When } from '../../components/format';
import { CreationUndo } from '../../components/CreationUndo';

interface Org {
  name: string;
  mspId: string;
}

const KIND: Record<string, string> = {
  organization: 'Organization',
  'orderer-group': 'Orderer group',
  committer: 'Committer',
  network: 'Network',
  'join-orderer-group': 'Join of the orderer group',
  'join-committer': 'Join of the committer',
};
const STATE: Record<string, string> = { PENDING: 'Waiting', RUNNING: 'Working', DONE: 'Done', FAILED: 'Failed' };

export default function LedgerXQuickStart() {
  const { id } = useParams();
  return (
    <section>
      <p className="crumbs">
        <Link to="/">Dashboard</Link> / <Link to="/networks">Networks</Link> /
      </p>
      <h1>Quick start: a ledgerX network</h1>
      {id ? <Progress id={Number(id)} /> : <StartForm />}
    </section>
  );
}

function StartForm() {
  const { can } = useSession();
  const navigate = useNavigate();
  const [name, setName] = useState('quickx');
  const [channel, setChannel] = useState('');
  const [orgs, setOrgs] = useState<Org[]>([{ name: 'XOrg1', mspId: 'XOrg1MSP' }]);
  const [grpcPort, setGrpcPort] = useState('');
  const [externalIp, setExternalIp] = useState('');
  const [databaseUrl, setDatabaseUrl] = useState('');
  const [providerId, setProviderId] = useState('');
  const providers = useQuery({ queryKey: ['key-providers'], enabled: can('KEY_PROVIDER_READ'), queryFn: () => unwrap(api.GET('/api/v1/key-providers')) });
  const m = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/networks/ledgerx/quickstart', {
          body: {
            name,
            organizations: orgs.map((o) => ({ name: o.name, mspId: o.mspId })),
            ...(channel ? { channelName: channel } : {}),
            ...(grpcPort ? { grpcPort: Number(grpcPort) } : {}),
            ...(externalIp ? { externalIp } : {}),
            ...(databaseUrl ? { committerDatabaseUrl: databaseUrl } : {}),
            ...(providerId ? { providerId: Number(providerId) } : {}),
          },
        }),
      ),
    onSuccess: (r) => navigate(`/networks/ledgerx/quick-start/${r.id}`),
  });
  if (!can('NETWORK_CREATE')) return <Empty>Your role may not create networks; ask an operator or an admin for a quick start.</Empty>;
  const setOrg = (i: number, o: Partial<Org>) => setOrgs(orgs.map((x, j) => (j === i ? { ...x, ...o } : x)));
  return (
    <form
      className="card form-grid"
      aria-labelledby="lxqs-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        if (!m.isPending) m.mutate();
      }}
    >
      <h2 id="lxqs-title">Organizations, orderer groups, committer and channel</h2>
      <p className="hint">
        Each organization gets its CAs and an orderer group (one party): one works, four tolerate one fault. The first organization also runs the committer. The service makes the genesis block and joins every node; the steps run on the server and are shown as each completes.
      </p>
      <label>
        Network name
        <input {...invalid(m.error, 'name')} required maxLength={40} pattern="[a-z0-9][a-z0-9\-]*" value={name} onChange={(e) => setName(e.target.value)} />
        <FieldError error={m.error} field="name" />
      </label>
      <label>
        Channel name (optional; default: the network's name)
        <input {...invalid(m.error, 'channelName')} maxLength={249} pattern="[a-z][a-z0-9.\-]*" value={channel} onChange={(e) => setChannel(e.target.value)} />
        <FieldError error={m.error} field="channelName" />
      </label>
      <fieldset>
        <legend>Organizations</legend>
        {orgs.map((o, i) => (
          <div className="actions" key={i}>
            <label>
              Organization {i + 1} name
              <input {...invalid(m.error, `organizations.${i}.name`)} required maxLength={100} value={o.name} onChange={(e) => setOrg(i, { name: e.target.value })} />
              <FieldError error={m.error} field={`organizations.${i}.name`} />
            </label>
            <label>
              Organization {i + 1} MSP id
              <input {...invalid(m.error, `organizations.${i}.mspId`)} required maxLength={64} value={o.mspId} onChange={(e) => setOrg(i, { mspId: e.target.value })} />
              <FieldError error={m.error} field={`organizations.${i}.mspId`} />
            </label>
            {orgs.length > 1 ? (
              <button type="button" onClick={() => setOrgs(orgs.filter((_, j) => j !== i))} aria-label={`Remove organization ${i + 1}`}>
                Remove
              </button>
            ) : null}
          </div>
        ))}
        {orgs.length < 4 ? (
          <button type="button" onClick={() => setOrgs([...orgs, { name: `XOrg${orgs.length + 1}`, mspId: `XOrg${orgs.length + 1}MSP` }])}>
            Add an organization
          </button>
        ) : null}
      </fieldset>
      <label>
        gRPC base port (optional; group i at +10 i, the committer after them)
        <input {...invalid(m.error, 'grpcPort')} type="number" min={1024} max={65000} value={grpcPort} onChange={(e) => setGrpcPort(e.target.value)} />
        <FieldError error={m.error} field="grpcPort" />
      </label>
      <label>
        External IP (optional; default 127.0.0.1)
        <input {...invalid(m.error, 'externalIp')} maxLength={15} value={externalIp} onChange={(e) => setExternalIp(e.target.value)} />
        <FieldError error={m.error} field="externalIp" />
      </label>
      <label>
        Committer database URL (optional; default: a database in the service's PostgreSQL)
        <input {...invalid(m.error, 'committerDatabaseUrl')} type="password" autoComplete="off" placeholder="postgres://user:password@host:5432/db" value={databaseUrl} onChange={(e) => setDatabaseUrl(e.target.value)} />
        <FieldError error={m.error} field="committerDatabaseUrl" />
      </label>
      {can('KEY_PROVIDER_READ') ? (
        <label>
          Key provider of the organizations
          <select {...invalid(m.error, 'providerId')} value={providerId} onChange={(e) => setProviderId(e.target.value)}>
            <option value="">The default provider</option>
            {(providers.data ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} ({p.type})
              </option>
            ))}
          </select>
          <FieldError error={m.error} field="providerId" />
        </label>
      ) : null}
      <ActionError error={m.error} />
      <div>
        <button type="submit" className="primary" disabled={m.isPending}>
          {m.isPending ? 'Checking…' : 'Create the network'}
        </button>
      </div>
    </form>
  );
}

function Progress({ id }: { id: number }) {
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: ['ledgerx-quickstart', id],
    queryFn: async () => {
      const r = await unwrap(api.GET('/api/v1/networks/ledgerx/quickstart/{id}', { params: { path: { id } } }));
      if (r.status !== 'IN_PROGRESS') void qc.invalidateQueries({ queryKey: ['networks', 'ledgerx'] });
      return r;
    },
    refetchInterval: (query) => (query.state.data && query.state.data.status !== 'IN_PROGRESS' ? false : 1_000),
  });
  return (
    <QueryView q={q} what="Loading the quick start">
      {(r) => (
        <>
          <p>
            Network <strong>{r.network_name}</strong>, started <When at={r.created_at} />:{' '}
            <span className={`badge ${r.status === 'COMPLETED' ? 'status-running' : r.status === 'FAILED' ? 'status-error' : 'status-starting'}`} data-testid="quickstart-status">
              {r.status === 'IN_PROGRESS' ? 'In progress' : r.status === 'COMPLETED' ? 'Completed' : 'Failed'}
            </span>
          </p>
          <h2>Steps</h2>
          <ol className="steps" aria-label="Quick start steps" aria-live="polite">
            {r.steps.map((s, i) => (
              <li key={i} data-state={s.status.toLowerCase()}>
                <strong>{STATE[s.status] ?? s.status}:</strong> {KIND[s.kind] ?? s.kind} {s.name}
                {s.status === 'DONE' && s.finished_at ? (
                  <span className="muted">
                    {' '}
                    — <When at={s.finished_at} />
                  </span>
                ) : null}
                {s.status === 'FAILED' ? (
                  <div className="failure">
                    <p>
                      {s.role ? (
                        <>
                          The {s.role}
                          {s.role_node_id ? (
                            <>
                              {' '}
                              (<Link to={`/nodes/${s.role_node_id}`}>node #{s.role_node_id}</Link>)
                            </>
                          ) : null}{' '}
                          did not come up:{' '}
                        </>
                      ) : null}
                      {s.message ?? r.error ?? 'no reason given'}
                    </p>
                    {s.role || s.log_tail.length ? (
                      <>
                        <p>{s.role ? `The ${s.role}'s last log lines:` : 'The last log lines:'}</p>
                        <pre className="code" aria-label="Log tail of the failed step">
                          {s.log_tail.join('\n') || '(the log is empty)'}
                        </pre>
                      </>
                    ) : null}
                  </div>
                ) : null}
              </li>
            ))}
          </ol>
          {r.status === 'COMPLETED' && r.network_id ? (
            <p className="verdict valid" role="status">
              The network is ready. <Link to={`/networks/ledgerx/${r.network_id}`}>Open the network {r.network_name}</Link>
            </p>
          ) : null}
          {r.status === 'FAILED' ? (
            <p className="verdict invalid" role="status">
              The quick start stopped at the failed step; what the steps before it made is kept until it is removed. <Link to="/networks/ledgerx/quick-start">Start another quick start</Link>
            </p>
          ) : null}
          {r.status === 'FAILED' && r.creation_id ? <FailedCreate id={r.creation_id} /> : null}
        </>
      )}
    </QueryView>
  );
}

/** A failed quick start's create: the step, what it made, and the one button that removes it all. */
function FailedCreate({ id }: { id: number }) {
  const qc = useQueryClient();
  const c = useQuery({ queryKey: ['creations', id], queryFn: () => unwrap(api.GET('/api/v1/creations/{id}', { params: { path: { id } } })) });
  return <QueryView q={c} what="Loading what the quick start made">{(creation) => <CreationUndo creation={creation} onChange={(next) => qc.setQueryData(['creations', id], next)} />}</QueryView>;
}
