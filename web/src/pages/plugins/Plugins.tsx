// Plugins: the installed ones with their state, and install from a YAML descriptor.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { Can } from '../../session';
import { ActionError, Empty, QueryView } from '../../components/states';
import { When } from '../../components/format';
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

export default function Plugins() {
  const q = useQuery({ queryKey: ['plugins'], refetchInterval: 5_000, queryFn: () => unwrap(api.GET('/api/v1/plugins', { params: { query: { limit: 500 } } })) });
  const [installing, setInstalling] = useState(false);
  return (
    <section>
      <div className="title-row">
        <h1>Plugins</h1>
        {!installing ? (
          <Can permission="PLUGIN_INSTALL">
            <button type="button" className="primary" onClick={() => setInstalling(true)}>
              Install plugin
            </button>
          </Can>
        ) : null}
      </div>
      {installing ? <Install onDone={() => setInstalling(false)} /> : null}
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
                { header: 'Name', cell: (p) => p.name },
                { header: 'Version', cell: (p) => p.version ?? '—' },
                { header: 'Status', cell: (p) => p.status },
                { header: 'Description', cell: (p) => p.description ?? '' },
                { header: 'Installed', cell: (p) => <When at={p.installedAt} /> },
              ]}
            />
          )
        }
      </QueryView>
    </section>
  );
}

function Install({ onDone }: { onDone: () => void }) {
  const qc = useQueryClient();
  const [yaml, setYaml] = useState(SAMPLE);
  const m = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/plugins', { body: { descriptor: yaml } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['plugins'] });
      onDone();
    },
  });
  return (
    <form
      className="card"
      aria-labelledby="install-title"
      onSubmit={(e) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h2 id="install-title">Install from YAML</h2>
      <label>
        Descriptor (YAML)
        <textarea className="code" rows={18} spellCheck={false} value={yaml} onChange={(e) => setYaml(e.target.value)} />
      </label>
      <ActionError error={m.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={m.isPending}>
          Install
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
