// A node's configuration on its page: the values it runs with (ports, addresses) and, for a
// stopped EVM or consortium node with NODE_UPDATE, "Change configuration": its name and the
// fields PUT /nodes/{id} changes (EVM: its four ports; consortium: ports, listen address, host
// name, external endpoint, extra TLS names). Only changed fields are sent; a refused one is said
// beside it. A running node says to stop it first (the API's 409); ledgerX nodes are fixed once
// created (their ports are in the network's genesis block), so they get no form.
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useSession } from '../../session';
import { fieldErrors, FormActions, useShownFields, FieldError, invalid } from '../../components/states';
import { NodeConfigFields } from './NodeConfigFields';
import { configFields, configValues, nodeConfigBody, nodeConfigIssues, type ConfigKind } from './nodeConfig';

export function NodeConfigEdit({ node }: { node: { id: number; name: string; platform: string; role: string; status: string; config: Record<string, unknown> } }) {
  const { can } = useSession();
  const qc = useQueryClient();
  const kind: ConfigKind | null = node.platform === 'EVM' ? 'EVM_FULLNODE' : node.platform === 'CONSORTIUM' ? (node.role === 'orderer' ? 'CONSORTIUM_ORDERER' : 'CONSORTIUM_PEER') : null;
  const fields = kind ? configFields(kind, 'update') : [];
  const current = configValues(fields, node.config);
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(node.name);
  const [values, setValues] = useState(current);
  const [checked, setChecked] = useState(false);
  const issues = checked ? nodeConfigIssues(fields, values) : {};
  const changed = fields.filter((f) => (values[f.key] ?? '').trim() !== (current[f.key] ?? ''));
  const m = useMutation({
    mutationFn: () => {
      const config = nodeConfigBody(changed, values);
      return unwrap(api.PUT('/api/v1/nodes/{id}', { params: { path: { id: node.id } }, body: { ...(name !== node.name ? { name } : {}), ...(Object.keys(config).length ? { config } : {}) } }));
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['node', node.id] });
      await qc.invalidateQueries({ queryKey: ['nodes'] });
      setEditing(false);
    },
  });
  // The config fields (NodeConfigFields) show the refusal's messages beside them.
  useShownFields(m.error, fields.map((f) => `config.${f.key}`));
  if (!kind) return null;
  return (
    <section aria-labelledby="config-title">
      <h2 id="config-title">Configuration</h2>
      <dl className="facts" data-testid="node-config">
        {fields.map((f) => (
          <div className="contents" key={f.key}>
            <dt>{f.label}</dt>
            <dd data-config={f.key}>{current[f.key] || '—'}</dd>
          </div>
        ))}
      </dl>
      {can('NODE_UPDATE') && !editing ? (
        node.status === 'stopped' || node.status === 'created' || node.status === 'error' ? (
          <button
            type="button"
            onClick={() => {
              setValues(current);
              setName(node.name);
              setEditing(true);
            }}
          >
            Change configuration
          </button>
        ) : (
          <p className="muted">Stop the node to change its name or configuration.</p>
        )
      ) : null}
      {editing ? (
        <form
          className="card form-grid"
          aria-label="Change the node's configuration"
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            setChecked(true);
            if (!Object.keys(nodeConfigIssues(fields, values)).length) m.mutate();
          }}
        >
          <label>
            Name
            <input {...invalid(m.error, 'name')} required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} />
            <FieldError error={m.error} field="name" />
          </label>
          <NodeConfigFields fields={fields} values={values} onChange={setValues} errors={{ ...fieldErrors(m.error, 'config.'), ...issues }} idPrefix="edit-node" />
          {kind !== 'EVM_FULLNODE' ? <p className="muted">Changed host names or TLS names reach the certificates with "Renew certificates".</p> : null}
          <FormActions m={m} label="Save" pendingLabel="Saving…" onCancel={() => setEditing(false)} disabled={(name === node.name && !changed.length)} />
        </form>
      ) : null}
    </section>
  );
}
