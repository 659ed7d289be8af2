// One plugin: its state and services, the deploy form generated from the descriptor's
// spec.parameters (with pickers for x-source consortium-key and consortium-peer), stop, resume,
// the services' last log lines, the descriptor replaced in the YAML editor while not deployed, and remove.
import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { LiveLogs } from '../nodes/LiveLogs';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../../api/client';
import { useAllNodes } from '../../api/queries';
import { Can, useSession } from '../../session';
import { ActionError, Empty, ErrorState, Loading, QueryView, useShownFields } from '../../components/states';
import { StatusBadge, When } from '../../components/format';
import { DataTable } from '../../components/DataTable';
import { initialValues, SchemaFields, toParameters, type FormValues, type ObjectSchema, type SourceOptions } from '../../components/SchemaForm';
import { DescriptorForm, pluginState } from './Plugins';

interface Descriptor {
  metadata?: { name?: string; description?: string };
  spec?: { parameters?: ObjectSchema };
  documentation?: { readme?: string };
}

export default function PluginDetail() {
  const { name = '' } = useParams();
  const { can } = useSession();
  const q = useQuery({ queryKey: ['plugins', 'one', name], refetchInterval: 5_000, queryFn: () => unwrap(api.GET('/api/v1/plugins/{name}', { params: { path: { name } } })) });
  return (
    <section>
      <p className="crumbs">
        <Link to="/plugins">Plugins</Link> /
      </p>
      <h1>Plugin {name}</h1>
      <QueryView q={q} what="Loading the plugin">
        {(p) => {
          const d = (p.descriptor ?? {}) as Descriptor;
          return (
            <>
              <dl className="facts">
                <dt>Status</dt>
                <dd data-testid="plugin-status">
                  <StatusBadge status={pluginState(p.status)} />
                </dd>
                <dt>Version</dt>
                <dd>{p.version ?? '—'}</dd>
                <dt>Description</dt>
                <dd>{p.description ?? '—'}</dd>
                <dt>Installed</dt>
                <dd>
                  <When at={p.installedAt} />
                </dd>
                {d.documentation?.readme ? (
                  <>
                    <dt>Read me</dt>
                    <dd>{d.documentation.readme}</dd>
                  </>
                ) : null}
              </dl>
              <h2>Services</h2>
              {p.services === null ? (
                <p className="muted">The Docker Engine could not be asked for this plugin's containers.</p>
              ) : p.services.length === 0 ? (
                <Empty>No containers: the plugin is not deployed.</Empty>
              ) : (
                <DataTable
                  caption="Services"
                  rows={p.services}
                  rowKey={(s) => s.containerId}
                  columns={[
                    { header: 'Service', cell: (s) => s.service },
                    { header: 'State', cell: (s) => <StatusBadge status={s.state} /> },
                    { header: 'Status', cell: (s) => s.status },
                  ]}
                />
              )}
              {can('PLUGIN_OPERATE') ? <Operate name={p.name} status={p.status} /> : null}
              {can('PLUGIN_OPERATE') && p.status === 'installed' ? <DeployForm name={p.name} schema={d.spec?.parameters ?? {}} previous={p.parameters as Record<string, unknown> | null} /> : null}
              {can('PLUGIN_OPERATE') && p.status !== 'installed' ? <PluginLogs name={p.name} /> : null}
              <Can permission="PLUGIN_INSTALL">
                {p.status === 'installed' ? <ReplaceDescriptor name={p.name} descriptor={p.descriptor} /> : null}
                <Remove name={p.name} />
              </Can>
            </>
          );
        }}
      </QueryView>
    </section>
  );
}

function Operate({ name, status }: { name: string; status: string }) {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: (action: 'stop' | 'resume') => unwrap(action === 'stop' ? api.POST('/api/v1/plugins/{name}/stop', { params: { path: { name } } }) : api.POST('/api/v1/plugins/{name}/resume', { params: { path: { name } } })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['plugins'] }),
  });
  if (status === 'installed') return null;
  return (
    <div className="actions">
      {status === 'enabled' ? (
        <button type="button" disabled={m.isPending} onClick={() => m.mutate('stop')}>
          {m.isPending ? 'Stopping…' : 'Stop'}
        </button>
      ) : (
        <button type="button" className="primary" disabled={m.isPending} onClick={() => m.mutate('resume')}>
          {m.isPending ? 'Resuming…' : 'Resume'}
        </button>
      )}
      <ActionError error={m.error} />
    </div>
  );
}

/** What the x-source pickers offer: client identity keys (an organization's admin key, a node's identity key) and consortium peers. */
function useSources(schema: ObjectSchema): { sources: SourceOptions; loading: boolean; error: unknown } {
  const kinds = new Set(Object.values(schema.properties ?? {}).map((p) => p['x-source']).filter(Boolean));
  const { can } = useSession();
  const keys = useQuery({ queryKey: ['keys', 'all'], enabled: kinds.has('consortium-key') && can('KEY_READ'), queryFn: () => unwrap(api.GET('/api/v1/keys/all')) });
  const orgs = useQuery({ queryKey: ['organizations'], enabled: kinds.has('consortium-key'), queryFn: () => unwrap(api.GET('/api/v1/organizations', { params: { query: { limit: 500 } } })) });
  const nodes = useAllNodes('CONSORTIUM');
  const sources = useMemo<SourceOptions>(() => {
    const mspOf = new Map((orgs.data?.items ?? []).map((o) => [o.id, o.mspId]));
    return {
      'consortium-key': (keys.data ?? [])
        .filter((k) => k.purpose === 'ADMIN' || k.purpose === 'IDENTITY')
        .map((k) => ({ value: k.id, label: `${k.name} (${k.purpose === 'ADMIN' ? 'admin' : 'node identity'}${k.organizationId && mspOf.get(k.organizationId) ? `, ${mspOf.get(k.organizationId)}` : ''}; key ${k.id})` })),
      'consortium-peer': (nodes.data?.items ?? []).filter((n) => n.nodeType === 'CONSORTIUM_PEER').map((n) => ({ value: n.id, label: `${n.name} (node ${n.id}, ${n.status})` })),
    };
  }, [keys.data, orgs.data, nodes.data]);
  const pending = (kinds.has('consortium-key') && can('KEY_READ') && keys.isPending) || (kinds.has('consortium-peer') && nodes.isPending);
  return { sources, loading: pending, error: keys.error ?? (kinds.has('consortium-peer') ? nodes.error : null) };
}

function DeployForm({ name, schema, previous }: { name: string; schema: ObjectSchema; previous: Record<string, unknown> | null }) {
  const qc = useQueryClient();
  const [values, setValues] = useState<FormValues>(() => initialValues(schema, previous ?? undefined));
  const [local, setLocal] = useState<Record<string, string>>({});
  const { sources, loading, error } = useSources(schema);
  const m = useMutation({
    mutationFn: (parameters: Record<string, unknown>) => unwrap(api.POST('/api/v1/plugins/{name}/deploy', { params: { path: { name } }, body: { parameters } })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['plugins'] }),
  });
  // The server's 400 names each parameter as parameters.<name> (or <name>): shown beside it.
  const fieldErrors = { ...local };
  const beside: string[] = [];
  if (m.error instanceof ApiError) {
    for (const d of m.error.details) {
      const f = d.field.replace(/^(body\.)?parameters\./, '').split('.')[0];
      if (f && schema.properties?.[f]) {
        fieldErrors[f] = d.message;
        beside.push(d.field.replace(/^body\./, ''));
      }
    }
  }
  // Said beside the parameters (SchemaFields), so the form's ActionError leaves them out.
  useShownFields(m.error, beside);
  return (
    <form
      className="card form-grid"
      aria-labelledby="deploy-title"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const { parameters, issues } = toParameters(schema, values);
        setLocal(issues);
        if (Object.keys(issues).length === 0) m.mutate(parameters);
      }}
    >
      <h2 id="deploy-title">Deploy</h2>
      <p className="hint">The form follows the descriptor's parameters; the service checks them again and fills in the defaults.</p>
      {loading ? <Loading what="Loading keys and peers" /> : error ? <ErrorState error={error} /> : null}
      <SchemaFields schema={schema} values={values} onChange={setValues} sources={sources} errors={fieldErrors} idPrefix="param" />
      <ActionError error={m.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={m.isPending}>
          {m.isPending ? 'Deploying…' : 'Deploy'}
        </button>
      </div>
    </form>
  );
}

/**
 * Each service's output followed live (LiveLogs over GET /plugins/{name}/logs?service= upgraded
 * to a WebSocket, the last 200 lines first); the services and their states polled every 3 s
 * (one line each), so a service that exits or a container Compose recreates shows up (a new
 * container is followed anew).
 */
function PluginLogs({ name }: { name: string }) {
  const q = useQuery({ queryKey: ['plugins', 'logs', name], refetchInterval: 3_000, retry: false, queryFn: () => unwrap(api.GET('/api/v1/plugins/{name}/logs', { params: { path: { name }, query: { tail: 1 } } })) });
  return (
    <>
      <h2>Logs</h2>
      <QueryView q={q} what="Loading logs">
        {(d) =>
          d.services.length === 0 ? (
            <Empty>No containers, so no logs.</Empty>
          ) : (
            <>
              {d.services.map((s) => (
                <article key={s.containerId} className="card" aria-labelledby={`logs-${s.service}`}>
                  <h3 id={`logs-${s.service}`}>
                    {s.service} <StatusBadge status={s.state} />
                  </h3>
                  <LiveLogs src={`/api/v1/plugins/${encodeURIComponent(name)}/logs?service=${encodeURIComponent(s.service)}&tail=200`} label={`Output of ${s.service}`} />
                </article>
              ))}
            </>
          )
        }
      </QueryView>
    </>
  );
}

/** Replace a plugin's descriptor while it is not deployed (PUT /plugins/{name}; a 409 while deployed). */
function ReplaceDescriptor({ name, descriptor }: { name: string; descriptor: unknown }) {
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const text = useQuery({ queryKey: ['plugins', 'one', name, 'yaml'], enabled: open, staleTime: Infinity, queryFn: async () => (await import('yaml')).stringify(descriptor) });
  if (!open) {
    return (
      <div className="actions">
        <button type="button" onClick={() => setOpen(true)}>
          Edit descriptor
        </button>
      </div>
    );
  }
  return (
    <QueryView q={text} what="Loading the descriptor">
      {(yaml) => (
        <DescriptorForm
          title={`Descriptor of ${name}`}
          initial={yaml}
          submitLabel="Save descriptor"
          submit={(y) => unwrap(api.PUT('/api/v1/plugins/{name}', { params: { path: { name } }, body: { descriptor: y } }))}
          onSaved={async () => {
            setOpen(false);
            await qc.invalidateQueries({ queryKey: ['plugins'] });
          }}
          onCancel={() => setOpen(false)}
        />
      )}
    </QueryView>
  );
}

function Remove({ name }: { name: string }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [sure, setSure] = useState(false);
  const m = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/plugins/{name}', { params: { path: { name } } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['plugins'] });
      navigate('/plugins');
    },
  });
  return (
    <div className="actions danger-zone">
      {!sure ? (
        <button type="button" className="danger" onClick={() => setSure(true)}>
          Remove plugin
        </button>
      ) : (
        <>
          <span>Remove {name} with its containers, volumes and files?</span>
          <button type="button" className="danger" disabled={m.isPending} onClick={() => m.mutate()}>
            Yes, remove
          </button>
          <button type="button" onClick={() => setSure(false)}>
            Cancel
          </button>
        </>
      )}
      <ActionError error={m.error} />
    </div>
  );
}
