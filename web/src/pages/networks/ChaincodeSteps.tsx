// The chaincode lifecycle one step at a time, beside the one-click deploy: a recorded chaincode
// installed on a chosen peer (POST /sc/consortium/peer/{peerId}/chaincode/install), approved for
// that peer's organization (.../approve), committed (.../commit). Every answer is listed in
// order, a refusal with its status, code and reason (a 409 names the step missing before it, or
// the organizations whose approval is missing).
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../../api/client';
import { POLL_MS } from '../../api/queries';
import type { ChaincodeRecord } from './Chaincode';

type Step = 'install' | 'approve' | 'commit';

const STEP_LABEL: Record<Step, string> = { install: 'Install', approve: 'Approve', commit: 'Commit' };

/** The fields of the three answers the page reads (http/routes/consortium/consortiumChaincodes.ts). */
interface StepAnswer {
  peer_name?: string;
  msp_id?: string;
  package_id?: string;
  already_installed?: boolean;
  status?: string;
  sequence?: number;
  tx_id?: string | null;
  block_number?: number | null;
  approved_by?: string[];
  server_status?: string;
}

interface Outcome {
  n: number;
  step: Step;
  chaincode: string;
  peer: string;
  answer?: StepAnswer;
  error?: unknown;
}

function summary(o: Outcome): string {
  const a = o.answer!;
  if (o.step === 'install') return `Installed on ${a.peer_name ?? o.peer} (${a.msp_id ?? '?'})${a.already_installed ? ', already there' : ''}: package ${a.package_id}`;
  const tx = a.tx_id ? `, transaction ${a.tx_id} in block #${a.block_number}` : '';
  if (o.step === 'approve') return `Approve for ${a.msp_id}: ${a.status} (sequence ${a.sequence})${tx}`;
  return `Commit: ${a.status} (sequence ${a.sequence}), approved by ${(a.approved_by ?? []).join(', ') || '—'}${tx}; chaincode server ${a.server_status ?? '—'}`;
}

function Refusal({ error }: { error: unknown }) {
  if (!(error instanceof ApiError)) return <>Failed: {(error as Error)?.message ?? String(error)}</>;
  return (
    <>
      Refused (HTTP {error.status}, {error.code}): {error.message}
      {error.details.length ? <> ({error.details.map((d) => `${d.field}: ${d.message}`).join('; ')})</> : null}
    </>
  );
}

export function ChaincodeSteps({ networkId, chaincodes }: { networkId: number; chaincodes: ChaincodeRecord[] }) {
  const qc = useQueryClient();
  const nodes = useQuery({ queryKey: ['nodes', 'consortium', networkId], refetchInterval: POLL_MS, queryFn: () => unwrap(api.GET('/api/v1/networks/consortium/{id}/nodes', { params: { path: { id: networkId } } })) });
  const peers = (nodes.data?.items ?? []).filter((n) => n.nodeType.includes('PEER'));
  const [chaincodeId, setChaincodeId] = useState<number | null>(null);
  const [peerId, setPeerId] = useState<number | null>(null);
  const [outcomes, setOutcomes] = useState<Outcome[]>([]);
  const chaincode = chaincodes.find((c) => c.id === chaincodeId) ?? chaincodes[0];
  const peer = peers.find((p) => p.id === peerId) ?? peers[0];
  const m = useMutation({
    mutationFn: async ({ step, chaincodeId, peerId }: { step: Step; chaincodeId: number; peerId: number; chaincode: string; peer: string }) => {
      const init = { params: { path: { peerId } }, body: { chaincodeId } };
      const call =
        step === 'install'
          ? api.POST('/api/v1/sc/consortium/peer/{peerId}/chaincode/install', init)
          : step === 'approve'
            ? api.POST('/api/v1/sc/consortium/peer/{peerId}/chaincode/approve', init)
            : api.POST('/api/v1/sc/consortium/peer/{peerId}/chaincode/commit', init);
      return (await unwrap(call as Promise<{ data?: unknown; error?: unknown; response: Response }>)) as StepAnswer;
    },
    onSettled: (answer, error, v) => {
      setOutcomes((list) => [...list, { n: list.length + 1, step: v.step, chaincode: v.chaincode, peer: v.peer, ...(error ? { error } : { answer }) }]);
      void qc.invalidateQueries({ queryKey: ['chaincodes', networkId] });
      void qc.invalidateQueries({ queryKey: ['nodes'] });
    },
  });
  const run = (step: Step) => {
    if (chaincode && peer) m.mutate({ step, chaincodeId: chaincode.id, peerId: peer.id, chaincode: `${chaincode.name} ${chaincode.version}`, peer: peer.name });
  };
  return (
    <section className="card form-grid" aria-labelledby="cc-steps-title">
      <h3 id="cc-steps-title">Step by step</h3>
      <p className="hint">
        The lifecycle one step at a time: install the package on a peer, approve the definition for that peer's organization, then commit it once enough organizations approved (a chaincode deployed in one click takes all three).
      </p>
      <label>
        Chaincode record
        <select value={chaincode?.id ?? ''} onChange={(e) => setChaincodeId(Number(e.target.value))}>
          {chaincodes.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name} {c.version} (sequence {c.sequence}, {c.status})
            </option>
          ))}
        </select>
      </label>
      <label>
        Peer (its organization approves)
        <select value={peer?.id ?? ''} onChange={(e) => setPeerId(Number(e.target.value))} disabled={peers.length === 0}>
          {peers.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name} ({p.msp_id}, {p.status}
              {p.networks.find((x) => x.network_id === networkId)?.joined ? ', joined' : ', not joined'})
            </option>
          ))}
        </select>
      </label>
      {peers.length === 0 && !nodes.isPending ? <p className="muted">The network has no peer yet.</p> : null}
      <div>
        {(['install', 'approve', 'commit'] as const).map((s) => (
          <span key={s}>
            <button type="button" disabled={m.isPending || !chaincode || !peer} onClick={() => run(s)}>
              {m.isPending && m.variables?.step === s ? `${STEP_LABEL[s]}…` : s === 'install' ? 'Install on the peer' : s === 'approve' ? 'Approve for its organization' : 'Commit'}
            </button>{' '}
          </span>
        ))}
      </div>
      {outcomes.length ? (
        <ol className="step-answers" aria-label="Step answers" aria-live="polite">
          {outcomes.map((o) => (
            <li key={o.n} className={`verdict ${o.error ? 'invalid' : 'valid'}`} data-testid="step-answer" data-step={o.step}>
              <strong>
                {STEP_LABEL[o.step]} {o.chaincode} on {o.peer}:
              </strong>{' '}
              <span data-testid="step-outcome">{o.error ? <Refusal error={o.error} /> : summary(o)}</span>
              {o.answer ? (
                <details>
                  <summary>Answer</summary>
                  <pre className="code">{JSON.stringify(o.answer, null, 2)}</pre>
                </details>
              ) : null}
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}
