// Node hosts (docs/hosts.md, docs/kubernetes.md): remote Docker Engines reached over TCP with
// mutual TLS, or Kubernetes clusters (API server, CA, a bearer token: write-only like a client
// key), where nodes can be placed. The list shows each host's last status (polled: the service re-checks every
// LNM_HOST_CHECK_SECONDS); register a host (its CA, client certificate and client key pasted or
// read from files; the key is write-only: sent once, cleared from the form, never shown back) and
// rename it or change its labels and capacity (PUT /hosts/{id}), remove one (a 409 while nodes are
// placed on it is explained). The address and certificates of a host are fixed (the API has no
// route to change them): register a new host instead.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap, type Json } from '../../api/client';
import { useSession } from '../../session';
import { Fresh, QueryView, FormActions, FieldError, invalid } from '../../components/states';
import { Pager, When } from '../../components/format';
import { DataTable } from '../../components/DataTable';
import { ConfirmDelete } from '../../components/ConfirmDelete';
import { labelsText, parseLabels } from '../../components/labels';
import { HOSTS_POLL_MS } from '../../api/queries';
import { ListTitle } from '../../components/ListTitle';

type Host = Json<'/api/v1/hosts', 'get'>['items'][number];

const PAGE = 50;

export default function Hosts() {
  const { can } = useSession();
  const [offset, setOffset] = useState(0);
  const [deleting, setDeleting] = useState<Host | null>(null);
  const [editing, setEditing] = useState<Host | null>(null);
  const hosts = useQuery({
    queryKey: ['hosts', offset],
    refetchInterval: HOSTS_POLL_MS,
    placeholderData: (previous) => previous,
    queryFn: () => unwrap(api.GET('/api/v1/hosts', { params: { query: { limit: PAGE, offset } } })),
  });
  return (
    <section>
      <ListTitle
        title="Node hosts"
        permission="HOST_MANAGE"
        open="Register host"
        hint={
          <p className="hint">A node host is a Docker Engine on another machine, reached over TCP with mutual TLS, or a Kubernetes cluster, reached at its API server with a bearer token, where nodes can be placed (the node form's "Where it runs"). Without one, nodes run on this service's machine.</p>
        }
        form={(close) => <CreateHost onDone={close} />}
      />
      {editing ? (
        <Fresh key={editing.id} queryKey={['hosts', editing.id]} what="Loading the host" load={() => unwrap(api.GET('/api/v1/hosts/{id}', { params: { path: { id: editing.id } } }))}>
          {(h) => <EditHost h={h} onDone={() => setEditing(null)} />}
        </Fresh>
      ) : null}
      {deleting ? <DeleteHost key={deleting.id} h={deleting} onDone={() => setDeleting(null)} /> : null}
      <QueryView q={hosts} what="Loading hosts">
        {(d) => (
          <>
            <DataTable
              caption="Node hosts"
              rows={d.items}
              rowKey={(h) => h.id}
              rowAttrs={(h) => ({ 'data-host': h.name })}
              empty="No node hosts registered. Every node runs on this service's machine."
              columns={[
                { header: 'Name', cell: (h) => h.name },
                {
                  header: 'Address',
                  cell: (h) => (
                    <>
                      <code>{h.url}</code>
                      <br />
                      <small>
                        {h.kind === 'kubernetes' && h.kubernetes ? `Kubernetes cluster, namespace ${h.kubernetes.namespace}, storage class ${h.kubernetes.storageClass}; ` : ''}nodes reached at {h.externalIp}
                      </small>
                    </>
                  ),
                },
                { header: 'Labels', cell: (h) => (Object.keys(h.labels).length ? <code>{labelsText(h.labels)}</code> : <span className="muted">none</span>) },
                { header: 'Capacity', cell: (h) => (h.capacity.maxNodes === null ? 'no limit' : `${h.capacity.maxNodes} nodes`) },
                {
                  header: 'Status',
                  cell: (h) => (
                    <>
                      <span className={`badge ${h.status.reachable ? 'status-running' : 'status-error'}`}>{h.status.reachable ? 'Reachable' : 'Unreachable'}</span>
                      {h.status.lastError ? <div className="error-text">{h.status.lastError}</div> : null}
                      {h.status.kubernetes ? <ClusterFindings k={h.status.kubernetes} /> : null}
                      <div>
                        <small>
                          since <When at={h.status.checkedAt} />
                        </small>
                      </div>
                    </>
                  ),
                },
                { header: 'Engine version', cell: (h) => h.status.engineVersion ?? '—' },
                { header: 'Running nodes', cell: (h) => h.status.runningNodes ?? '—' },
                {
                  header: 'Actions',
                  cell: (h) =>
                    can('HOST_MANAGE') ? (
                      <div className="actions">
                        <button type="button" onClick={() => setEditing(h)} aria-label={`Change host ${h.name}`}>
                          Change
                        </button>
                        <button type="button" className="danger" onClick={() => setDeleting(h)} aria-label={`Remove host ${h.name}`}>
                          Remove
                        </button>
                      </div>
                    ) : null,
                },
              ]}
            />
            {d.total > 0 ? <Pager total={d.total} limit={PAGE} offset={offset} onOffset={setOffset} /> : null}
          </>
        )}
      </QueryView>
    </section>
  );
}

/** Rename a host, or change its labels or capacity (PUT /hosts/{id}); its address and certificates stay. */
function EditHost({ h, onDone }: { h: Host; onDone: () => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState(h.name);
  const [labels, setLabels] = useState(labelsText(h.labels));
  const [maxNodes, setMaxNodes] = useState(h.capacity.maxNodes === null ? '' : String(h.capacity.maxNodes));
  const parsed = parseLabels(labels);
  const m = useMutation({
    mutationFn: () => unwrap(api.PUT('/api/v1/hosts/{id}', { params: { path: { id: h.id } }, body: { name, labels: parsed.labels, capacity: { maxNodes: maxNodes ? Number(maxNodes) : null } } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['hosts'] });
      onDone();
    },
  });
  return (
    <form
      className="card form-grid"
      aria-labelledby="edit-host-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        if (!parsed.error) m.mutate();
      }}
    >
      <h2 id="edit-host-title">Change the host {h.name}</h2>
      <p className="hint">
        Its engine URL and certificates cannot change (<code>{h.url}</code>): to move them, register a new host.
      </p>
      <label>
        Host name
        <input {...invalid(m.error, 'name')} required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        <FieldError error={m.error} field="name" />
      </label>
      <label>
        Labels
        <input placeholder="zone=b, rack=7" value={labels} onChange={(e) => setLabels(e.target.value)} aria-invalid={parsed.error ? true : undefined} aria-describedby="edit-host-labels-help" {...invalid(m.error, 'labels')} />
        <FieldError error={m.error} field="labels" />
        <small id="edit-host-labels-help">{parsed.error ?? 'key=value pairs separated by commas; empty: no labels.'}</small>
      </label>
      <label>
        Most nodes on this host (empty: no limit)
        <input {...invalid(m.error, 'capacity.maxNodes')} type="number" min={1} max={100000} value={maxNodes} onChange={(e) => setMaxNodes(e.target.value)} />
        <FieldError error={m.error} field="capacity.maxNodes" />
      </label>
      <FormActions m={m} label="Save host" pendingLabel="Saving…" onCancel={onDone} />
    </form>
  );
}

/** Remove a host from the registry after a confirmation; a 409 (nodes placed on it) says what to do. */
function DeleteHost({ h, onDone }: { h: Host; onDone: () => void }) {
  const qc = useQueryClient();
  return (
    <ConfirmDelete
      headingLevel={2}
      title={`Remove the host ${h.name}?`}
      name={h.name}
      verb="remove"
      pending="Removing…"
      action={() => unwrap(api.DELETE('/api/v1/hosts/{id}', { params: { path: { id: h.id } } }))}
      onDeleted={async () => {
        await qc.invalidateQueries({ queryKey: ['hosts'] });
        onDone();
      }}
      onCancel={onDone}
      inUse={{ title: 'Nodes are placed on this host; it was not removed (409).', help: 'Delete the nodes on it first (a node cannot move between hosts), then remove the host.' }}
    >
      <p>The host leaves this service's registry; its Docker Engine and what else runs there are left alone. New nodes can no longer be placed on it.</p>
    </ConfirmDelete>
  );
}

type Pem = 'caCertificate' | 'clientCertificate' | 'clientKey';

/** A PEM pasted into a text area, or read from a file picked beside it. */
function PemField({ label, value, onChange, secret, error, field }: { label: string; value: string; onChange: (v: string) => void; secret?: boolean; error: unknown; field: string }) {
  const [readError, setReadError] = useState<string | null>(null);
  return (
    <div className="pem-field">
      <label>
        {label}
        <textarea className="code" required rows={4} spellCheck={false} autoComplete="off" value={value} onChange={(e) => onChange(e.target.value)} {...invalid(error, field)} />
        <FieldError error={error} field={field} />
      </label>
      <label className="inline">
        <small>or read it from a file</small>
        <input
          type="file"
          accept=".pem,.crt,.cer,.key,text/plain"
          aria-label={`${label}: read from a file`}
          onChange={async (e) => {
            const file = e.target.files?.[0];
            e.target.value = '';
            if (!file) return;
            if (file.size > 20_000) return setReadError(`${file.name} is larger than 20 KB: not a PEM.`);
            setReadError(null);
            onChange(await file.text());
          }}
        />
      </label>
      {secret ? <small>Sent once, sealed by the service and never shown again; the form forgets it once the host is registered.</small> : null}
      {readError ? (
        <p className="action-error" role="alert">
          {readError}
        </p>
      ) : null}
    </div>
  );
}

interface ClusterFields {
  caCertificate: string;
  token: string;
  namespace: string;
  storageClass: string;
  volumeSize: string;
}
const NO_CLUSTER: ClusterFields = { caCertificate: '', token: '', namespace: '', storageClass: '', volumeSize: '' };

function CreateHost({ onDone }: { onDone: () => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [externalIp, setExternalIp] = useState('');
  const [labels, setLabels] = useState('');
  const [maxNodes, setMaxNodes] = useState('');
  const [tls, setTls] = useState<Record<Pem, string>>({ caCertificate: '', clientCertificate: '', clientKey: '' });
  const [kind, setKind] = useState<'docker' | 'kubernetes'>('docker');
  const [cluster, setCluster] = useState<ClusterFields>(NO_CLUSTER);
  const parsed = parseLabels(labels);
  const m = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/hosts', {
          body: {
            name,
            url: url.trim(),
            ...(kind === 'docker'
              ? { tls }
              : {
                  kind,
                  kubernetes: {
                    caCertificate: cluster.caCertificate,
                    token: cluster.token.trim(),
                    namespace: cluster.namespace.trim(),
                    storageClass: cluster.storageClass.trim(),
                    ...(cluster.volumeSize.trim() ? { volumeSize: cluster.volumeSize.trim() } : {}),
                  },
                }),
            ...(externalIp.trim() ? { externalIp: externalIp.trim() } : {}),
            ...(Object.keys(parsed.labels).length ? { labels: parsed.labels } : {}),
            ...(maxNodes ? { capacity: { maxNodes: Number(maxNodes) } } : {}),
          },
        }),
      ),
    onSuccess: async () => {
      setTls({ caCertificate: '', clientCertificate: '', clientKey: '' });
      setCluster(NO_CLUSTER);
      await qc.invalidateQueries({ queryKey: ['hosts'] });
      onDone();
    },
  });
  const pem = (k: Pem) => (v: string) => setTls({ ...tls, [k]: v });
  const set = (k: keyof ClusterFields) => (v: string) => setCluster({ ...cluster, [k]: v });
  return (
    <form
      className="card form-grid"
      aria-labelledby="new-host"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        if (!parsed.error) m.mutate();
      }}
    >
      <h2 id="new-host">Register a node host</h2>
      <label>
        Host name
        <input {...invalid(m.error, 'name')} required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        <FieldError error={m.error} field="name" />
      </label>
      <label>
        Kind
        <select value={kind} onChange={(e) => setKind(e.target.value as 'docker' | 'kubernetes')}>
          <option value="docker">Docker Engine</option>
          <option value="kubernetes">Kubernetes cluster</option>
        </select>
      </label>
      {kind === 'docker' ? (
        <label>
          Docker Engine URL
          <input {...invalid(m.error, 'url')} required maxLength={300} className="code" placeholder="tcp://10.0.2.15:2376" value={url} onChange={(e) => setUrl(e.target.value)} />
          <FieldError error={m.error} field="url" />
          <small>The engine's TLS listener (dockerd --tlsverify), usually port 2376.</small>
        </label>
      ) : (
        <label>
          API server URL
          <input {...invalid(m.error, 'url')} required maxLength={300} className="code" placeholder="https://10.0.2.15:6443" value={url} onChange={(e) => setUrl(e.target.value)} />
          <FieldError error={m.error} field="url" />
          <small>The cluster's API server; its nodes are StatefulSets there, their ports NodePorts.</small>
        </label>
      )}
      <label>
        External address (optional)
        <input {...invalid(m.error, 'externalIp')} maxLength={253} value={externalIp} onChange={(e) => setExternalIp(e.target.value)} />
        <FieldError error={m.error} field="externalIp" />
        <small>Where this service and other nodes reach the host's nodes; empty: the URL's host.</small>
      </label>
      <label>
        Labels (optional)
        <input placeholder="zone=b, rack=7" value={labels} onChange={(e) => setLabels(e.target.value)} aria-invalid={parsed.error ? true : undefined} aria-describedby="host-labels-help" {...invalid(m.error, 'labels')} />
        <FieldError error={m.error} field="labels" />
        <small id="host-labels-help">{parsed.error ?? 'key=value pairs separated by commas; nodes can be placed by labels.'}</small>
      </label>
      <label>
        Most nodes on this host (optional)
        <input {...invalid(m.error, 'capacity.maxNodes')} type="number" min={1} max={100000} value={maxNodes} onChange={(e) => setMaxNodes(e.target.value)} />
        <FieldError error={m.error} field="capacity.maxNodes" />
      </label>
      {kind === 'docker' ? (
        <>
          <PemField label="CA certificate of the engine (PEM)" value={tls.caCertificate} onChange={pem('caCertificate')} error={m.error} field="tls.caCertificate" />
          <PemField label="Client certificate (PEM)" value={tls.clientCertificate} onChange={pem('clientCertificate')} error={m.error} field="tls.clientCertificate" />
          <PemField label="Client key (PEM)" value={tls.clientKey} onChange={pem('clientKey')} error={m.error} field="tls.clientKey" secret />
          <p className="hint">The service asks the engine for its version over mutual TLS before anything is saved: an engine it cannot reach or whose TLS handshake fails is refused with the reason.</p>
        </>
      ) : (
        <>
          <PemField label="CA certificate of the API server (PEM)" value={cluster.caCertificate} onChange={set('caCertificate')} error={m.error} field="kubernetes.caCertificate" />
          <label>
            Bearer token
            <input {...invalid(m.error, 'kubernetes.token')} type="password" required maxLength={20000} autoComplete="off" className="code" value={cluster.token} onChange={(e) => set('token')(e.target.value)} />
            <FieldError error={m.error} field="kubernetes.token" />
            <small>A service account's token bound to the engine's Role (docs/kubernetes.md). Sent once, sealed by the service and never shown again.</small>
          </label>
          <label>
            Namespace
            <input {...invalid(m.error, 'kubernetes.namespace')} required maxLength={63} value={cluster.namespace} onChange={(e) => set('namespace')(e.target.value)} />
            <FieldError error={m.error} field="kubernetes.namespace" />
          </label>
          <label>
            Storage class
            <input {...invalid(m.error, 'kubernetes.storageClass')} required maxLength={253} value={cluster.storageClass} onChange={(e) => set('storageClass')(e.target.value)} />
            <FieldError error={m.error} field="kubernetes.storageClass" />
            <small>The class of each node's volume claim.</small>
          </label>
          <label>
            Volume size (optional)
            <input {...invalid(m.error, 'kubernetes.volumeSize')} maxLength={20} placeholder="1Gi" value={cluster.volumeSize} onChange={(e) => set('volumeSize')(e.target.value)} />
            <FieldError error={m.error} field="kubernetes.volumeSize" />
          </label>
          <p className="hint">The service checks the cluster before anything is saved: reachable, a Ready node, the namespace, the storage class and every permission the engine needs; a problem is refused, named beside its field.</p>
        </>
      )}
      <FormActions m={m} label="Register host" pendingLabel={kind === 'docker' ? 'Reaching the engine…' : 'Checking the cluster…'} onCancel={onDone} />
    </form>
  );
}

/** A cluster's check findings (docs/kubernetes.md, status.kubernetes): nodes Ready and the engine's verbs the credentials lack. */
function ClusterFindings({ k }: { k: NonNullable<Host['status']['kubernetes']> }) {
  return (
    <div data-testid="cluster-findings">
      <small>{k.nodes ? `Nodes Ready: ${k.nodes.ready}/${k.nodes.total}` : 'Nodes: not listed (the credentials may not list them)'}</small>
      <br />
      {k.missingPermissions.length ? (
        <small className="error-text">
          Missing permissions: {k.missingPermissions.map((m) => `${m.verb} ${m.resource}`).join(', ')}
        </small>
      ) : (
        <small>No permission missing</small>
      )}
    </div>
  );
}
