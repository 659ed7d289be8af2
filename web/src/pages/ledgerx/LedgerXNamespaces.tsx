// A ledgerX network's namespaces with their endorsement policies (from a joined committer's query
// service), and a form to create one: a meta-namespace transaction the service has the channel's
// organizations' admins endorse, awaited until committed. Policy MSP (signatures of the named
// organizations' members or admins) or THRESHOLD (one ECDSA public key).
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useSession } from '../../session';
import { ActionError, Empty, QueryView, FieldError, invalid } from '../../components/states';
import type { LedgerXNamespace, LedgerXNetwork } from './queries';

export function LedgerXNamespaces({ network }: { network: LedgerXNetwork }) {
  const id = network.id;
  const q = useQuery({ queryKey: ['ledgerx', id, 'namespaces'], refetchInterval: 10_000, queryFn: () => unwrap(api.GET('/api/v1/networks/ledgerx/{id}/namespaces', { params: { path: { id } } })) });
  return (
    <>
      <h2>Namespaces</h2>
      <QueryView q={q} what="Loading namespaces">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No namespaces yet.</Empty>
          ) : (
            <table>
              <caption className="sr-only">Namespaces and their endorsement policies</caption>
              <thead>
                <tr>
                  <th scope="col">Namespace</th>
                  <th scope="col">Version</th>
                  <th scope="col">Policy</th>
                </tr>
              </thead>
              <tbody>
                {d.items.map((n) => (
                  <tr key={n.name}>
                    <td>
                      <code>{n.name}</code>
                    </td>
                    <td>{n.version}</td>
                    <td>{describePolicy(n.policy)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </QueryView>
      <CreateNamespace network={network} />
    </>
  );
}

export function describePolicy(p: LedgerXNamespace['policy']): string {
  if (p.type === 'MSP') {
    const who = (p.principals ?? []).map((x) => `${x.msp_id} ${x.role}`).join(', ');
    return `MSP: ${p.signatures_required ?? 1} of ${who || 'nobody'}`;
  }
  if (p.type === 'THRESHOLD') return `Threshold: one ${p.scheme ?? ''} key`;
  return p.type;
}

function CreateNamespace({ network }: { network: LedgerXNetwork }) {
  const { can } = useSession();
  const qc = useQueryClient();
  const orgs = [...new Set(network.nodes.map((m) => m.msp_id))];
  const [name, setName] = useState('');
  const [type, setType] = useState<'MSP' | 'THRESHOLD'>('MSP');
  const [picked, setPicked] = useState<string[]>([]);
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const [required, setRequired] = useState('1');
  const [publicKey, setPublicKey] = useState('');
  const m = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/networks/ledgerx/{id}/namespaces', {
          params: { path: { id: network.id } },
          body: {
            name,
            policy:
              type === 'MSP'
                ? { type: 'MSP', role, signaturesRequired: Number(required), ...(picked.length ? { organizations: picked } : {}) }
                : { type: 'THRESHOLD', scheme: 'ECDSA', publicKey },
          },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['ledgerx', network.id] }),
  });
  if (!can('NETWORK_UPDATE')) return null;
  return (
    <form
      className="card form-grid"
      aria-label="Create a namespace"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h3>Create a namespace</h3>
      <label>
        Namespace name
        <input {...invalid(m.error, 'name')} required maxLength={60} pattern="[a-z0-9_]+" value={name} onChange={(e) => setName(e.target.value)} aria-describedby="ns-help" />
        <FieldError error={m.error} field="name" />
        <small id="ns-help">1 to 60 of a–z, 0–9 and “_” (the committer keeps it in the table ns_&lt;name&gt;); not _meta or _config.</small>
      </label>
      <fieldset>
        <legend>Endorsement policy</legend>
        <label className="inline">
          <input type="radio" name="ns-policy" checked={type === 'MSP'} onChange={() => setType('MSP')} /> MSP: signatures of organizations' members or admins
        </label>
        <label className="inline">
          <input type="radio" name="ns-policy" checked={type === 'THRESHOLD'} onChange={() => setType('THRESHOLD')} /> Threshold: one ECDSA key
        </label>
      </fieldset>
      {type === 'MSP' ? (
        <>
          <fieldset>
            <legend>Organizations (none picked: all of the channel's)</legend>
            {orgs.map((o) => (
              <label key={o} className="inline">
                <input type="checkbox" checked={picked.includes(o)} onChange={(e) => setPicked(e.target.checked ? [...picked, o] : picked.filter((x) => x !== o))} /> {o}
              </label>
            ))}
          </fieldset>
          <label>
            Whose signature counts
            <select {...invalid(m.error, 'policy.role')} value={role} onChange={(e) => setRole(e.target.value as 'member' | 'admin')}>
              <option value="member">Members</option>
              <option value="admin">Admins</option>
            </select>
            <FieldError error={m.error} field="policy.role" />
          </label>
          <label>
            Signatures required
            <input {...invalid(m.error, 'policy.signaturesRequired')} type="number" min={1} max={Math.max(1, picked.length || orgs.length)} value={required} onChange={(e) => setRequired(e.target.value)} />
            <FieldError error={m.error} field="policy.signaturesRequired" />
          </label>
        </>
      ) : (
        <label>
          Public key (PEM)
          <textarea {...invalid(m.error, 'policy.publicKey')} required rows={5} value={publicKey} placeholder="-----BEGIN PUBLIC KEY-----" onChange={(e) => setPublicKey(e.target.value)} />
          <FieldError error={m.error} field="policy.publicKey" />
        </label>
      )}
      <ActionError error={m.error} />
      {m.data ? (
        <p role="status">
          Namespace <code>{m.data.namespace.name}</code> {m.data.status} in block #{m.data.block_number} (transaction <code className="hash">{m.data.tx_id}</code>).
        </p>
      ) : null}
      <div>
        <button type="submit" className="primary" disabled={m.isPending}>
          {m.isPending ? 'Committing…' : 'Create namespace'}
        </button>
      </div>
    </form>
  );
}
