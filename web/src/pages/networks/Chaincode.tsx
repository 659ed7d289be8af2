// Chaincode on a consortium network: the chaincodes recorded for it, deploy one (the sample: the
// asset registry of samples/chaincode/asset-registry, bundled as text; a Node.js chaincode's
// .tar.gz archive picked from disk; or a chaincode-as-a-service image on the Docker host):
// POST /sc/consortium/deploy installs it on every peer of the organizations held, approves,
// commits and starts its server; or only record it and take the lifecycle steps one at a time,
// ChaincodeSteps.tsx), and invoke or query a committed chaincode, showing the answer.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, getJson, unwrap } from '../../api/client';
import { useSession } from '../../session';
import { ActionError, QueryView, FieldError, invalid } from '../../components/states';
import { DataTable } from '../../components/DataTable';
import { ChaincodeSteps } from './ChaincodeSteps';
import { ShareChaincode } from './ShareChaincode';
import { fileBase64 } from '../../components/base64';
import { When } from '../../components/format';
import { ChaincodeServerRenew } from './ChaincodeServerRenew';
import { PlacementFields, usePlacement } from '../../components/Placement';
import samplePackage from '../../../../samples/chaincode/asset-registry/package.json?raw';
import sampleSource from '../../../../samples/chaincode/asset-registry/assetRegistry.ts?raw';

export interface ChaincodeRecord {
  id: number;
  name: string;
  version: string;
  sequence: number;
  status: string;
  endorsement_policy: string | null;
  shared_from: { peer_id: number; instance_id: string; chaincode_id: number } | null;
  server_node_id: number | null;
  server_tls: { server_certificate: TlsCertificate; peer_client_certificate: TlsCertificate | null } | null;
}
interface TlsCertificate {
  key_id: number;
  serial_number: string | null;
  not_after: string | null;
  expiry_status: string;
}
interface DeployAnswer {
  chaincode_id: number;
  sequence: number;
  package_id: string;
  commit: { status: string; tx_id?: string };
  server?: { status: string; node_id: number };
}
interface TxAnswer {
  result?: string;
  result_json?: unknown;
  tx_id?: string;
  validation_code?: string;
  block_number?: number;
  msp_id?: string;
}

const SAMPLE_FILES = [
  { path: 'package.json', content: samplePackage },
  { path: 'assetRegistry.ts', content: sampleSource },
];

export function Chaincodes({ networkId }: { networkId: number }) {
  const { can } = useSession();
  const list = useQuery({ queryKey: ['chaincodes', networkId], refetchInterval: 5_000, queryFn: () => getJson<{ items: ChaincodeRecord[]; total: number }>(`/api/v1/sc/consortium/chaincodes?networkId=${networkId}&limit=100`) });
  const committed = list.data?.items.filter((c) => c.status === 'committed') ?? [];
  const [renewing, setRenewing] = useState<ChaincodeRecord | null>(null);
  return (
    <>
      <h2>Chaincode</h2>
      <QueryView q={list} what="Loading chaincodes">
        {(d) => (
          <DataTable
            caption="Chaincodes of the network"
            empty="No chaincode on this network yet."
            rows={d.items}
            rowKey={(c) => c.id}
            columns={[
              { header: 'Name', cell: (c) => c.name },
              { header: 'Version', cell: (c) => c.version },
              { header: 'Sequence', cell: (c) => c.sequence },
              { header: 'Status', cell: (c) => c.status },
              { header: 'Endorsement policy', cell: (c) => <>{c.endorsement_policy ? <code>{c.endorsement_policy}</code> : 'default'}</> },
              { header: 'Defined by', cell: (c) => (c.shared_from ? <>instance <code>{c.shared_from.instance_id}</code> (shared)</> : 'this instance') },
              { header: 'Server TLS', cell: (c) => <ServerTls chaincode={c} onRenew={can('CERTIFICATE_RENEW') ? () => setRenewing(c) : undefined} /> },
            ]}
          />
        )}
      </QueryView>
      {renewing ? <ChaincodeServerRenew key={renewing.id} chaincodeId={renewing.id} what={`the server of ${renewing.name} ${renewing.version}`} onDone={() => setRenewing(null)} /> : null}
      {can('CHAINCODE_MANAGE') ? <DeployChaincode networkId={networkId} /> : null}
      {can('CHAINCODE_MANAGE') && (list.data?.items.length ?? 0) > 0 ? <ChaincodeSteps networkId={networkId} chaincodes={list.data!.items} /> : null}
      {can('CHAINCODE_MANAGE') && list.data?.items.some((c) => !c.shared_from) ? <ShareChaincode chaincodes={list.data.items.filter((c) => !c.shared_from)} /> : null}
      {can('CHAINCODE_INVOKE') && committed.length > 0 ? <RunTransaction chaincodes={committed} /> : null}
    </>
  );
}

/** The chaincode server's TLS: its certificate's expiry (and the peers' client certificate's), or why it has none. */
function ServerTls({ chaincode: c, onRenew }: { chaincode: ChaincodeRecord; onRenew?: () => void }) {
  if (!c.server_node_id) return <span className="muted">no server yet</span>;
  if (!c.server_tls) return <>plain text</>;
  const s = c.server_tls.server_certificate;
  const client = c.server_tls.peer_client_certificate;
  return (
    <span data-testid={`server-tls-${c.id}`}>
      mutual TLS, certificate <code className="hash">{s.serial_number}</code> expires <When at={s.not_after} /> <span className={`badge expiry-${s.expiry_status}`}>{s.expiry_status}</span>
      {client ? (
        <>
          ; peers' client certificate expires <When at={client.not_after} />
        </>
      ) : null}
      {onRenew ? (
        <>
          {' '}
          <button type="button" aria-label={`Renew the server certificate of ${c.name} ${c.version}`} onClick={onRenew}>
            Renew
          </button>
        </>
      ) : null}
    </span>
  );
}

type Source = 'sample' | 'archive' | 'image';

const MAX_ARCHIVE = 7 * 1024 * 1024; // 10 MB of base64 text, the API's limit

function DeployChaincode({ networkId }: { networkId: number }) {
  const qc = useQueryClient();
  const [source, setSource] = useState<Source>('sample');
  const [name, setName] = useState('assets');
  const [version, setVersion] = useState('1.0');
  const [policy, setPolicy] = useState('');
  const [archive, setArchive] = useState<File | null>(null);
  const [image, setImage] = useState('');
  const [tls, setTls] = useState(true);
  const where = usePlacement();
  const m = useMutation({
    mutationFn: async (mode: 'deploy' | 'record'): Promise<{ mode: 'deploy'; answer: DeployAnswer } | { mode: 'record'; answer: ChaincodeRecord }> => {
      let src: { files: typeof SAMPLE_FILES } | { archive: string } | { image: string };
      if (source === 'sample') src = { files: SAMPLE_FILES };
      else if (source === 'archive') {
        if (!archive) throw new Error('Pick the chaincode\'s .tar.gz archive.');
        if (archive.size > MAX_ARCHIVE) throw new Error(`The archive is ${archive.size} bytes; at most ${MAX_ARCHIVE} bytes can be sent.`);
        src = { archive: await fileBase64(archive) };
      } else src = { image: image.trim() };
      // The chaincode server goes on a registered Kubernetes cluster ({hostId}) or, by default, with the owner organization's peers.
      const placement = where.placement && 'hostId' in where.placement ? { placement: { hostId: where.placement.hostId } } : {};
      // TLS on is the API's default, left out so that redeploying a version recorded before TLS existed still matches it.
      const body = { networkId, name, version, ...(policy.trim() ? { endorsementPolicy: policy.trim() } : {}), ...(tls ? {} : { tls: false }), ...placement, source: src };
      if (mode === 'record') return { mode, answer: (await unwrap(api.POST('/api/v1/sc/consortium/chaincodes', { body }))) as unknown as ChaincodeRecord };
      return { mode, answer: (await unwrap(api.POST('/api/v1/sc/consortium/deploy', { body }))) as unknown as DeployAnswer };
    },
    onSettled: () => qc.invalidateQueries({ queryKey: ['chaincodes', networkId] }),
  });
  return (
    <form
      className="card form-grid"
      aria-labelledby="cc-deploy-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate('deploy');
      }}
    >
      <h3 id="cc-deploy-title">Deploy a chaincode</h3>
      <label>
        Source
        <select
          value={source}
          onChange={(e) => {
            setSource(e.target.value as Source);
            m.reset();
          }}
        >
          <option value="sample">The sample chaincode (asset registry, Node.js)</option>
          <option value="archive">A Node.js chaincode archive (.tar.gz with package.json)</option>
          <option value="image">A chaincode-as-a-service container image (Docker)</option>
        </select>
      </label>
      {source === 'archive' ? (
        <label>
          Archive (.tar.gz: package.json and its .js or .ts files)
          <input {...invalid(m.error, 'source.archive')} type="file" required accept=".tgz,.tar.gz,application/gzip" onChange={(e) => setArchive(e.target.files?.[0] ?? null)} />
          <FieldError error={m.error} field="source.archive" />
        </label>
      ) : null}
      {source === 'image' ? (
        <label>
          Image (on the Docker host; it runs the chaincode server, reading CHAINCODE_ID and CHAINCODE_SERVER_ADDRESS)
          <input {...invalid(m.error, 'source.image')} className="code" required maxLength={255} value={image} onChange={(e) => setImage(e.target.value)} placeholder="example/asset-ccaas:1.0" />
          <FieldError error={m.error} field="source.image" />
        </label>
      ) : null}
      <label>
        Chaincode name
        <input {...invalid(m.error, 'name')} required maxLength={63} pattern="[A-Za-z0-9][A-Za-z0-9_.+\-]*" value={name} onChange={(e) => setName(e.target.value)} />
        <FieldError error={m.error} field="name" />
      </label>
      <label>
        Version
        <input {...invalid(m.error, 'version')} required maxLength={64} value={version} onChange={(e) => setVersion(e.target.value)} />
        <FieldError error={m.error} field="version" />
      </label>
      <label>
        Endorsement policy (optional)
        <input {...invalid(m.error, 'endorsementPolicy')} className="code" value={policy} onChange={(e) => setPolicy(e.target.value)} placeholder="AND('Org1MSP.peer','Org2MSP.peer')" />
        <FieldError error={m.error} field="endorsementPolicy" />
      </label>
      <label>
        <input type="checkbox" checked={tls} onChange={(e) => setTls(e.target.checked)} aria-describedby="cc-tls-help" /> Mutual TLS between the peers and the chaincode server
      </label>
      <small id="cc-tls-help">
        {tls
          ? "The server's certificate and the peers' client certificate are issued by the organization's TLS CA."
          : 'Plain text: only for a chaincode server that cannot take TLS. Fixed for this version.'}
      </small>
      <PlacementFields choice={where} error={m.error} field="placement" idPrefix="cc-deploy" label="Where its chaincode server runs" only="kubernetes" defaultLabel="With the organization's peers (their cluster, else this machine)" />
      <ActionError error={m.error} />
      {m.data?.mode === 'deploy' ? (
        <p className="verdict valid" role="status">
          Deployed {name} {version} (sequence {m.data.answer.sequence}): commit {m.data.answer.commit.status}
          {m.data.answer.server ? <>, server {m.data.answer.server.status}</> : null}. Package <code className="hash">{m.data.answer.package_id}</code>
        </p>
      ) : null}
      {m.data?.mode === 'record' ? (
        <p className="verdict valid" role="status">
          Recorded {m.data.answer.name} {m.data.answer.version} (sequence {m.data.answer.sequence}): install, approve and commit it step by step below.
        </p>
      ) : null}
      <div>
        <button type="submit" className="primary" disabled={m.isPending}>
          {m.isPending && m.variables === 'deploy' ? 'Deploying… (install, approve, commit)' : source === 'sample' ? 'Deploy sample' : 'Deploy'}
        </button>{' '}
        <button type="button" disabled={m.isPending} onClick={(e) => (e.currentTarget.form?.reportValidity() ?? true) && m.mutate('record')}>
          Record only (steps below)
        </button>
      </div>
    </form>
  );
}

function parseArgs(text: string): string[] {
  if (!text.trim()) return [];
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new Error('Arguments are not valid JSON.');
  }
  if (!Array.isArray(v)) throw new Error('Arguments must be a JSON array.');
  return v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
}

function RunTransaction({ chaincodes }: { chaincodes: ChaincodeRecord[] }) {
  const [chaincodeId, setChaincodeId] = useState(chaincodes[0].id);
  const [fn, setFn] = useState('');
  const [args, setArgs] = useState('');
  const [organization, setOrganization] = useState('');
  const m = useMutation({
    mutationFn: async (kind: 'invoke' | 'query') => {
      const body = { function: fn, args: parseArgs(args), ...(organization.trim() ? { organization: organization.trim() } : {}) };
      const id = chaincodes.some((c) => c.id === chaincodeId) ? chaincodeId : chaincodes[0].id;
      const call =
        kind === 'invoke'
          ? api.POST('/api/v1/sc/consortium/chaincodes/{chaincodeId}/invoke', { params: { path: { chaincodeId: id } }, body })
          : api.POST('/api/v1/sc/consortium/chaincodes/{chaincodeId}/query', { params: { path: { chaincodeId: id } }, body });
      return { kind, answer: (await unwrap(call as Promise<{ data?: unknown; error?: unknown; response: Response }>)) as TxAnswer };
    },
  });
  const submit = (kind: 'invoke' | 'query') => (e?: FormEvent) => {
    e?.preventDefault();
    m.mutate(kind);
  };
  const a = m.data?.answer;
  return (
    <form className="card form-grid" aria-labelledby="cc-run-title" onSubmit={submit('query')}>
      <h3 id="cc-run-title">Invoke or query</h3>
      <label>
        Chaincode
        <select value={chaincodeId} onChange={(e) => setChaincodeId(Number(e.target.value))}>
          {chaincodes.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name} {c.version}
            </option>
          ))}
        </select>
      </label>
      <label>
        Function
        <input {...invalid(m.error, 'function')} required maxLength={256} value={fn} onChange={(e) => setFn(e.target.value)} placeholder="ReadAsset" />
        <FieldError error={m.error} field="function" />
      </label>
      <label>
        Arguments (JSON array)
        <input {...invalid(m.error, 'args')} className="code" value={args} onChange={(e) => setArgs(e.target.value)} placeholder='["asset1"]' />
        <FieldError error={m.error} field="args" />
      </label>
      <label>
        Organization (MSP id, optional)
        <input {...invalid(m.error, 'organization')} value={organization} onChange={(e) => setOrganization(e.target.value)} />
        <FieldError error={m.error} field="organization" />
      </label>
      <ActionError error={m.error} />
      {a ? (
        <div className="verdict valid" role="status" aria-label="Chaincode answer">
          <p>
            {m.data?.kind === 'invoke' ? (
              <>
                Invoked: {a.validation_code} in block #{a.block_number}, transaction <code className="hash">{a.tx_id}</code>
              </>
            ) : (
              <>Query answered{a.msp_id ? ` (as ${a.msp_id})` : ''}</>
            )}
          </p>
          <pre className="code" data-testid="chaincode-result">{a.result_json !== undefined ? JSON.stringify(a.result_json, null, 2) : (a.result ?? '')}</pre>
        </div>
      ) : null}
      <div>
        <button type="button" className="primary" disabled={m.isPending || !fn} onClick={() => submit('invoke')()}>
          Invoke (submit)
        </button>{' '}
        <button type="submit" disabled={m.isPending || !fn}>
          Query (evaluate)
        </button>
      </div>
    </form>
  );
}
