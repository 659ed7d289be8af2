// Keys (create, import a CA with its private key, rotation schedule, rotate now, delete with a
// confirmation and the 409 of a key in use explained, download the public key, the certificate and
// the issuing CA's certificate and a CA's revocation list; never a private key; sign data, issue a
// certificate, revoke one: KeySigning.tsx) and key providers (database, Vault: an
// existing server or one the service runs, AWS KMS: add, delete, and their status endpoints shown).
// Each key says what uses it (In use: the organization, node or evm network, or Unused); the list
// filters on that, and "Delete unused keys" deletes every unused key after a confirmation
// (POST /keys/delete, refused whole while one of them came into use).
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap, type Json } from '../../api/client';
import { Can, editionAtLeast, useSession } from '../../session';
import { ActionError, Empty, ErrorState, Loading, QueryView, FormActions, FieldError, invalid } from '../../components/states';
import { Pager, When } from '../../components/format';
import { DataTable } from '../../components/DataTable';
import { ConfirmDelete } from '../../components/ConfirmDelete';
import { IssueCertificate, Revoke, SignData, revocable } from './KeySigning';

type Key = Json<'/api/v1/keys', 'get'>['items'][number];
type Provider = Json<'/api/v1/key-providers', 'get'>[number];

function useProviders(enabled: boolean) {
  return useQuery({ queryKey: ['key-providers'], enabled, queryFn: () => unwrap(api.GET('/api/v1/key-providers')) });
}
function useOrganizations() {
  return useQuery({ queryKey: ['organizations'], queryFn: () => unwrap(api.GET('/api/v1/organizations', { params: { query: { limit: 500 } } })) });
}

export function KeysSection() {
  const { can } = useSession();
  const [offset, setOffset] = useState(0);
  const [form, setForm] = useState<'create' | 'import' | null>(null);
  const [rotating, setRotating] = useState<Key | null>(null);
  const [deleting, setDeleting] = useState<Key | null>(null);
  const [acting, setActing] = useState<{ k: Key; what: 'sign' | 'issue' | 'revoke' | 'renew' } | null>(null);
  const [use, setUse] = useState<'all' | 'in-use' | 'unused'>('all');
  const [deletingUnused, setDeletingUnused] = useState(false);
  const unusedFilter = use === 'all' ? {} : { unused: use === 'unused' };
  const keys = useQuery({ queryKey: ['keys', offset, use], queryFn: () => unwrap(api.GET('/api/v1/keys', { params: { query: { limit: 50, offset, ...unusedFilter } } })) });
  return (
    <>
      <div className="title-row">
        <h2>Keys</h2>
        {form === null ? (
          <div className="actions">
            <Can permission="KEY_CREATE">
              <button type="button" onClick={() => setForm('create')}>
                Create key
              </button>
            </Can>
            <Can permission="KEY_IMPORT">
              <button type="button" onClick={() => setForm('import')}>
                Import CA key
              </button>
            </Can>
            <Can permission="KEY_DELETE">
              <button type="button" className="danger" onClick={() => setDeletingUnused(true)}>
                Delete unused keys
              </button>
            </Can>
          </div>
        ) : null}
      </div>
      <label className="inline">
        Show{' '}
        <select
          value={use}
          onChange={(e) => {
            setUse(e.target.value as typeof use);
            setOffset(0);
          }}
        >
          <option value="all">All keys</option>
          <option value="in-use">In use</option>
          <option value="unused">Unused</option>
        </select>
      </label>
      {deletingUnused ? <DeleteUnusedKeys onDone={() => setDeletingUnused(false)} /> : null}
      {form === 'create' ? <CreateKey onDone={() => setForm(null)} /> : null}
      {form === 'import' ? <ImportKey onDone={() => setForm(null)} /> : null}
      {rotating ? <Rotation key={rotating.id} k={rotating} onDone={() => setRotating(null)} /> : null}
      {deleting ? <DeleteKey key={deleting.id} k={deleting} onDone={() => setDeleting(null)} /> : null}
      {acting?.what === 'sign' ? <SignData key={acting.k.id} k={acting.k} onDone={() => setActing(null)} /> : null}
      {acting?.what === 'issue' ? <IssueCertificate key={acting.k.id} k={acting.k} onDone={() => setActing(null)} /> : null}
      {acting?.what === 'revoke' ? <Revoke key={acting.k.id} k={acting.k} onDone={() => setActing(null)} /> : null}
      {acting?.what === 'renew' ? <RenewCertificate key={acting.k.id} k={acting.k} onDone={() => setActing(null)} /> : null}
      <QueryView q={keys} what="Loading keys">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No keys yet.</Empty>
          ) : (
            <>
              <DataTable
                caption="Keys"
                rows={d.items}
                rowKey={(k) => k.id}
                columns={[
                  { header: 'Name', cell: (k) => k.name },
                  { header: 'Purpose', cell: (k) => `${k.purpose}${k.imported ? ' (imported)' : ''}` },
                  { header: 'Algorithm', cell: (k) => `${k.algorithm}${k.curve ? ` ${k.curve}` : k.keySize ? ` ${k.keySize}` : ''}` },
                  { header: 'Provider', cell: (k) => k.provider.name },
                  { header: 'Use', cell: (k) => (k.in_use ? `In use: ${k.used_by.map((u) => `${u.type} ${u.name} (${u.as})`).join(', ')}` : 'Unused') },
                  { header: 'Certificate expires', cell: (k) => (k.expiresAt ? <When at={k.expiresAt} /> : '—') },
                  { header: 'Expiry', cell: (k) => <span className={`badge expiry-${k.expiryStatus}`}>{k.expiryStatus}</span> },
                  { header: 'Rotation', cell: (k) => (k.rotation.enabled ? `every ${k.rotation.intervalDays ?? '?'} days` : 'off') },
                  {
                    header: 'Actions',
                    cell: (k) => (
                      <div className="actions">
                        <a className="button" href={`data:application/x-pem-file;charset=utf-8,${encodeURIComponent(k.publicKey)}`} download={`${fileName(k.name)}-public-key.pem`} aria-label={`Download the public key of ${k.name}`}>
                          Public key
                        </a>
                        {k.certificate && can('KEY_CERTIFICATE_READ') ? (
                          <>
                            <a className="button" href={`/api/v1/keys/${k.id}/certificate`} download={`${fileName(k.name)}-certificate.pem`} aria-label={`Download the certificate of ${k.name}`}>
                              Certificate
                            </a>
                            <a className="button" href={`/api/v1/keys/${k.id}/ca-certificate`} download={`${fileName(k.name)}-ca-certificate.pem`} aria-label={`Download the CA certificate of ${k.name}`}>
                              CA certificate
                            </a>
                          </>
                        ) : null}
                        {k.isCA && k.certificate ? (
                          <a className="button" href={`/api/v1/keys/${k.id}/crl`} download={`${fileName(k.name)}-crl.pem`} aria-label={`Download the CRL of ${k.name}`}>
                            CRL
                          </a>
                        ) : null}
                        {can('KEY_SIGN') ? (
                          <>
                            <button type="button" onClick={() => setActing({ k, what: 'sign' })} aria-label={`Sign data with ${k.name}`}>
                              Sign data
                            </button>
                            <button type="button" onClick={() => setActing({ k, what: 'issue' })} aria-label={`Issue certificate for ${k.name}`}>
                              Issue certificate
                            </button>
                          </>
                        ) : null}
                        {can('KEY_ROTATE') && (revocable(k) || (k.isCA && k.certificate)) ? (
                          <button type="button" className="danger" onClick={() => setActing({ k, what: 'revoke' })} aria-label={`Revoke a certificate of ${k.name}`}>
                            Revoke
                          </button>
                        ) : null}
                        {can('CERTIFICATE_RENEW') && k.certificate && !k.imported ? (
                          <button type="button" onClick={() => setActing({ k, what: 'renew' })} aria-label={`Renew the certificate of ${k.name}`}>
                            Renew
                          </button>
                        ) : null}
                        {can('KEY_ROTATE') ? (
                          <button type="button" onClick={() => setRotating(k)} aria-label={`Rotation of ${k.name}`}>
                            Rotation
                          </button>
                        ) : null}
                        {can('KEY_DELETE') ? (
                          <button type="button" className="danger" onClick={() => setDeleting(k)} aria-label={`Delete key ${k.name}`}>
                            Delete
                          </button>
                        ) : null}
                      </div>
                    ),
                  },
                ]}
              />
              <Pager total={d.total} limit={50} offset={offset} onOffset={setOffset} />
            </>
          )
        }
      </QueryView>
    </>
  );
}

const fileName = (name: string) => name.replace(/[^A-Za-z0-9._-]+/g, '_');

/** Renew a key's certificate (same key pair, same CA, a new serial and validity); the answer's certificate is shown. */
export function RenewCertificate({ k, onDone }: { k: Key; onDone: () => void }) {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/keys/{keyId}/renew', { params: { path: { keyId: k.id } } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['keys'] });
      await qc.invalidateQueries({ queryKey: ['organization-keys'] });
    },
  });
  const before = k.certificate;
  const after = m.data?.certificate;
  return (
    <div className="card" role="group" aria-labelledby="renew-key-title">
      <h3 id="renew-key-title">Renew the certificate of {k.name}</h3>
      {after ? (
        <div role="status">
          <p>
            <strong>Renewed.</strong> Nodes that use this key take the new certificate when they restart.
          </p>
          <dl className="facts">
            <dt>Serial</dt>
            <dd>
              <code data-testid="renewed-serial">{after.serialNumber}</code> (was <code>{before?.serialNumber}</code>)
            </dd>
            <dt>Valid until</dt>
            <dd data-testid="renewed-expiry">
              <When at={after.notAfter} /> (was <When at={before?.notAfter ?? null} />)
            </dd>
          </dl>
          <button type="button" onClick={onDone}>
            Close
          </button>
        </div>
      ) : (
        <>
          <p>
            The same CA issues the key a new certificate with the same subject and a new validity (now: serial <code>{before?.serialNumber}</code>, valid until <When at={before?.notAfter ?? null} />). The key pair stays; nodes using it need a restart to present the new certificate.
          </p>
          <ActionError error={m.error} />
          <div className="actions">
            <button type="button" className="primary" disabled={m.isPending} onClick={() => m.mutate()}>
              {m.isPending ? 'Renewing…' : `Yes, renew ${k.name}`}
            </button>
            <button type="button" onClick={onDone}>
              Cancel
            </button>
          </div>
        </>
      )}
    </div>
  );
}

/** Every key nothing uses, deleted together after a confirmation that names them; refused whole (409) when one came into use meanwhile. */
function DeleteUnusedKeys({ onDone }: { onDone: () => void }) {
  const qc = useQueryClient();
  const unused = useQuery({ queryKey: ['keys', 'unused-all'], queryFn: () => unwrap(api.GET('/api/v1/keys', { params: { query: { limit: 500, unused: true } } })) });
  return (
    <QueryView q={unused} what="Loading unused keys">
      {(d) =>
        d.items.length === 0 ? (
          <div className="card" role="group" aria-label="Delete unused keys">
            <p>No key is unused: every key is used by an organization, a node or an EVM network.</p>
            <button type="button" onClick={onDone}>
              Close
            </button>
          </div>
        ) : (
          <ConfirmDelete
            title={`Delete ${d.items.length} unused key${d.items.length === 1 ? '' : 's'}?`}
            name={`${d.items.length} unused key${d.items.length === 1 ? '' : 's'}`}
            action={() => unwrap(api.POST('/api/v1/keys/delete', { body: { ids: d.items.map((k) => k.id) } }))}
            onDeleted={async () => {
              await qc.invalidateQueries({ queryKey: ['keys'] });
              await qc.invalidateQueries({ queryKey: ['key-providers'] });
              onDone();
            }}
            onCancel={onDone}
            inUse={{ title: 'A key came into use and nothing was deleted (409).', help: 'Close, and delete the unused keys again: the list is read anew.' }}
          >
            <p>No organization, node or EVM network uses these keys. They and their private keys in their providers are deleted for good, each deletion audited:</p>
            <ul aria-label="Unused keys to delete">
              {d.items.map((k) => (
                <li key={k.id}>
                  {k.name} ({k.purpose})
                </li>
              ))}
            </ul>
            {d.total > d.items.length ? <p>The first {d.items.length} of {d.total}; delete again for the rest.</p> : null}
          </ConfirmDelete>
        )
      }
    </QueryView>
  );
}

/** Delete a key after a confirmation; a 409 (the key is in use) says what uses it and what to do. */
function DeleteKey({ k, onDone }: { k: Key; onDone: () => void }) {
  const qc = useQueryClient();
  return (
    <ConfirmDelete
      title={`Delete the key ${k.name}?`}
      name={k.name}
      action={() => unwrap(api.DELETE('/api/v1/keys/{id}', { params: { path: { id: k.id } } }))}
      onDeleted={async () => {
        await qc.invalidateQueries({ queryKey: ['keys'] });
        await qc.invalidateQueries({ queryKey: ['key-providers'] });
        onDone();
      }}
      onCancel={onDone}
      inUse={{
        title: 'The key is in use and was not deleted (409).',
        help: "Delete or change what uses it first (an organization's keys go with the organization, a node's with the node; an EVM network's validator key with the network), then delete the key.",
      }}
    >
      <p>
        The key and its private key in the provider {k.provider.name} are deleted for good: what it signed can no longer be signed again with it
        {k.isCA ? ', and no further certificate can be issued by this CA' : ''}.
      </p>
    </ConfirmDelete>
  );
}

function ProviderAndOrg({ providerId, setProviderId, orgId, setOrgId, fixedOrganization, error }: { providerId: string; setProviderId: (v: string) => void; orgId: string; setOrgId: (v: string) => void; fixedOrganization?: boolean; error: unknown }) {
  const { can } = useSession();
  const providers = useProviders(can('KEY_PROVIDER_READ'));
  const orgs = useOrganizations();
  return (
    <>
      <label>
        Key provider
        <select value={providerId} onChange={(e) => setProviderId(e.target.value)} {...invalid(error, 'keyProviderId')}>
          <option value="">{fixedOrganization ? "The organization's provider" : 'The default provider'}</option>
          {(providers.data ?? []).map((p) => (
            <option key={p.id} value={p.id}>
              {p.name} ({p.type})
            </option>
          ))}
        </select>
        <FieldError error={error} field="keyProviderId" />
      </label>
      {fixedOrganization ? null : (
        <label>
          Organization (optional)
          <select value={orgId} onChange={(e) => setOrgId(e.target.value)} {...invalid(error, 'organizationId')}>
            <option value="">None</option>
            {(orgs.data?.items ?? []).map((o) => (
              <option key={o.id} value={o.id}>
                {o.name} ({o.mspId})
              </option>
            ))}
          </select>
          <FieldError error={error} field="organizationId" />
        </label>
      )}
    </>
  );
}

/** Create a key; for an organization's page, in that organization (POST /organizations/{id}/keys, its provider unless one is picked). */
export function CreateKey({ onDone, organization }: { onDone: () => void; organization?: { id: number; name: string } }) {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [algorithm, setAlgorithm] = useState('ECDSA');
  const [curve, setCurve] = useState('P-256');
  const [keySize, setKeySize] = useState('2048');
  const [providerId, setProviderId] = useState('');
  const [orgId, setOrgId] = useState('');
  const [isCA, setIsCA] = useState(false);
  const [validityDays, setValidityDays] = useState('3650');
  const m = useMutation({
    mutationFn: () => {
      const body = {
        name,
        algorithm,
        ...(algorithm === 'ECDSA' ? { curve } : algorithm === 'RSA' ? { keySize: Number(keySize) } : {}),
        ...(providerId ? { keyProviderId: Number(providerId) } : {}),
        ...(isCA ? { isCA: true, validityDays: Number(validityDays) } : {}),
      };
      if (organization) return unwrap(api.POST('/api/v1/organizations/{id}/keys', { params: { path: { id: organization.id } }, body }));
      return unwrap(api.POST('/api/v1/keys', { body: { ...body, ...(orgId ? { organizationId: Number(orgId) } : {}) } }));
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['keys'] });
      await qc.invalidateQueries({ queryKey: ['organization-keys'] });
      await qc.invalidateQueries({ queryKey: ['key-providers'] });
      onDone();
    },
  });
  return (
    <form
      className="card form-grid"
      aria-labelledby="create-key-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h3 id="create-key-title">{organization ? `Create a key for ${organization.name}` : 'Create a key'}</h3>
      <label>
        Key name
        <input {...invalid(m.error, 'name')} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        <FieldError error={m.error} field="name" />
      </label>
      <label>
        Algorithm
        <select {...invalid(m.error, 'algorithm')} value={algorithm} onChange={(e) => setAlgorithm(e.target.value)}>
          <option value="ECDSA">ECDSA</option>
          <option value="RSA">RSA</option>
          <option value="Ed25519">Ed25519</option>
        </select>
        <FieldError error={m.error} field="algorithm" />
      </label>
      {algorithm === 'ECDSA' ? (
        <label>
          Curve
          <select {...invalid(m.error, 'curve')} value={curve} onChange={(e) => setCurve(e.target.value)}>
            {['P-256', 'P-384', 'P-521', 'secp256k1'].map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
          <FieldError error={m.error} field="curve" />
        </label>
      ) : null}
      {algorithm === 'RSA' ? (
        <label>
          Key size
          <select {...invalid(m.error, 'keySize')} value={keySize} onChange={(e) => setKeySize(e.target.value)}>
            <option value="2048">2048</option>
            <option value="4096">4096</option>
          </select>
          <FieldError error={m.error} field="keySize" />
        </label>
      ) : null}
      <ProviderAndOrg providerId={providerId} setProviderId={setProviderId} orgId={orgId} setOrgId={setOrgId} fixedOrganization={!!organization} error={m.error} />
      <label className="inline">
        <input type="checkbox" checked={isCA} onChange={(e) => setIsCA(e.target.checked)} />
        A self-signed CA
      </label>
      {isCA ? (
        <label>
          CA validity (days)
          <input {...invalid(m.error, 'validityDays')} type="number" min={1} max={36500} value={validityDays} onChange={(e) => setValidityDays(e.target.value)} />
          <FieldError error={m.error} field="validityDays" />
        </label>
      ) : null}
      <p className="hint">Which algorithms a provider holds: database all; Vault RSA and ECDSA P-256/P-384/P-521; AWS KMS RSA and ECDSA P-256/P-384/secp256k1. The service says so when a provider refuses.</p>
      <FormActions m={m} label="Create key" pendingLabel="Creating…" onCancel={onDone} />
    </form>
  );
}

function ImportKey({ onDone }: { onDone: () => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [certificate, setCertificate] = useState('');
  const [privateKey, setPrivateKey] = useState('');
  const [providerId, setProviderId] = useState('');
  const [orgId, setOrgId] = useState('');
  const m = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/keys/import', {
          body: { name, certificate, privateKey, ...(providerId ? { keyProviderId: Number(providerId) } : {}), ...(orgId ? { organizationId: Number(orgId) } : {}) },
        }),
      ),
    onSuccess: async () => {
      setPrivateKey('');
      await qc.invalidateQueries({ queryKey: ['keys'] });
      await qc.invalidateQueries({ queryKey: ['key-providers'] });
      onDone();
    },
  });
  return (
    <form
      className="card form-grid"
      aria-labelledby="import-key-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h3 id="import-key-title">Import a CA certificate and its private key</h3>
      <label>
        Key name
        <input {...invalid(m.error, 'name')} required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        <FieldError error={m.error} field="name" />
      </label>
      <label>
        CA certificate (PEM)
        <textarea {...invalid(m.error, 'certificate')} className="code" required rows={6} spellCheck={false} value={certificate} onChange={(e) => setCertificate(e.target.value)} />
        <FieldError error={m.error} field="certificate" />
      </label>
      <label>
        Private key (PEM, unencrypted; sent once to the provider, never shown again)
        <textarea {...invalid(m.error, 'privateKey')} className="code" required rows={6} spellCheck={false} autoComplete="off" value={privateKey} onChange={(e) => setPrivateKey(e.target.value)} />
        <FieldError error={m.error} field="privateKey" />
      </label>
      <ProviderAndOrg providerId={providerId} setProviderId={setProviderId} orgId={orgId} setOrgId={setOrgId} error={m.error} />
      <FormActions m={m} label="Import key" pendingLabel="Importing…" onCancel={onDone} />
    </form>
  );
}

function Rotation({ k, onDone }: { k: Key; onDone: () => void }) {
  const qc = useQueryClient();
  const [enabled, setEnabled] = useState(k.rotation.enabled);
  const [days, setDays] = useState(String(k.rotation.intervalDays ?? 365));
  const [sure, setSure] = useState(false);
  const save = useMutation({
    mutationFn: () => unwrap(api.PUT('/api/v1/keys/{keyId}/rotation', { params: { path: { keyId: k.id } }, body: { enabled, intervalDays: enabled ? Number(days) : null } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['keys'] });
      onDone();
    },
  });
  const rotate = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/keys/{keyId}/rotate', { params: { path: { keyId: k.id } } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['keys'] });
      onDone();
    },
  });
  return (
    <form
      className="card form-grid"
      aria-labelledby="rotation-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <h3 id="rotation-title">Rotation of {k.name}</h3>
      <p className="hint">
        Last rotated: <When at={k.rotation.lastRotatedAt} />. When on, the certificate is issued again every interval.
      </p>
      <label className="inline">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        Rotate on a schedule
      </label>
      {enabled ? (
        <label>
          Every (days)
          <input {...invalid(save.error, 'intervalDays')} type="number" required min={1} max={3650} value={days} onChange={(e) => setDays(e.target.value)} />
          <FieldError error={save.error} field="intervalDays" />
        </label>
      ) : null}
      <ActionError error={save.error ?? rotate.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save rotation
        </button>
        {!sure ? (
          <button type="button" onClick={() => setSure(true)}>
            Rotate now…
          </button>
        ) : (
          <>
            <span>A new key pair: nodes using it must be restarted{k.isCA ? ", and certificates it issued no longer chain to it" : ''}.</span>
            <button type="button" className="danger" disabled={rotate.isPending} onClick={() => rotate.mutate()}>
              Yes, rotate {k.name}
            </button>
          </>
        )}
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function ProvidersSection() {
  const { can, me } = useSession();
  const qc = useQueryClient();
  const [adding, setAdding] = useState(false);
  const [confirming, setConfirming] = useState<number | null>(null);
  const providers = useProviders(true);
  const pro = editionAtLeast(me.edition, 'pro');
  const remove = useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/v1/key-providers/{id}', { params: { path: { id } } })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['key-providers'] }),
  });
  return (
    <>
      <div className="title-row">
        <h2>Key providers</h2>
        {!adding && can('KEY_PROVIDER_CREATE') ? (
          <button type="button" onClick={() => setAdding(true)} disabled={!pro} aria-describedby={!pro ? 'providers-edition' : undefined}>
            Add key provider
          </button>
        ) : null}
      </div>
      {!pro ? (
        <p className="hint" id="providers-edition">
          Vault and AWS KMS key providers need the pro edition; this server runs the {me.edition} edition, whose keys live in the database provider.
        </p>
      ) : null}
      {adding ? <AddProvider onDone={() => setAdding(false)} /> : null}
      <ActionError error={remove.error} />
      <QueryView q={providers} what="Loading key providers">
        {(d) => (
          <DataTable
            caption="Key providers"
            rows={d}
            rowKey={(p) => p.id}
            columns={[
              { header: 'Name', cell: (p) => p.name },
              { header: 'Type', cell: (p) => p.type },
              { header: 'Default', cell: (p) => (p.isDefault ? 'yes' : '') },
              { header: 'Keys', cell: (p) => p.keyCount },
              { header: 'Where', cell: (p) => where(p) },
              { header: 'Status', cell: (p) => <ProviderStatus p={p} pro={pro} /> },
              {
                header: 'Actions',
                cell: (p) =>
                  can('KEY_PROVIDER_DELETE') && !p.builtIn ? (
                    confirming === p.id ? (
                      <div className="actions">
                        <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate(p.id)} aria-label={`Yes, delete ${p.name}`}>
                          Yes, delete
                        </button>
                        <button type="button" onClick={() => setConfirming(null)}>
                          Keep
                        </button>
                      </div>
                    ) : (
                      <button type="button" className="danger" onClick={() => setConfirming(p.id)} aria-label={`Delete ${p.name}`} title={p.keyCount ? 'A provider that holds keys cannot be deleted' : undefined}>
                        Delete
                      </button>
                    )
                  ) : null,
              },
            ]}
          />
        )}
      </QueryView>
    </>
  );
}

function where(p: Provider): string {
  const c = p.config as Record<string, unknown>;
  if (p.type === 'VAULT') return c.operation === 'CREATE' ? `${String(c.address ?? '')} (managed by this service${c.containerName ? `: container ${String(c.containerName)}` : ''})` : String(c.address ?? '');
  if (p.type === 'AWS_KMS') return `${String(c.region ?? c.awsRegion ?? '')}${c.endpointUrl ? ` (${String(c.endpointUrl)})` : ''}`;
  return 'this server\'s database (encrypted)';
}

/** GET /key-providers/{id}/vault/status or /awskms/status, asked when the row is shown. */
function ProviderStatus({ p, pro }: { p: Provider; pro: boolean }) {
  const kind = p.type === 'VAULT' ? 'vault' : p.type === 'AWS_KMS' ? 'awskms' : null;
  const q = useQuery({
    queryKey: ['key-providers', p.id, 'status'],
    enabled: kind !== null && pro,
    retry: false,
    refetchInterval: 30_000,
    queryFn: async () =>
      kind === 'vault'
        ? ({ kind, ...(await unwrap(api.GET('/api/v1/key-providers/{providerId}/vault/status', { params: { path: { providerId: p.id } } }))) } as const)
        : ({ kind: 'awskms', ...(await unwrap(api.GET('/api/v1/key-providers/{providerId}/awskms/status', { params: { path: { providerId: p.id } } }))) } as const),
  });
  if (kind === null) return <span className="badge status-running">Available</span>;
  if (!pro) return <span className="muted">needs the pro edition</span>;
  if (q.isPending) return <Loading what="Asking" />;
  if (q.error) return <ErrorState error={q.error} />;
  const s = q.data;
  if (s.kind === 'vault') {
    const ok = s.vault_reachable && s.vault_initialized && !s.sealed;
    return (
      <span data-testid={`provider-status-${p.id}`}>
        <span className={`badge ${ok ? 'status-running' : 'status-error'}`}>{ok ? 'Ready' : !s.vault_reachable ? 'Unreachable' : s.sealed ? 'Sealed' : 'Not initialized'}</span>{' '}
        <span className="muted">
          reachable {s.vault_reachable ? 'yes' : 'no'}, initialized {s.vault_initialized ? 'yes' : 'no'}, sealed {s.sealed ? 'yes' : 'no'}, managed container {s.container_running ? 'running' : 'none'}
          {s.detail ? `; ${s.detail}` : ''}
        </span>
      </span>
    );
  }
  const ok = s.kms_reachable && s.has_credentials;
  return (
    <span data-testid={`provider-status-${p.id}`}>
      <span className={`badge ${ok ? 'status-running' : 'status-error'}`}>{ok ? 'Ready' : !s.kms_reachable ? 'Unreachable' : 'No credentials'}</span>{' '}
      <span className="muted">
        reachable {s.kms_reachable ? 'yes' : 'no'}, credentials {s.has_credentials ? 'yes' : 'no'}, {s.kms_status}
        {s.detail ? `; ${s.detail}` : ''}
      </span>
    </span>
  );
}

function AddProvider({ onDone }: { onDone: () => void }) {
  const qc = useQueryClient();
  const [type, setType] = useState<'VAULT' | 'VAULT_MANAGED' | 'AWS_KMS'>('VAULT');
  const [name, setName] = useState('');
  const [isDefault, setIsDefault] = useState(false);
  const [f, setF] = useState<Record<string, string>>({ mount: 'secret', transitPath: 'transit', kmsKeyAliasPrefix: 'lnm/', port: '8200', version: '1.17' });
  const config = type === 'AWS_KMS' ? 'awsKmsConfig' : 'vaultConfig';
  const field = (k: string, label: string, opts: { secret?: boolean; required?: boolean; placeholder?: string } = {}) => (
    <label key={k}>
      {label}
      <input
        type={opts.secret ? 'password' : 'text'}
        autoComplete={opts.secret ? 'new-password' : 'off'}
        required={opts.required}
        placeholder={opts.placeholder}
        value={f[k] ?? ''}
        onChange={(e) => setF({ ...f, [k]: e.target.value })}
        {...invalid(m.error, `${config}.${k}`)}
      />
      <FieldError error={m.error} field={`${config}.${k}`} />
    </label>
  );
  const m = useMutation({
    mutationFn: () => {
      const pick = (...ks: string[]) => Object.fromEntries(ks.filter((k) => f[k]).map((k) => [k, f[k]]));
      const body =
        type === 'VAULT'
          ? { name, type, isDefault, vaultConfig: { operation: 'IMPORT', ...pick('address', 'token', 'mount', 'transitPath', 'caCert') } }
          : type === 'VAULT_MANAGED'
            ? { name, type: 'VAULT' as const, isDefault, vaultConfig: { operation: 'CREATE', mode: 'docker', port: Number(f.port), ...pick('version', 'network', 'transitPath') } }
            : { name, type, isDefault, awsKmsConfig: { operation: 'IMPORT', ...pick('awsRegion', 'kmsKeyAliasPrefix', 'accessKeyId', 'secretAccessKey', 'endpointUrl') } };
      return unwrap(api.POST('/api/v1/key-providers', { body }));
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['key-providers'] });
      onDone();
    },
  });
  return (
    <form
      className="card form-grid"
      aria-labelledby="add-provider-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h3 id="add-provider-title">Add a key provider</h3>
      <label>
        Provider type
        <select {...invalid(m.error, 'type')} value={type} onChange={(e) => setType(e.target.value as 'VAULT' | 'VAULT_MANAGED' | 'AWS_KMS')}>
          <option value="VAULT">HashiCorp Vault (an existing server)</option>
          <option value="VAULT_MANAGED">HashiCorp Vault run by this service (managed container)</option>
          <option value="AWS_KMS">AWS KMS</option>
        </select>
        <FieldError error={m.error} field="type" />
      </label>
      <label>
        Provider name
        <input {...invalid(m.error, 'name')} required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        <FieldError error={m.error} field="name" />
      </label>
      {type === 'VAULT'
        ? [
            field('address', 'Vault address', { required: true, placeholder: 'https://vault.example.com:8200' }),
            field('token', 'Vault token', { secret: true, required: true }),
            field('mount', 'KV v2 mount'),
            field('transitPath', 'Transit path'),
          ]
        : type === 'VAULT_MANAGED'
          ? [
              <label key="port">
                Port on 127.0.0.1
                <input {...invalid(m.error, 'vaultConfig.port')} type="number" required min={1024} max={65535} value={f.port ?? ''} onChange={(e) => setF({ ...f, port: e.target.value })} />
                <FieldError error={m.error} field="vaultConfig.port" />
              </label>,
              field('version', 'Vault version (image tag)', { required: true, placeholder: '1.17' }),
              field('network', 'Docker network (optional; empty: bridge)'),
              field('transitPath', 'Transit path'),
            ]
          : [
            field('awsRegion', 'AWS region', { required: true, placeholder: 'eu-west-1' }),
            field('kmsKeyAliasPrefix', 'Key alias prefix', { required: true }),
            field('accessKeyId', 'Access key id'),
            field('secretAccessKey', 'Secret access key', { secret: true }),
            field('endpointUrl', 'Endpoint URL (optional; empty: AWS)'),
          ]}
      <label className="inline">
        <input type="checkbox" checked={isDefault} onChange={(e) => setIsDefault(e.target.checked)} />
        Make it the default provider of new keys and organizations
      </label>
      {type === 'VAULT_MANAGED' ? (
        <p className="hint">The service starts a Vault container through its Docker Engine, initializes and unseals it, mounts transit and KV v2, and keeps the root token and unseal keys encrypted (never shown). A taken port is refused (409); without a Docker Engine or the image the answer says what is missing (503). Deleting the provider removes the container and its data.</p>
      ) : (
        <p className="hint">The service reaches the provider before saving it; the token or secret key is stored encrypted and never shown again.</p>
      )}
      <ActionError error={m.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={m.isPending}>
          {m.isPending ? (type === 'VAULT_MANAGED' ? 'Starting the Vault…' : 'Checking…') : 'Add provider'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
