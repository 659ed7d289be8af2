// Consortium quick start: one form (one or two organizations, orderers, peers per organization,
// channel name) that makes the network through the existing API calls, one step after the other:
// first the checks (POST /networks/consortium/quickstart/check: names free, Fabric programs
// present; a refusal makes nothing), then the organizations, the nodes (each must run), the network (channel), the orderers' and peers'
// joins and each organization's anchor peer. Each step is shown as it completes; a failed step
// says what failed and, for a node, the tail of its log (GET /nodes/{id}/logs).
// The run is recorded on a create (POST /creations, its calls carry creationId): a step that
// fails ends it as failed at that step, the page lists what it made (organizations, nodes, the
// network) and one button removes all of it with their keys (POST /creations/{id}/undo).
// With node hosts registered, all its peers and orderers can be placed on one (a Docker host or
// a Kubernetes cluster) or by labels: the check takes the placement, each node create carries it.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, getJson, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import { FieldError, invalid } from '../../components/states';
import { CreationUndo, type Creation } from '../../components/CreationUndo';
import { SmartBftOptionsFields, smartBftBody, type SmartBftValues } from './SmartBftOptions';
import { PlacementFields, usePlacement } from '../../components/Placement';

type StepState = 'running' | 'done' | 'failed';
interface Step {
  label: string;
  state: StepState;
  detail?: string;
  logTail?: string[];
}

interface MadeNode {
  id: number;
  name: string;
  status: string;
  error?: string | null;
  config?: { port?: number; externalEndpoint?: string };
}

class StepFailure extends Error {
  constructor(
    message: string,
    readonly logTail?: string[],
  ) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function logTail(nodeId: number): Promise<string[]> {
  try {
    const r = await getJson<{ lines: Array<string | { line?: string; message?: string }> }>(`/api/v1/nodes/${nodeId}/logs?tail=30`);
    return r.lines.map((l) => (typeof l === 'string' ? l : (l.line ?? l.message ?? JSON.stringify(l))));
  } catch (e) {
    return [`(the log could not be read: ${(e as Error).message})`];
  }
}

/** Retries a call the orderer refuses while it elects itself leader (409, 503), up to a minute. */
async function retried<T>(call: () => Promise<T>): Promise<T> {
  const until = Date.now() + 90_000;
  for (;;) {
    try {
      return await call();
    } catch (e) {
      if (!(e instanceof ApiError) || ![409, 503].includes(e.status) || Date.now() > until) throw e;
      await sleep(1_500);
    }
  }
}

export default function ConsortiumQuickStart() {
  const qc = useQueryClient();
  const [name, setName] = useState('quickstart');
  const [channel, setChannel] = useState('quickchannel');
  const [organizations, setOrganizations] = useState(1);
  const [msp1, setMsp1] = useState('Org1MSP');
  const [msp2, setMsp2] = useState('Org2MSP');
  const [orderers, setOrderers] = useState(1);
  const [peers, setPeers] = useState(1);
  const [consensus, setConsensus] = useState<'etcdraft' | 'smartbft'>('etcdraft');
  const [fabricVersion, setFabricVersion] = useState('');
  const [bftOptions, setBftOptions] = useState<SmartBftValues>({});
  // Where all its peers and orderers run (placement: checked for them all, then each node carries it).
  const where = usePlacement();
  const placement = where.placement;
  // The Fabric releases the service finds (newest first): the nodes run the one chosen.
  const defaults = useQuery({ queryKey: ['node-defaults', 'orderer', 'releases'], queryFn: () => unwrap(api.GET('/api/v1/nodes/defaults/consortium-orderer', { params: { query: {} } })) });
  const releases = (defaults.data as { fabricReleases?: string[] } | undefined)?.fabricReleases ?? [];
  const [steps, setSteps] = useState<Step[]>([]);
  const [running, setRunning] = useState(false);
  const [networkId, setNetworkId] = useState<number | null>(null);
  const [creation, setCreation] = useState<Creation | null>(null);
  const [readError, setReadError] = useState<string | null>(null);

  // The check's refusal: its fields are said beside the form's fields.
  const [refusal, setRefusal] = useState<unknown>(null);

  async function run() {
    setRunning(true);
    setNetworkId(null);
    setCreation(null);
    setReadError(null);
    let creationId: number | undefined;
    setRefusal(null);
    const done: Step[] = [];
    const show = () => setSteps([...done]);
    const step = async <T,>(label: string, work: () => Promise<T>, detail?: (t: T) => string): Promise<T> => {
      const s: Step = { label, state: 'running' };
      done.push(s);
      show();
      try {
        const t = await work();
        s.state = 'done';
        s.detail = detail?.(t);
        show();
        return t;
      } catch (e) {
        s.state = 'failed';
        s.detail = e instanceof ApiError ? `${e.message} (${e.code}, HTTP ${e.status})` : (e as Error).message;
        s.logTail = e instanceof StepFailure ? e.logTail : undefined;
        show();
        throw e;
      }
    };
    const makeNode = async (nodeName: string, nodeType: 'CONSORTIUM_PEER' | 'CONSORTIUM_ORDERER', organizationId: number) =>
      step(`${nodeType === 'CONSORTIUM_ORDERER' ? 'Orderer' : 'Peer'} ${nodeName} started`, async () => {
        const n = (await unwrap(api.POST('/api/v1/nodes', { body: { name: nodeName, platform: 'CONSORTIUM', nodeType, organizationId, config: { ...(fabricVersion && !placement ? { fabricVersion } : {}), ...(placement ?? {}) }, creationId } }))) as unknown as MadeNode;
        if (n.status !== 'running') throw new StepFailure(`${nodeName} is ${n.status}${n.error ? `: ${n.error}` : ''}`, await logTail(n.id));
        return n;
      }, (n) => `node #${n.id}${n.config?.port ? `, port ${n.config.port}` : ''}`);
    try {
      const msps = organizations === 2 ? [msp1, msp2] : [msp1];
      const orgName = (msp: string) => `${name}-${msp.replace(/MSP$/, '')}`;
      const ordererName = (i: number) => `${name}-orderer${i}`;
      const peerName = (i: number, msp: string) => `${name}-peer${i}-${msp.replace(/MSP$/, '').toLowerCase()}`;
      // Everything is checked before the first step makes anything: names free, Fabric programs here.
      const plannedNodes = [
        ...Array.from({ length: orderers }, (_, i) => ({ name: ordererName(i), nodeType: 'CONSORTIUM_ORDERER' as const })),
        ...msps.flatMap((msp) => Array.from({ length: peers }, (_, i) => ({ name: peerName(i, msp), nodeType: 'CONSORTIUM_PEER' as const }))),
      ];
      await step('Checked: names free, Fabric programs present (nothing made yet)', () =>
        unwrap(api.POST('/api/v1/networks/consortium/quickstart/check', { body: { name, channelName: channel, organizations: msps.map((msp) => ({ name: orgName(msp), mspId: msp })), nodes: plannedNodes, consensus, ...(fabricVersion && !placement ? { fabricVersion } : {}), ...(placement ? { placement } : {}) } })).catch((e: unknown) => {
          setRefusal(e);
          throw e;
        }),
      );
      // From here on what is made is recorded on the create, so that a failure can remove it.
      creationId = (await unwrap(api.POST('/api/v1/creations', { body: { kind: 'consortium-quickstart', name } }))).id;
      const orgs: Array<{ id: number; msp: string }> = [];
      for (const msp of msps) {
        const o = await step(`Organization ${msp} created`, () => unwrap(api.POST('/api/v1/organizations', { body: { name: orgName(msp), mspId: msp, creationId } })), (o) => `organization #${o.id}`);
        orgs.push({ id: o.id, msp });
      }
      const ordererNodes: MadeNode[] = [];
      // SmartBFT orderers are spread over the organizations (a BFT channel of one organization trusts one party).
      for (let i = 0; i < orderers; i++) ordererNodes.push(await makeNode(ordererName(i), 'CONSORTIUM_ORDERER', (consensus === 'smartbft' ? orgs[i % orgs.length] : orgs[0]).id));
      const peerNodes: Array<MadeNode & { msp: string }> = [];
      for (const o of orgs) for (let i = 0; i < peers; i++) peerNodes.push({ ...(await makeNode(peerName(i, o.msp), 'CONSORTIUM_PEER', o.id)), msp: o.msp });
      // A refused SmartBFT option is said beside its field (and the run stops there, its nodes removable below).
      const smartBftOptions = consensus === 'smartbft' ? smartBftBody(bftOptions) : undefined;
      const network = await step(`Network ${name} (channel ${channel}) created`, () =>
        unwrap(api.POST('/api/v1/networks/consortium', { body: { name, channelName: channel, consensus, ...(smartBftOptions ? { smartBftOptions } : {}), ordererIds: ordererNodes.map((n) => n.id), peerIds: peerNodes.map((n) => n.id), creationId } })).catch((e: unknown) => {
          setRefusal(e);
          throw e;
        }),
      (n) => `network #${n.id}`);
      const nid = network.id;
      for (const o of ordererNodes) await step(`Orderer ${o.name} joined`, () => unwrap(api.POST('/api/v1/networks/consortium/{id}/orderers/{ordererId}/join', { params: { path: { id: nid, ordererId: o.id } } })));
      for (const p of peerNodes) await step(`Peer ${p.name} joined`, () => retried(() => unwrap(api.POST('/api/v1/networks/consortium/{id}/peers/{peerId}/join', { params: { path: { id: nid, peerId: p.id } } }))));
      for (const o of orgs) {
        const anchor = peerNodes.find((p) => p.msp === o.msp)!;
        // A placed peer is reached at its host's address (its external endpoint), not this machine's.
        const external = placement ? anchor.config?.externalEndpoint?.match(/^(.+):(\d+)$/) : null;
        const anchorPeer = external ? { host: external[1], port: Number(external[2]) } : { host: '127.0.0.1', port: anchor.config?.port ?? 7051 };
        await step(`Anchor peer of ${o.msp} set (${anchor.name})`, () =>
          retried(() => unwrap(api.POST('/api/v1/networks/consortium/{id}/anchor-peers', { params: { path: { id: nid } }, body: { organizationId: o.msp, anchorPeers: [anchorPeer] } }))),
        );
      }
      await unwrap(api.POST('/api/v1/creations/{id}/end', { params: { path: { id: creationId } }, body: { outcome: 'COMPLETED', resourceId: nid } }));
      setNetworkId(nid);
    } catch {
      // The failed step is shown with its reason; the create is ended at that step and what it made listed.
      const failedStep = done.find((s) => s.state === 'failed');
      if (creationId !== undefined && failedStep) {
        try {
          await unwrap(api.POST('/api/v1/creations/{id}/end', { params: { path: { id: creationId } }, body: { outcome: 'FAILED', step: failedStep.label, message: failedStep.detail ?? 'failed' } }));
        } catch {
          // already ended (the service restarted and failed it as interrupted): what it made is still listed
        }
        try {
          setCreation(await unwrap(api.GET('/api/v1/creations/{id}', { params: { path: { id: creationId } } })));
        } catch (e) {
          setReadError(`What the quick start made could not be read: ${(e as Error).message}`);
        }
      }
    } finally {
      setRunning(false);
      await qc.invalidateQueries({ queryKey: ['networks'] });
      await qc.invalidateQueries({ queryKey: ['nodes'] });
    }
  }

  return (
    <section>
      <p className="crumbs">
        <Link to="/">Dashboard</Link> /
      </p>
      <h1>Quick start: a consortium network</h1>
      <form
        className="card form-grid"
        aria-labelledby="qs-title"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          if (!running && where.ready) void run();
        }}
      >
        <h2 id="qs-title">Organizations, nodes and channel</h2>
        <label>
          Network name
          <input {...invalid(refusal, 'name')} required maxLength={40} pattern="[a-z0-9][a-z0-9\-]*" value={name} onChange={(e) => setName(e.target.value)} />
          <FieldError error={refusal} field="name" />
        </label>
        <label>
          Channel name
          <input {...invalid(refusal, 'channelName')} required maxLength={249} pattern="[a-z][a-z0-9.\-]*" value={channel} onChange={(e) => setChannel(e.target.value)} />
          <FieldError error={refusal} field="channelName" />
        </label>
        <label>
          Organizations
          <select value={organizations} onChange={(e) => setOrganizations(Number(e.target.value))}>
            <option value={1}>One</option>
            <option value={2}>Two</option>
          </select>
        </label>
        <label>
          First organization MSP id
          <input {...invalid(refusal, 'organizations.0.mspId')} required maxLength={64} value={msp1} onChange={(e) => setMsp1(e.target.value)} />
          <FieldError error={refusal} field="organizations.0.mspId" />
        </label>
        {organizations === 2 ? (
          <label>
            Second organization MSP id
            <input {...invalid(refusal, 'organizations.1.mspId')} required maxLength={64} value={msp2} onChange={(e) => setMsp2(e.target.value)} />
            <FieldError error={refusal} field="organizations.1.mspId" />
          </label>
        ) : null}
        <label>
          Consensus
          <select value={consensus} onChange={(e) => { const c = e.target.value as 'etcdraft' | 'smartbft'; setConsensus(c); if (c === 'smartbft' && orderers < 4) setOrderers(4); }}>
            <option value="etcdraft">etcdraft (raft, crash faults)</option>
            <option value="smartbft">smartbft (BFT, Fabric 3.x, at least 4 orderers)</option>
          </select>
        </label>
        {releases.length > 1 ? (
          <label>
            Fabric release
            <select value={fabricVersion} onChange={(e) => setFabricVersion(e.target.value)}>
              <option value="">The newest ({releases[0]})</option>
              {releases.map((v) => (
                <option key={v} value={v}>
                  Fabric {v}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label>
          {consensus === 'smartbft' ? 'Orderers (SmartBFT, spread over the organizations; 4 tolerate one fault)' : 'Orderers (raft, of the first organization)'}
          <input type="number" min={consensus === 'smartbft' ? 4 : 1} max={7} required value={orderers} onChange={(e) => setOrderers(Number(e.target.value))} />
        </label>
        {consensus === 'smartbft' ? <SmartBftOptionsFields values={bftOptions} onChange={setBftOptions} error={refusal} /> : null}
        <label>
          Peers per organization
          <input type="number" min={1} max={4} required value={peers} onChange={(e) => setPeers(Number(e.target.value))} />
        </label>
        <PlacementFields choice={where} error={refusal} field="placement" idPrefix="quickstart" label="Where its peers and orderers run" />
        <div>
          <button type="submit" className="primary" disabled={running}>
            {running ? 'Working…' : 'Create the network'}
          </button>
        </div>
      </form>
      {steps.length > 0 ? (
        <>
          <h2>Steps</h2>
          <ol className="steps" aria-label="Quick start steps" aria-live="polite">
            {steps.map((s, i) => (
              <li key={i} data-state={s.state}>
                <strong>{s.state === 'done' ? 'Done' : s.state === 'failed' ? 'Failed' : 'Working'}:</strong> {s.label}
                {s.detail ? <> — {s.detail}</> : null}
                {s.logTail ? (
                  <>
                    <p>The node's last log lines:</p>
                    <pre className="code" aria-label={`Log tail of the failed step`}>{s.logTail.join('\n') || '(empty)'}</pre>
                  </>
                ) : null}
              </li>
            ))}
          </ol>
        </>
      ) : null}
      {creation ? <CreationUndo creation={creation} onChange={setCreation} /> : null}
      {readError ? (
        <p className="error" role="alert">
          {readError}
        </p>
      ) : null}
      {networkId !== null ? (
        <p className="verdict valid" role="status">
          The network is ready. <Link to={`/networks/consortium/${networkId}`}>Open the network {name}</Link>
        </p>
      ) : null}
    </section>
  );
}
