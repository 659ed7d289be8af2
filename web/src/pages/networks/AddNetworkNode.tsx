// Add a validator or bootnode to an EVM network (POST /networks/{networkId}/nodes; it starts
// automatically): name, type, and optionally its ports, engine and resource limits (docker:
// CPUs and memory). Full nodes are created from the node list (POST /nodes, EVM_FULLNODE), which
// this route does not make. A refused field (a taken port, a bootnode with RPC ports) is said
// beside it.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { fieldErrors, FormActions, useShownFields } from '../../components/states';

const PORTS = [
  ['port', 'Peer-to-peer port', 'p2pPort'],
  ['rpc_port', 'JSON-RPC HTTP port', 'rpcHttpPort'],
  ['ws_port', 'JSON-RPC WebSocket port', 'rpcWsPort'],
] as const;

export function AddNetworkNode({ networkId }: { networkId: number }) {
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [type, setType] = useState<'validator' | 'bootnode'>('validator');
  const [values, setValues] = useState<Record<string, string>>({});
  const [checked, setChecked] = useState(false);
  const defaults = useQuery({ queryKey: ['node-defaults', 'evm'], enabled: open, queryFn: () => unwrap(api.GET('/api/v1/nodes/defaults/evm-node')) });
  const starts = (defaults.data as { config?: Record<string, number> } | undefined)?.config ?? {};
  const local: Record<string, string> = {};
  for (const [k] of PORTS) {
    const v = (values[k] ?? '').trim();
    if (v && (!/^\d+$/.test(v) || Number(v) < 1024 || Number(v) > 65535)) local[k] = 'a port from 1024 to 65535';
    if (v && type === 'bootnode' && k !== 'port') local[k] = 'a bootnode has a peer-to-peer port only';
  }
  if (values.cpu?.trim() && !/^\d+(\.\d+)?$/.test(values.cpu.trim())) local.cpu = 'a number of CPUs, e.g. 0.5 or 2';
  if (values.memory?.trim() && !/^\d+(\.\d+)?[kKmMgG]?[bB]?$/.test(values.memory.trim())) local.memory = 'a size such as 512m or 2g';
  const m = useMutation({
    mutationFn: () => {
      const port = (k: string) => (values[k]?.trim() ? Number(values[k]) : undefined);
      const resources = { ...(values.cpu?.trim() ? { cpu: values.cpu.trim() } : {}), ...(values.memory?.trim() ? { memory: values.memory.trim() } : {}) };
      return unwrap(
        api.POST('/api/v1/networks/{networkId}/nodes', {
          params: { path: { networkId } },
          body: { name, type, port: port('port'), rpc_port: port('rpc_port'), ws_port: port('ws_port'), ...(values.engine ? { engine: values.engine as 'process' | 'docker' } : {}), ...(Object.keys(resources).length ? { resources } : {}) },
        }),
      );
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['nodes'] });
      await qc.invalidateQueries({ queryKey: ['network', 'evm', networkId] });
      setOpen(false);
      setName('');
      setValues({});
      setChecked(false);
    },
  });
  // The refusal's fields drawn beside their inputs below (help), so FormActions does not repeat them.
  useShownFields(m.error, ['name', 'type', ...PORTS.map(([k]) => k), 'engine', 'cpu', 'memory']);
  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Add a validator or bootnode
      </button>
    );
  }
  const errors = { ...fieldErrors(m.error), ...(checked ? local : {}) };
  const help = (k: string, text: string) => (
    <small id={`add-node-${k}-help`} className={errors[k] ? 'error-text' : undefined}>
      {errors[k] ?? text}
    </small>
  );
  return (
    <form
      className="card form-grid"
      aria-labelledby="add-node-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        setChecked(true);
        if (!Object.keys(local).length) m.mutate();
      }}
    >
      <h3 id="add-node-title">Add a node to this network</h3>
      <label>
        <span id="add-node-name-label">Name</span>
        <input required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} aria-invalid={errors.name ? true : undefined} aria-labelledby="add-node-name-label" aria-describedby="add-node-name-help" />
        {help('name', 'Letters, digits, ".", "_" and "-".')}
      </label>
      <label>
        <span id="add-node-type-label">Type</span>
        <select value={type} onChange={(e) => setType(e.target.value as 'validator' | 'bootnode')} aria-labelledby="add-node-type-label" aria-describedby="add-node-type-help">
          <option value="validator">validator</option>
          <option value="bootnode">bootnode</option>
        </select>
        {help('type', 'A validator gets a new validator key; a bootnode only seeds peers (besu networks).')}
      </label>
      {PORTS.map(([k, label, def]) => (
        <label key={k}>
          <span id={`add-node-${k}-label`}>{label}</span> <span className="muted">(optional)</span>
          <input inputMode="numeric" value={values[k] ?? ''} placeholder={starts[def] ? `${starts[def]} or the next free one` : undefined} onChange={(e) => setValues({ ...values, [k]: e.target.value })} aria-invalid={errors[k] ? true : undefined} aria-labelledby={`add-node-${k}-label`} aria-describedby={`add-node-${k}-help`} />
          {help(k, k === 'port' ? 'Empty: the next free port.' : 'Empty: the next free port; none for a bootnode.')}
        </label>
      ))}
      <label>
        <span id="add-node-engine-label">Engine</span> <span className="muted">(optional)</span>
        <select value={values.engine ?? ''} onChange={(e) => setValues({ ...values, engine: e.target.value })} aria-labelledby="add-node-engine-label" aria-describedby="add-node-engine-help">
          <option value="">The service's default</option>
          <option value="process">process</option>
          <option value="docker">docker</option>
        </select>
        {help('engine', 'How the node runs.')}
      </label>
      <label>
        <span id="add-node-cpu-label">CPUs</span> <span className="muted">(optional)</span>
        <input value={values.cpu ?? ''} onChange={(e) => setValues({ ...values, cpu: e.target.value })} aria-invalid={errors.cpu ? true : undefined} aria-labelledby="add-node-cpu-label" aria-describedby="add-node-cpu-help" />
        {help('cpu', 'A limit for a container node, e.g. 0.5.')}
      </label>
      <label>
        <span id="add-node-memory-label">Memory</span> <span className="muted">(optional)</span>
        <input value={values.memory ?? ''} onChange={(e) => setValues({ ...values, memory: e.target.value })} aria-invalid={errors.memory ? true : undefined} aria-labelledby="add-node-memory-label" aria-describedby="add-node-memory-help" />
        {help('memory', 'A limit for a container node, e.g. 512m.')}
      </label>
      <FormActions m={m} label="Add node" pendingLabel="Adding and starting…" onCancel={() => setOpen(false)} />
    </form>
  );
}
