// Network templates (pro): export a network as a template (organizations, keys and nodes become
// variables; nothing secret travels), then on this or another instance validate it with a
// binding per variable picked from this instance's organizations, nodes and keys, and import it.
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Json } from '../../api/client';
import { useAllNodes, useConsortiumNetworks, useEvmNetworks } from '../../api/queries';
import { useLedgerXNetworks } from '../ledgerx/queries';
import { Can, useSession } from '../../session';
import { EditionPage } from '../../components/EditionGate';
import { ActionError, ErrorState, FieldError, invalid } from '../../components/states';

type Validation = Json<'/api/v1/networks/templates/validate', 'post'>;
type Template = { version?: string; platform?: string; name?: string; description?: string; variables?: Array<{ name: string; type: string; description?: string }>; network?: unknown };

const FIELD: Record<string, 'organizationId' | 'nodeId' | 'keyId'> = { organization: 'organizationId', mspId: 'organizationId', node: 'nodeId', key: 'keyId', ethereumAddress: 'keyId', publicKey: 'keyId' };

export default function Templates() {
  const { can } = useSession();
  const [text, setText] = useState('');
  return (
    <EditionPage title="Network templates" needs="Network templates need" edition="pro">
      <p className="hint">A template is a network without its secrets: its organizations, keys and nodes become variables you bind to this instance's own when you import it.</p>
      {can('TEMPLATE_READ') ? <Export onLoad={setText} /> : null}
      <Can permission="TEMPLATE_IMPORT">
        <Import text={text} setText={setText} />
      </Can>
    </EditionPage>
  );
}

function Export({ onLoad }: { onLoad: (t: string) => void }) {
  const evm = useEvmNetworks();
  const consortium = useConsortiumNetworks();
  const ledgerx = useLedgerXNetworks();
  const [id, setId] = useState('');
  const load = useMutation({
    mutationFn: () => unwrap(api.GET('/api/v1/networks/templates/export/{id}', { params: { path: { id: Number(id) } } })),
    onSuccess: (t) => onLoad(JSON.stringify(t, null, 2)),
  });
  const networks = [...(evm.data?.items ?? []).map((n) => ({ id: n.id, label: `${n.name} (EVM)` })), ...(consortium.data?.items ?? []).map((n) => ({ id: n.id, label: `${n.name} (consortium)` })), ...(ledgerx.data?.items ?? []).map((n) => ({ id: n.id, label: `${n.name} (ledgerX)` }))];
  return (
    <article className="card" aria-labelledby="export-title">
      <h2 id="export-title">Export</h2>
      {evm.error || consortium.error ? <ErrorState error={evm.error ?? consortium.error} /> : null}
      <div className="filters">
        <label>
          Network to export
          <select value={id} onChange={(e) => setId(e.target.value)}>
            <option value="">{evm.isPending || consortium.isPending ? 'Loading networks…' : networks.length ? 'Pick a network' : 'No networks yet'}</option>
            {networks.map((n) => (
              <option key={n.id} value={n.id}>
                {n.label}
              </option>
            ))}
          </select>
        </label>
        {id ? (
          <>
            <a className="button" href={`/api/v1/networks/templates/export/${id}`} download>
              Download template
            </a>
            <Can permission="TEMPLATE_IMPORT">
              <button type="button" disabled={load.isPending} onClick={() => load.mutate()}>
                Open in the import form
              </button>
            </Can>
          </>
        ) : null}
      </div>
      <ActionError error={load.error} />
    </article>
  );
}

function parse(text: string): { template: Template | null; error: string | null } {
  if (!text.trim()) return { template: null, error: null };
  try {
    const t = JSON.parse(text) as unknown;
    if (!t || typeof t !== 'object' || Array.isArray(t)) return { template: null, error: 'A template is a JSON object.' };
    return { template: t as Template, error: null };
  } catch (e) {
    return { template: null, error: `Not JSON: ${(e as Error).message}` };
  }
}

function Import({ text, setText }: { text: string; setText: (t: string) => void }) {
  const { template, error } = useMemo(() => parse(text), [text]);
  const [bindings, setBindings] = useState<Record<string, string>>({});
  const [name, setName] = useState('');
  const variables = Array.isArray(template?.variables) ? template!.variables : [];
  const orgs = useQuery({ queryKey: ['organizations'], queryFn: () => unwrap(api.GET('/api/v1/organizations', { params: { query: { limit: 500 } } })) });
  const keys = useQuery({ queryKey: ['keys', 'all'], queryFn: () => unwrap(api.GET('/api/v1/keys/all')) });
  const nodes = useAllNodes();
  const variableBindings = () =>
    Object.fromEntries(variables.filter((v) => bindings[v.name]).map((v) => [v.name, { [FIELD[v.type] ?? 'keyId']: Number(bindings[v.name]) }]));
  const validate = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/networks/templates/validate', { body: { template: template as never, variableBindings: variableBindings() } })),
  });
  const imp = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/networks/templates/import', { body: { template: template as never, variableBindings: variableBindings(), ...(name ? { name } : {}) } })) as unknown as Promise<{ platform: string; network_id: number; name: string; warnings?: string[] }>,
  });
  // The refusal of the last try (validate or import): its fields are said beside them.
  const refusal = imp.error ?? validate.error;
  const options = (type: string) => {
    const f = FIELD[type];
    if (f === 'organizationId') return (orgs.data?.items ?? []).map((o) => ({ value: o.id, label: `${o.name} (${o.mspId})` }));
    if (f === 'nodeId') return (nodes.data?.items ?? []).map((n) => ({ value: n.id, label: `${n.name} (${n.nodeType}, ${n.status})` }));
    return (keys.data ?? []).map((k) => ({ value: k.id, label: `${k.name} (${k.algorithm}${k.curve ? ` ${k.curve}` : ''}${k.ethereumAddress ? `, ${k.ethereumAddress}` : ''})` }));
  };
  const v: Validation | undefined = validate.data;
  return (
    <form
      className="card form-grid wide"
      aria-labelledby="import-title"
      onSubmit={(e) => {
        e.preventDefault();
        imp.mutate();
      }}
    >
      <h2 id="import-title">Validate and import</h2>
      <label>
        Template (JSON)
        <textarea className="code" rows={12} spellCheck={false} value={text} onChange={(e) => setText(e.target.value)} aria-invalid={error ? true : undefined} {...invalid(refusal, 'template')} />
        <FieldError error={refusal} field="template" />
      </label>
      <label>
        Or read a template file
        <input
          type="file"
          accept=".json,application/json"
          onChange={async (e) => {
            const f = e.target.files?.[0];
            if (f) setText(await f.text());
          }}
        />
      </label>
      {error ? <p className="error-text" role="alert">{error}</p> : null}
      {template ? (
        <p className="muted">
          {template.platform ?? '?'} template {template.name ?? ''}, version {template.version ?? '?'}
          {template.description ? `: ${template.description}` : ''}
        </p>
      ) : null}
      {variables.length ? (
        <fieldset>
          <legend>Bindings: one of this instance's resources for each variable</legend>
          {variables.map((x) => (
            <label key={x.name}>
              {x.name} ({x.type}){x.description ? ` — ${x.description}` : ''}
              <select {...invalid(refusal, `variableBindings.${x.name}`)} value={bindings[x.name] ?? ''} onChange={(e) => {
                  validate.reset();
                  setBindings({ ...bindings, [x.name]: e.target.value });
                }}>
                <option value="">Not bound</option>
                {options(x.type).map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
              <FieldError error={refusal} field={`variableBindings.${x.name}`} />
            </label>
          ))}
        </fieldset>
      ) : null}
      <label>
        Network name (optional; default the template's)
        <input {...invalid(refusal, 'name')} maxLength={64} value={name} onChange={(e) => setName(e.target.value)} />
        <FieldError error={refusal} field="name" />
      </label>
      <ActionError error={validate.error} />
      {v ? (
        <div className={`verdict ${v.valid ? 'valid' : 'invalid'}`} role="status" data-testid="template-validation">
          <strong>{v.valid ? 'Valid' : 'Not valid'}</strong>
          {v.errors.length ? (
            <ul>
              {v.errors.map((e, i) => (
                <li key={i}>
                  <code>{e.code}</code> {e.field}: {e.message}
                </li>
              ))}
            </ul>
          ) : null}
          {v.warnings.length ? (
            <ul>
              {v.warnings.map((w, i) => (
                <li key={i}>Warning: {w}</li>
              ))}
            </ul>
          ) : null}
          {v.valid && v.variables.length ? (
            <ul>
              {v.variables.map((x) => (
                <li key={x.name}>
                  {x.name} → <code>{JSON.stringify(x.resolved)}</code>
                </li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <ActionError error={imp.error} />
      {imp.data ? (
        <p className="verdict valid" role="status">
          Imported:{' '}
          <Link to={`/networks/${imp.data.platform.toLowerCase()}/${imp.data.network_id}`}>{imp.data.name}</Link>
          {imp.data.warnings?.length ? ` (warnings: ${imp.data.warnings.join('; ')})` : ''}
        </p>
      ) : null}
      <div className="actions">
        <button type="button" disabled={!template || validate.isPending} onClick={() => validate.mutate()}>
          Validate
        </button>
        <button type="submit" className="primary" disabled={!template || imp.isPending}>
          {imp.isPending ? 'Importing…' : 'Import'}
        </button>
      </div>
    </form>
  );
}
