// One organization: its facts (GET /organizations/{id}), edit the name and description, delete it
// after a confirmation (a 409 while a node or network uses it says so), and its keys
// (GET /organizations/{id}/keys) with "Create a key" in the organization's key provider; its
// connection profile and client identities (ClientIdentities.tsx).
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { Can, useSession } from '../../session';
import { ErrorState, QueryView, FormActions, FieldError, invalid } from '../../components/states';
import { Pager, When } from '../../components/format';
import { DataTable } from '../../components/DataTable';
import { ConfirmDelete } from '../../components/ConfirmDelete';
import { CreateKey, RenewCertificate } from './Keys';
import { ClientIdentities, ConnectionProfile } from './ClientIdentities';

export default function OrganizationDetail() {
  const raw = useParams().id;
  const id = Number(raw);
  const { can } = useSession();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [acting, setActing] = useState<'edit' | 'delete' | 'key' | null>(null);
  const [deleteKeys, setDeleteKeys] = useState(false);
  const org = useQuery({ queryKey: ['organizations', id], enabled: Number.isInteger(id) && id > 0, queryFn: () => unwrap(api.GET('/api/v1/organizations/{id}', { params: { path: { id } } })) });
  if (!Number.isInteger(id) || id <= 0) return <ErrorState error={new Error(`"${raw}" is not an organization id.`)} />;
  return (
    <section>
      <p>
        <Link to="/organizations">Organizations and keys</Link>
      </p>
      <QueryView q={org} what="Loading the organization">
        {(o) => (
          <>
            <div className="title-row">
              <h1>Organization {o.name}</h1>
              {acting === null ? (
                <div className="actions">
                  <Can permission="ORGANIZATION_UPDATE">
                    <button type="button" onClick={() => setActing('edit')}>
                      Edit
                    </button>
                  </Can>
                  <Can permission="ORGANIZATION_DELETE">
                    <button type="button" className="danger" onClick={() => setActing('delete')}>
                      Delete
                    </button>
                  </Can>
                </div>
              ) : null}
            </div>
            {acting === 'edit' ? <EditOrganization o={o} onDone={() => setActing(null)} /> : null}
            {acting === 'delete' ? (
              <ConfirmDelete
                title={`Delete the organization ${o.name}?`}
                name={o.name}
                action={() => unwrap(api.DELETE('/api/v1/organizations/{id}', { params: { path: { id }, query: deleteKeys ? { deleteKeys } : {} } }))}
                onDeleted={async () => {
                  qc.removeQueries({ queryKey: ['organizations', id] });
                  await qc.invalidateQueries({ queryKey: ['organizations'] });
                  navigate('/organizations');
                }}
                onCancel={() => setActing(null)}
                inUse={{ title: 'The organization is still in use and was not deleted (409).', help: 'Delete its nodes and the networks it is a member of first, then delete the organization.' }}
              >
                <p>
                  The organization {o.mspId} leaves this service. Its keys stay (certificates they signed may still be in use) unless you delete them with it.
                </p>
                <Can permission="KEY_DELETE">
                  <label className="inline">
                    <input type="checkbox" checked={deleteKeys} onChange={(e) => setDeleteKeys(e.target.checked)} /> Also delete its keys (signing CA, TLS CA, admin and its deleted nodes' keys; each deletion audited)
                  </label>
                </Can>
              </ConfirmDelete>
            ) : null}
            <dl className="facts">
              <dt>MSP id</dt>
              <dd>
                <code>{o.mspId}</code>
              </dd>
              <dt>Description</dt>
              <dd>{o.description ?? <span className="muted">none</span>}</dd>
              <dt>Created</dt>
              <dd>
                <When at={o.createdAt} />
              </dd>
              <dt>Changed</dt>
              <dd>
                <When at={o.updatedAt} />
              </dd>
            </dl>
            <ConnectionProfile org={o} />
            {can('KEY_READ') ? <ClientIdentities org={o} /> : null}
            {can('KEY_READ') ? <OrganizationKeys org={o} creating={acting === 'key'} setCreating={(c) => setActing(c ? 'key' : null)} /> : null}
          </>
        )}
      </QueryView>
    </section>
  );
}

function EditOrganization({ o, onDone }: { o: { id: number; name: string; description: string | null }; onDone: () => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState(o.name);
  const [description, setDescription] = useState(o.description ?? '');
  const m = useMutation({
    mutationFn: () => unwrap(api.PUT('/api/v1/organizations/{id}', { params: { path: { id: o.id } }, body: { name, description: description.trim() || null } })),
    onSuccess: async (updated) => {
      qc.setQueryData(['organizations', o.id], updated);
      await qc.invalidateQueries({ queryKey: ['organizations'] });
      onDone();
    },
  });
  return (
    <form
      className="card form-grid"
      aria-labelledby="edit-org-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h2 id="edit-org-title">Edit the organization</h2>
      <p className="hint">The MSP id and key provider cannot change: the organization's certificates carry them.</p>
      <label>
        Name
        <input {...invalid(m.error, 'name')} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        <FieldError error={m.error} field="name" />
      </label>
      <label>
        Description (optional)
        <input {...invalid(m.error, 'description')} maxLength={2000} value={description} onChange={(e) => setDescription(e.target.value)} />
        <FieldError error={m.error} field="description" />
      </label>
      <FormActions m={m} label="Save organization" pendingLabel="Saving…" onCancel={onDone} />
    </form>
  );
}

type OrgKey = NonNullable<Awaited<ReturnType<typeof orgKeys>>>['items'][number];
const orgKeys = (id: number, offset: number) => unwrap(api.GET('/api/v1/organizations/{id}/keys', { params: { path: { id }, query: { limit: 50, offset } } }));

function OrganizationKeys({ org, creating, setCreating }: { org: { id: number; name: string }; creating: boolean; setCreating: (c: boolean) => void }) {
  const { can } = useSession();
  const [offset, setOffset] = useState(0);
  const [renewing, setRenewing] = useState<OrgKey | null>(null);
  const keys = useQuery({ queryKey: ['organization-keys', org.id, offset], queryFn: () => orgKeys(org.id, offset) });
  return (
    <>
      <div className="title-row">
        <h2>Keys of {org.name}</h2>
        {!creating ? (
          <Can permission="KEY_CREATE">
            <button type="button" onClick={() => setCreating(true)}>
              Create a key
            </button>
          </Can>
        ) : null}
      </div>
      {creating ? <CreateKey organization={org} onDone={() => setCreating(false)} /> : null}
      {renewing ? <RenewCertificate key={renewing.id} k={renewing} onDone={() => setRenewing(null)} /> : null}
      <QueryView q={keys} what="Loading the organization's keys">
        {(d) => (
          <>
            <DataTable
              empty="No keys in this organization."
              caption={`Keys of ${org.name}`}
              rows={d.items}
              rowKey={(k) => k.id}
              columns={[
                { header: 'Name', cell: (k) => k.name },
                { header: 'Purpose', cell: (k) => `${k.purpose}${k.isCA ? ' (CA)' : ''}` },
                { header: 'Algorithm', cell: (k) => `${k.algorithm}${k.curve ? ` ${k.curve}` : k.keySize ? ` ${k.keySize}` : ''}` },
                { header: 'Serial', cell: (k) => (k.certificate ? <code>{k.certificate.serialNumber}</code> : '—') },
                { header: 'Certificate expires', cell: (k) => (k.expiresAt ? <When at={k.expiresAt} /> : '—') },
                {
                  header: 'Actions',
                  cell: (k) =>
                    can('CERTIFICATE_RENEW') && k.certificate && !k.imported ? (
                      <button type="button" onClick={() => setRenewing(k)} aria-label={`Renew the certificate of ${k.name}`}>
                        Renew
                      </button>
                    ) : null,
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
