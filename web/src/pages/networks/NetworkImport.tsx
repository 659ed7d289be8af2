// Import an existing network beside the create wizards: a consortium channel from its genesis or
// config block (a file, sent as base64; POST /networks/consortium/import, recorded unchanged, its
// organizations matched to those held here by MSP id) with its orderers' endpoints, or an EVM
// network from its genesis object (a JSON file or pasted; POST /networks/evm/import: no keys are
// generated, genesis.validators names its validators). The API's refusals show at the form.
import { useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useNetworkMaker } from './networkMaker';
import { api, unwrap } from '../../api/client';
import { ActionError, FieldError, invalid } from '../../components/states';
import { fileBase64 } from '../../components/base64';
import { Can } from '../../session';

const MAX_BLOCK = 512 * 1024; // 700,000 characters of base64, the API's limit

export default function NetworkImport() {
  return (
    <section>
      <p className="crumbs">
        <Link to="/networks">Networks</Link> /
      </p>
      <h1>Import a network</h1>
      <p className="hint">Record a network that exists already; nothing is created on its nodes. Join or add nodes on its page afterwards.</p>
      <Can permission="NETWORK_CREATE">
        <div className="tiles">
          <ImportConsortium />
          <ImportEvm />
        </div>
      </Can>
    </section>
  );
}

function ImportConsortium() {
  const [name, setName] = useState('');
  const [channelName, setChannelName] = useState('');
  const [description, setDescription] = useState('');
  const [block, setBlock] = useState<File | null>(null);
  const [endpoints, setEndpoints] = useState('');
  const m = useNetworkMaker('consortium', async () => {
    if (!block) throw new Error('Pick the channel\'s genesis or config block.');
    if (block.size > MAX_BLOCK) throw new Error(`The block is ${block.size} bytes; at most ${MAX_BLOCK} bytes can be sent.`);
    const ordererEndpoints = endpoints.split(/[\s,]+/).map((e) => e.trim()).filter(Boolean);
    return unwrap(api.POST('/api/v1/networks/consortium/import', { body: { name: name.trim(), block: await fileBase64(block), ordererEndpoints, ...(channelName.trim() ? { channelName: channelName.trim() } : {}), ...(description.trim() ? { description: description.trim() } : {}) } }));
  });
  return (
    <ImportForm id="import-consortium-title" title="Consortium channel" submit="Import channel" m={m} name={[name, setName]} description={[description, setDescription]}>
      <label>
        Channel block (genesis or latest config block, binary)
        <input {...invalid(m.error, 'block')} type="file" required accept=".block,.pb,application/octet-stream" onChange={(e) => setBlock(e.target.files?.[0] ?? null)} />
        <FieldError error={m.error} field="block" />
      </label>
      <label>
        Orderer endpoints (host:port, one a line)
        <textarea {...invalid(m.error, 'ordererEndpoints')} className="code" required rows={3} value={endpoints} onChange={(e) => setEndpoints(e.target.value)} placeholder="orderer0.example.com:7050" />
        <FieldError error={m.error} field="ordererEndpoints" />
      </label>
      <label>
        Channel name (optional: checked against the block)
        <input {...invalid(m.error, 'channelName')} maxLength={249} value={channelName} onChange={(e) => setChannelName(e.target.value)} />
        <FieldError error={m.error} field="channelName" />
      </label>
    </ImportForm>
  );
}

function ImportEvm() {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [genesis, setGenesis] = useState('');
  const [client, setClient] = useState<'auto' | 'anvil' | 'besu'>('auto');
  const m = useNetworkMaker('evm', async () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(genesis);
    } catch {
      throw new Error('The genesis is not valid JSON.');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('The genesis must be a JSON object (chain_id, consensus, validators, ...).');
    return unwrap(api.POST('/api/v1/networks/evm/import', { body: { name: name.trim(), genesis: parsed as Record<string, unknown>, client, ...(description.trim() ? { description: description.trim() } : {}) } }));
  });
  return (
    <ImportForm id="import-evm-title" title="EVM network" submit="Import EVM network" m={m} name={[name, setName]} description={[description, setDescription]}>
      <label>
        Genesis file (JSON)
        <input type="file" accept=".json,application/json" onChange={async (e) => {
          const f = e.target.files?.[0];
          if (f) setGenesis(await f.text());
        }} />
      </label>
      <label>
        Genesis (from the file, or pasted: chain_id, consensus, validators)
        <textarea {...invalid(m.error, 'genesis')} className="code" required rows={8} spellCheck={false} value={genesis} onChange={(e) => setGenesis(e.target.value)} placeholder={'{ "chain_id": 1337, "consensus": "QBFT", "validators": ["0x…"] }'} />
        <FieldError error={m.error} field="genesis" />
      </label>
      <label>
        Client
        <select {...invalid(m.error, 'client')} value={client} onChange={(e) => setClient(e.target.value as 'auto' | 'anvil' | 'besu')}>
          <option value="auto">auto (besu where available, else anvil)</option>
          <option value="anvil">anvil</option>
          <option value="besu">besu</option>
        </select>
        <FieldError error={m.error} field="client" />
      </label>
    </ImportForm>
  );
}

type Field = [string, (v: string) => void];

/** One import form: its title, the network's name, the platform's own fields, a description, the API's refusal and the submit. */
function ImportForm({ id, title, submit, m, name, description, children }: { id: string; title: string; submit: string; m: { mutate: () => void; isPending: boolean; error: unknown }; name: Field; description: Field; children: ReactNode }) {
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    m.mutate();
  };
  return (
    <form className="card form-grid" aria-labelledby={id} onSubmit={onSubmit}>
      <h2 id={id}>{title}</h2>
      <label>
        Name
        <input {...invalid(m.error, 'name')} required pattern="[A-Za-z0-9-]+" maxLength={64} value={name[0]} onChange={(e) => name[1](e.target.value)} />
        <FieldError error={m.error} field="name" />
      </label>
      {children}
      <label>
        Description (optional)
        <input {...invalid(m.error, 'description')} maxLength={1000} value={description[0]} onChange={(e) => description[1](e.target.value)} />
        <FieldError error={m.error} field="description" />
      </label>
      <ActionError error={m.error} />
      <div>
        <button type="submit" className="primary" disabled={m.isPending}>
          {m.isPending ? 'Importing…' : submit}
        </button>
      </div>
    </form>
  );
}
