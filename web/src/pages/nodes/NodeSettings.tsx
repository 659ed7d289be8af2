// A stopped EVM or consortium node's name and ports changed (PUT /nodes/{id}, NODE_UPDATE): the
// fields are the ones its config holds, and only the changed ones are sent. A running node is
// refused by the API (409), so the form is offered only when the node is stopped, and says so.
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { Can } from '../../session';
import { FormActions, FieldError, invalid } from '../../components/states';
import { actionsFor } from './nodeStates';

const PORTS: Record<string, string> = {
  p2pPort: 'P2P port',
  rpcHttpPort: 'JSON-RPC HTTP port',
  rpcWsPort: 'JSON-RPC WebSocket port',
  metricsPort: 'Metrics port',
  port: 'Port',
  chaincodePort: 'Chaincode port',
  adminPort: 'Admin port',
  operationsPort: 'Operations port',
};
const TEXTS: Record<string, string> = { listenAddress: 'Listen address', hostname: 'Hostname', externalEndpoint: 'External endpoint' };

export function NodeSettings({ node }: { node: { id: number; name: string; status: string; platform: string; config: Record<string, unknown> } }) {
  const [open, setOpen] = useState(false);
  if (node.platform === 'LEDGERX') return null;
  const stopped = actionsFor(node.status).includes('start');
  return (
    <Can permission="NODE_UPDATE">
      {open ? (
        <SettingsForm key={node.id} node={node} onDone={() => setOpen(false)} />
      ) : (
        <p className="actions">
          <button type="button" disabled={!stopped} onClick={() => setOpen(true)} aria-describedby={stopped ? undefined : 'settings-stopped-hint'}>
            Change name or ports
          </button>
          {stopped ? null : (
            <small id="settings-stopped-hint" className="muted">
              Stop the node first: a running node's name and ports cannot change.
            </small>
          )}
        </p>
      )}
    </Can>
  );
}

function SettingsForm({ node, onDone }: { node: { id: number; name: string; config: Record<string, unknown> }; onDone: () => void }) {
  const qc = useQueryClient();
  const ports = Object.keys(PORTS).filter((k) => typeof node.config[k] === 'number');
  const texts = Object.keys(TEXTS).filter((k) => k in node.config && (node.config[k] === null || typeof node.config[k] === 'string'));
  const initial = Object.fromEntries([...ports, ...texts].map((k) => [k, node.config[k] === null || node.config[k] === undefined ? '' : String(node.config[k])]));
  const [name, setName] = useState(node.name);
  const [values, setValues] = useState<Record<string, string>>(initial);
  const changed = Object.keys(values).filter((k) => values[k] !== initial[k]);
  const m = useMutation({
    mutationFn: () =>
      unwrap(
        api.PUT('/api/v1/nodes/{id}', {
          params: { path: { id: node.id } },
          body: {
            ...(name !== node.name ? { name } : {}),
            ...(changed.length ? { config: Object.fromEntries(changed.map((k) => [k, ports.includes(k) ? Number(values[k]) : values[k]])) } : {}),
          },
        }),
      ),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['node', node.id] });
      await qc.invalidateQueries({ queryKey: ['nodes'] });
      onDone();
    },
  });
  return (
    <form
      className="card form-grid"
      aria-labelledby="node-settings-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h2 id="node-settings-title">Name and ports of {node.name}</h2>
      <label>
        Node name
        <input {...invalid(m.error, 'name')} required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} />
        <FieldError error={m.error} field="name" />
      </label>
      {ports.map((k) => (
        <label key={k}>
          {PORTS[k]}
          <input {...invalid(m.error, `config.${k}`)} type="number" min={1} max={65535} required value={values[k]} onChange={(e) => setValues({ ...values, [k]: e.target.value })} />
          <FieldError error={m.error} field={`config.${k}`} />
        </label>
      ))}
      {texts.map((k) => (
        <label key={k}>
          {TEXTS[k]}
          <input {...invalid(m.error, `config.${k}`)} value={values[k]} onChange={(e) => setValues({ ...values, [k]: e.target.value })} />
          <FieldError error={m.error} field={`config.${k}`} />
        </label>
      ))}
      {texts.includes('hostname') ? <p className="hint">Names in the TLS certificate change when its certificates are renewed (Certificates, below).</p> : null}
      <FormActions m={m} label="Save node" pendingLabel="Saving…" onCancel={onDone} disabled={(name === node.name && changed.length === 0)} />
    </form>
  );
}
