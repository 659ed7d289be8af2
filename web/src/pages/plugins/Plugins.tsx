// Plugins: the installed ones with their state (each links to its page: deploy form, logs, stop,
// resume), the descriptors shipped with the service ready to install, and install from YAML.
import { lazy, Suspense, useState } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { Can } from '../../session';
import { ListTitle } from '../../components/ListTitle';
import { ActionError, Empty, FieldError, Loading, QueryView } from '../../components/states';

// The code editor is its own chunk, loaded when an install form opens. Should the chunk not load
// (a stale tab after an upgrade), a plain text area takes its place and says why.
const YamlEditor = lazy(() =>
  import('../../components/YamlEditor').catch(() => ({
    default: ({ value, onChange, label }: { value: string; onChange: (v: string) => void; label: string }) => (
      <>
        <p className="action-error" role="alert">The code editor could not be loaded; edit the YAML as plain text.</p>
        <textarea className="code" rows={18} spellCheck={false} aria-label={label} value={value} onChange={(e) => onChange(e.target.value)} />
      </>
    ),
  })),
);
import { StatusBadge, When } from '../../components/format';
import { DataTable } from '../../components/DataTable';

const SAMPLE = `apiVersion: dev.platform/v1
kind: Plugin
metadata:
  name: my-plugin
  version: 1.0.0
  description: What it does
spec:
  dockerCompose:
    contents: |
      services:
        app:
          image: nginx:alpine
  parameters:
    type: object
    properties: {}
`;

/** installed, enabled, disabled as people say them. */
export const pluginState = (s: string) => (s === 'enabled' ? 'running' : s === 'disabled' ? 'stopped' : s);

export default function Plugins() {
  const q = useQuery({ queryKey: ['plugins'], refetchInterval: 5_000, queryFn: () => unwrap(api.GET('/api/v1/plugins', { params: { query: { limit: 500 } } })) });
  const available = useQuery({ queryKey: ['plugins', 'available'], queryFn: () => unwrap(api.GET('/api/v1/plugins/available')) });
  return (
    <section>
      <ListTitle title="Plugins" permission="PLUGIN_INSTALL" open="Install plugin" form={(close) => <Install onDone={close} />} />
      <QueryView q={q} what="Loading plugins">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No plugins installed. A plugin is a YAML descriptor of containers the service deploys with parameters.</Empty>
          ) : (
            <DataTable
              caption="Installed plugins"
              rows={d.items}
              rowKey={(p) => p.name}
              columns={[
                { header: 'Name', cell: (p) => <Link to={`/plugins/${encodeURIComponent(p.name)}`}>{p.name}</Link> },
                { header: 'Version', cell: (p) => p.version ?? '—' },
                { header: 'Status', cell: (p) => <StatusBadge status={pluginState(p.status)} /> },
                { header: 'Description', cell: (p) => p.description ?? '' },
                { header: 'Installed', cell: (p) => <When at={p.installedAt} /> },
              ]}
            />
          )
        }
      </QueryView>
      <h2>Shipped with the service</h2>
      <QueryView q={available} what="Loading the shipped plugins">
        {(d) => (d.items.length === 0 ? <Empty>No plugin descriptors are shipped with this server.</Empty> : <Available items={d.items} />)}
      </QueryView>
    </section>
  );
}

function Available({ items }: { items: Array<{ name: string; version: string | null; description: string | null; installed: boolean; descriptor: string }> }) {
  const qc = useQueryClient();
  const install = useMutation({
    mutationFn: (descriptor: string) => unwrap(api.POST('/api/v1/plugins', { body: { descriptor } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['plugins'] }),
  });
  return (
    <>
      <ActionError error={install.error} />
      <DataTable
        caption="Plugins shipped with the service"
        rows={items}
        rowKey={(p) => p.name}
        columns={[
          { header: 'Name', cell: (p) => p.name },
          { header: 'Version', cell: (p) => p.version ?? '—' },
          { header: 'Description', cell: (p) => p.description ?? '' },
          {
            header: 'Actions',
            cell: (p) =>
              p.installed ? (
                <span className="muted">installed</span>
              ) : (
                <Can permission="PLUGIN_INSTALL">
                  <button type="button" disabled={install.isPending} onClick={() => install.mutate(p.descriptor)} aria-label={`Install ${p.name}`}>
                    Install
                  </button>
                </Can>
              ),
          },
        ]}
      />
    </>
  );
}

function Install({ onDone }: { onDone: () => void }) {
  const qc = useQueryClient();
  return (
    <DescriptorForm
      title="Install from YAML"
      initial={SAMPLE}
      submitLabel="Install"
      submit={(yaml) => unwrap(api.POST('/api/v1/plugins', { body: { descriptor: yaml } }))}
      onSaved={async () => {
        await qc.invalidateQueries({ queryKey: ['plugins'] });
        onDone();
      }}
      onCancel={onDone}
    />
  );
}

/** A descriptor in the YAML editor, sent by `submit` (install, or replace an installed one's); the API's refusal shown. */
export function DescriptorForm({ title, initial, submitLabel, submit, onSaved, onCancel }: { title: string; initial: string; submitLabel: string; submit: (yaml: string) => Promise<unknown>; onSaved: () => unknown; onCancel: () => void }) {
  const [yaml, setYaml] = useState(initial);
  const m = useMutation({ mutationFn: () => submit(yaml), onSuccess: async () => onSaved() });
  return (
    <form
      className="card"
      aria-labelledby="install-title"
      onSubmit={(e) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h2 id="install-title">{title}</h2>
      <p className="field-label">Descriptor (YAML)</p>
      <Suspense fallback={<Loading what="Loading the YAML editor" />}>
        <YamlEditor
          label="Descriptor (YAML)"
          value={yaml}
          onChange={(v) => {
            setYaml(v);
            // The server's refusal was about the text before this edit.
            if (m.error) m.reset();
          }}
        />
      </Suspense>
      <FieldError error={m.error} field="descriptor" />
      <ActionError error={m.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={m.isPending}>
          {submitLabel}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
