// What applications of an organization need, on its page: the connection profile (Fabric's
// common connection profile, JSON or YAML: GET /organizations/{id}/connection-profile) and its
// client identities (GET/POST /organizations/{id}/identities): issue one (name, role client or
// admin, attributes), revoke it (into the signing CA's CRL), and download its private key only
// after a warning is acknowledged (POST .../key/export, audited); the CRL put into a channel the
// organization is in (POST /networks/consortium/{id}/organizations/{organizationId}/crl).
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { Can, useSession } from '../../session';
import { ActionError, FieldError, FormActions, QueryView, invalid } from '../../components/states';
import { Pager, StatusBadge, When } from '../../components/format';
import { DataTable } from '../../components/DataTable';
import { useConsortiumNetworks } from '../../api/queries';

type Org = { id: number; name: string; mspId: string };
const identities = (id: number, offset: number) => unwrap(api.GET('/api/v1/organizations/{id}/identities', { params: { path: { id }, query: { limit: 50, offset } } }));
type Identity = NonNullable<Awaited<ReturnType<typeof identities>>>['items'][number];

function saveText(text: string, filename: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function ConnectionProfile({ org }: { org: Org }) {
  return (
    <>
      <h2>Connection profile</h2>
      <p className="hint">
        Fabric's common connection profile of {org.mspId}: its peers and orderers (grpcs URL, TLS root, host name override) and its CA, as the Fabric gateway SDKs load it. Certificates only, no key.
        The CA is held by this service as a key: issue identities below (there is no Fabric CA server to enroll with).
      </p>
      <div className="actions">
        <a className="button" href={`/api/v1/organizations/${org.id}/connection-profile?format=json`} download={`connection-${org.mspId}.json`} aria-label={`Download the connection profile of ${org.name} as JSON`}>
          Connection profile (JSON)
        </a>
        <a className="button" href={`/api/v1/organizations/${org.id}/connection-profile?format=yaml`} download={`connection-${org.mspId}.yaml`} aria-label={`Download the connection profile of ${org.name} as YAML`}>
          Connection profile (YAML)
        </a>
      </div>
    </>
  );
}

export function ClientIdentities({ org }: { org: Org }) {
  const { can } = useSession();
  const [offset, setOffset] = useState(0);
  const [issuing, setIssuing] = useState(false);
  const [revoking, setRevoking] = useState<Identity | null>(null);
  const [exporting, setExporting] = useState<Identity | null>(null);
  const list = useQuery({ queryKey: ['client-identities', org.id, offset], queryFn: () => identities(org.id, offset) });
  return (
    <>
      <div className="title-row">
        <h2>Client identities of {org.name}</h2>
        {!issuing ? (
          <Can permission="KEY_CREATE">
            <button type="button" onClick={() => setIssuing(true)}>
              Issue a client identity
            </button>
          </Can>
        ) : null}
      </div>
      {issuing ? <IssueIdentity org={org} onDone={() => setIssuing(false)} /> : null}
      {revoking ? <RevokeIdentity org={org} identity={revoking} onDone={() => setRevoking(null)} /> : null}
      {exporting ? <ExportKey org={org} identity={exporting} onDone={() => setExporting(null)} /> : null}
      {can('NETWORK_UPDATE') ? <PushCrl org={org} /> : null}
      <QueryView q={list} what="Loading the client identities">
        {(d) => (
          <>
            <DataTable
              empty="No client identities yet. An application signs its transactions with one."
              caption={`Client identities of ${org.name}`}
              rows={d.items}
              rowKey={(i) => i.id}
              columns={[
                { header: 'Name', cell: (i) => i.name },
                { header: 'Role', cell: (i) => i.role },
                { header: 'Attributes', cell: (i) => Object.entries(i.attributes).filter(([k]) => !k.startsWith('hf.')).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join(', ') || '—' },
                { header: 'Serial', cell: (i) => <code>{i.serialNumber}</code> },
                { header: 'Expires', cell: (i) => <When at={i.notAfter} /> },
                { header: 'Status', cell: (i) => <StatusBadge status={i.status} /> },
                {
                  header: 'Actions',
                  cell: (i) =>
                    i.status === 'active' ? (
                      <div className="actions">
                        {can('KEY_ROTATE') ? (
                          <button type="button" className="danger" onClick={() => setRevoking(i)} aria-label={`Revoke ${i.name}`}>
                            Revoke
                          </button>
                        ) : null}
                        {can('KEY_EXPORT') && i.keyProviderType === 'DATABASE' ? (
                          <button type="button" onClick={() => setExporting(i)} aria-label={`Download the private key of ${i.name}`}>
                            Download key
                          </button>
                        ) : null}
                      </div>
                    ) : (
                      <span className="muted">revoked <When at={i.revokedAt} /></span>
                    ),
                },
              ]}
            />
            {d.items.length ? <Pager total={d.total} limit={50} offset={offset} onOffset={setOffset} /> : null}
          </>
        )}
      </QueryView>
    </>
  );
}

function IssueIdentity({ org, onDone }: { org: Org; onDone: () => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [role, setRole] = useState<'client' | 'admin'>('client');
  const [attributes, setAttributes] = useState('');
  const m = useMutation({
    mutationFn: () => {
      const attrs = attributes.split('\n').map((l) => l.trim()).filter(Boolean).map((l) => {
        const at = l.indexOf('=');
        return at < 0 ? { name: l, value: '' } : { name: l.slice(0, at).trim(), value: l.slice(at + 1).trim() };
      });
      return unwrap(api.POST('/api/v1/organizations/{id}/identities', { params: { path: { id: org.id } }, body: { name, role, ...(attrs.length ? { attributes: attrs } : {}) } }));
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['client-identities', org.id] });
      await qc.invalidateQueries({ queryKey: ['organization-keys', org.id] });
      onDone();
    },
  });
  return (
    <form
      className="card form-grid"
      aria-labelledby="issue-identity"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h2 id="issue-identity">New client identity of {org.mspId}</h2>
      <p className="hint">Issued by the organization's signing CA; its private key is made and kept in the organization's key provider.</p>
      <label>
        Name
        <input required maxLength={64} value={name} onChange={(e) => setName(e.target.value)} placeholder="app1" {...invalid(m.error, 'name')} />
      </label>
      <FieldError error={m.error} field="name" />
      <label>
        Role (the certificate's NodeOU)
        <select value={role} onChange={(e) => setRole(e.target.value as 'client' | 'admin')}>
          <option value="client">client</option>
          <option value="admin">admin</option>
        </select>
      </label>
      <label>
        Attributes (one name=value a line, optional)
        <textarea rows={3} value={attributes} onChange={(e) => setAttributes(e.target.value)} placeholder="department=sales" {...invalid(m.error, 'attributes')} />
      </label>
      <FieldError error={m.error} field="attributes" />
      <FormActions m={m} label="Issue identity" pendingLabel="Issuing…" onCancel={onDone} />
    </form>
  );
}

function RevokeIdentity({ org, identity, onDone }: { org: Org; identity: Identity; onDone: () => void }) {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/organizations/{id}/identities/{identityId}/revoke', { params: { path: { id: org.id, identityId: identity.id } }, body: {} })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['client-identities', org.id] });
      onDone();
    },
  });
  return (
    <form
      className="card"
      aria-labelledby="revoke-identity"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h2 id="revoke-identity">Revoke {identity.name}?</h2>
      <p>Its certificate goes into the CRL of {org.mspId}'s signing CA. Channels refuse it once that CRL is in the organization's MSP of the channel.</p>
      <FormActions m={m} label={`Revoke ${identity.name}`} pendingLabel="Revoking…" onCancel={onDone} />
    </form>
  );
}

function ExportKey({ org, identity, onDone }: { org: Org; identity: Identity; onDone: () => void }) {
  const [understood, setUnderstood] = useState(false);
  const m = useMutation({
    mutationFn: async () => {
      const r = await unwrap(api.POST('/api/v1/organizations/{id}/identities/{identityId}/key/export', { params: { path: { id: org.id, identityId: identity.id } } }));
      saveText(`${r.privateKey}`, `${identity.name}@${org.mspId}-key.pem`, 'application/x-pem-file');
      saveText(r.certificate, `${identity.name}@${org.mspId}-cert.pem`, 'application/x-pem-file');
    },
    onSuccess: onDone,
  });
  return (
    <form
      className="card"
      aria-labelledby="export-key"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h2 id="export-key">Download the private key of {identity.name}?</h2>
      <p className="warning" role="note">
        The private key leaves the key provider: whoever holds the file can sign as {identity.name} of {org.mspId}. The download is recorded in the audit log under your name. Keep the file safe,
        and revoke the identity if it may have been exposed.
      </p>
      <label className="inline">
        <input type="checkbox" checked={understood} onChange={(e) => setUnderstood(e.target.checked)} /> I understand; download the key
      </label>
      <FormActions m={m} label="Download private key" pendingLabel="Downloading…" onCancel={onDone} disabled={!understood} />
    </form>
  );
}

/** The organization's current CRL into a channel it is a member of: a config update, answered with its block. */
function PushCrl({ org }: { org: Org }) {
  const networks = useConsortiumNetworks();
  const mine = (networks.data?.items ?? []).filter((n) => [...n.organizations, ...n.orderer_organizations].some((o) => o.msp_id === org.mspId));
  const [networkId, setNetworkId] = useState<number | ''>('');
  const m = useMutation({
    mutationFn: (id: number) => unwrap(api.POST('/api/v1/networks/consortium/{id}/organizations/{organizationId}/crl', { params: { path: { id, organizationId: org.id } } })),
  });
  if (mine.length === 0) return null;
  const chosen = networkId === '' ? mine[0].id : networkId;
  return (
    <form
      className="card"
      aria-labelledby="push-crl"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate(chosen);
      }}
    >
      <h3 id="push-crl">Revocations into a channel</h3>
      <p className="hint">A channel refuses revoked identities only once the CRL of {org.mspId} is in its MSP of that channel: a config update signed by the admins this service holds.</p>
      <label>
        Channel
        <select value={chosen} onChange={(e) => setNetworkId(Number(e.target.value))}>
          {mine.map((n) => (
            <option key={n.id} value={n.id}>
              {n.channel_name} ({n.name})
            </option>
          ))}
        </select>
      </label>
      {m.data ? (
        <p role="status">
          CRL {m.data.crl_number} ({m.data.revoked_serials.length} revoked) {m.data.status === 'updated' ? `is in channel ${m.data.channel_name} from block ${m.data.block_number}` : `was already in channel ${m.data.channel_name}`}.
        </p>
      ) : null}
      <ActionError error={m.error} />
      <div className="actions">
        <button type="submit" disabled={m.isPending}>
          {m.isPending ? 'Updating the channel…' : 'Put the CRL into the channel'}
        </button>
      </div>
    </form>
  );
}
