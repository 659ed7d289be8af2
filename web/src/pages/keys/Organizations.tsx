// Organizations (create with their CA keys; each links to its page, OrganizationDetail.tsx), keys with certificate expiry (create, import,
// rotation), and key providers with their status (Keys.tsx).
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { Can, useSession } from '../../session';
import { Empty, QueryView, FormActions, FieldError, invalid } from '../../components/states';
import { When } from '../../components/format';
import { KeysSection, ProvidersSection } from './Keys';
import { DataTable } from '../../components/DataTable';

export default function Organizations() {
  const { can } = useSession();
  const [creating, setCreating] = useState(false);
  const orgs = useQuery({ queryKey: ['organizations'], queryFn: () => unwrap(api.GET('/api/v1/organizations', { params: { query: { limit: 500 } } })) });
  return (
    <section>
      <div className="title-row">
        <h1>Organizations and keys</h1>
        {!creating ? (
          <Can permission="ORGANIZATION_CREATE">
            <button type="button" className="primary" onClick={() => setCreating(true)}>
              Create organization
            </button>
          </Can>
        ) : null}
      </div>
      {creating ? <CreateOrganization onDone={() => setCreating(false)} /> : null}
      <h2>Organizations</h2>
      <QueryView q={orgs} what="Loading organizations">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No organizations yet. An organization (MSP) holds the CA keys its peers and orderers are issued from.</Empty>
          ) : (
            <DataTable
              caption="Organizations"
              rows={d.items}
              rowKey={(o) => o.id}
              columns={[
                { header: 'Name', cell: (o) => <Link to={`/organizations/${o.id}`}>{o.name}</Link> },
                { header: 'MSP id', cell: (o) => <code>{o.mspId}</code> },
                { header: 'Description', cell: (o) => o.description ?? '' },
                { header: 'Created', cell: (o) => <When at={o.createdAt} /> },
                {
                  header: 'Revocation list',
                  cell: (o) => (
                    <a className="button" href={`/api/v1/organizations/${o.id}/crl`} download={`${o.mspId}-crl.pem`} aria-label={`Download the CRL of ${o.name}`}>
                      CRL
                    </a>
                  ),
                },
              ]}
            />
          )
        }
      </QueryView>
      {can('KEY_READ') ? <KeysSection /> : null}
      {can('KEY_PROVIDER_READ') ? <ProvidersSection /> : null}
    </section>
  );
}

function CreateOrganization({ onDone }: { onDone: () => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [mspId, setMspId] = useState('');
  const [description, setDescription] = useState('');
  const m = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/organizations', { body: { name, mspId, ...(description ? { description } : {}) } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['organizations'] });
      await qc.invalidateQueries({ queryKey: ['keys'] });
      onDone();
    },
  });
  return (
    <form
      className="card form-grid"
      aria-labelledby="new-org"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h2 id="new-org">New organization</h2>
      <label>
        Name
        <input {...invalid(m.error, 'name')} required value={name} onChange={(e) => setName(e.target.value)} />
        <FieldError error={m.error} field="name" />
      </label>
      <label>
        MSP id
        <input {...invalid(m.error, 'mspId')} required value={mspId} onChange={(e) => setMspId(e.target.value)} placeholder="Org1MSP" />
        <FieldError error={m.error} field="mspId" />
      </label>
      <label>
        Description (optional)
        <input {...invalid(m.error, 'description')} value={description} onChange={(e) => setDescription(e.target.value)} />
        <FieldError error={m.error} field="description" />
      </label>
      <FormActions m={m} label="Create organization" pendingLabel="Creating keys…" onCancel={onDone} />
    </form>
  );
}
