// One signing proposal of this instance (GET /nodesharing/proposals/{id}, evaluated against the
// channel's current config): what it changes (the diff computed when it was prepared, and the
// config paths its bytes write), the organizations whose admins count, whose signatures are
// collected (organization, signer, how, when) and which are missing, each unmet policy with how
// many more signatures it needs. Actions: download the update to sign elsewhere (the file
// `peer channel signconfigtx -f` signs), upload the signed file (a refusal's reason shown),
// submit (disabled, naming the missing organizations, while the policy is unmet; a stale
// proposal is said as "the channel config moved on, make a new proposal").
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../../api/client';
import { EditionPage } from '../../components/EditionGate';
import { ActionError, QueryView, FieldError, invalid } from '../../components/states';
import { When } from '../../components/format';
import { DataTable } from '../../components/DataTable';
import { fileBase64 } from '../../components/base64';
import { Can } from '../../session';
import { ConfigDiff, RejoinedOutcome, SignatureNeeds, type Rejoined } from '../networks/ConfigChangeReview';

export default function ProposalDetail() {
  const id = useParams().id ?? '';
  return (
    <EditionPage title={`Signing proposal ${id}`} needs="Signing proposals need" edition="pro">
      <p>
        <Link to="/sharing">All proposals (node sharing)</Link>
      </p>
      <ProposalBody id={id} />
    </EditionPage>
  );
}

const HOW: Record<string, string> = { admin: 'signed here (admin held by this instance)', upload: 'uploaded (detached signature)', peer: 'sent back by the sharing peer' };

function saveBytes(base64: string, filename: string): void {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  URL.revokeObjectURL(url);
}

function ProposalBody({ id }: { id: string }) {
  const q = useQuery({ queryKey: ['sharing', 'proposals', id], refetchInterval: 5_000, retry: false, queryFn: () => unwrap(api.GET('/api/v1/nodesharing/proposals/{id}', { params: { path: { id } } })) });
  return (
    <QueryView q={q} what="Evaluating the proposal against the channel's config">
      {(p) => (
        <>
          <dl className="facts">
            <dt>Channel</dt>
            <dd>
              {p.network_id ? <Link to={`/networks/consortium/${p.network_id}`}>{p.channel_name}</Link> : p.channel_name}
            </dd>
            <dt>Change</dt>
            <dd data-testid="proposal-kinds">{p.kinds.join(', ')}</dd>
            <dt>Asked to sign</dt>
            <dd>{p.description}</dd>
            <dt>Status</dt>
            <dd data-testid="proposal-state">{p.status}</dd>
            <dt>Proposed</dt>
            <dd>
              here, <When at={p.created_at} />
              {p.peer_id ? `, sent to sharing peer ${p.peer_id}` : ', signatures uploaded here'}
            </dd>
            <dt>Config sequence</dt>
            <dd>
              prepared against {p.prepared_sequence ?? '—'}, the channel is at {p.current_sequence ?? '—'}
            </dd>
          </dl>
          {p.stale ? (
            <p role="alert" className="action-error" data-testid="proposal-stale">
              The channel config moved on, make a new proposal: this one was prepared against sequence {p.prepared_sequence} and cannot be submitted.
            </p>
          ) : null}
          <h2>What it changes</h2>
          <ConfigDiff diff={p.diff as Array<{ path: string; before?: unknown; after?: unknown }>} />
          <p className="hint">
            Written by the update's bytes: <code>{p.changes.join(', ')}</code>
          </p>
          <h2>Signatures</h2>
          <SignatureNeeds required={p.required_organizations} held={p.signed_by} heldLabel="Collected" missing={p.missing_organizations} unmet={p.unmet} />
          <DataTable
            caption="Signatures collected"
            rows={p.signatures}
            rowKey={(s) => s.msp_id}
            empty="No signature collected yet."
            columns={[
              { header: 'Organization', cell: (s) => s.msp_id },
              { header: 'Signer', cell: (s) => s.signer ?? '—' },
              { header: 'How', cell: (s) => (s.source ? HOW[s.source] : '—') },
              { header: 'When', cell: (s) => <When at={s.at} /> },
            ]}
          />
          <Can permission="NETWORK_UPDATE">
            {p.status !== 'submitted' ? <SignElsewhere id={id} channelName={p.channel_name} missing={p.missing_organizations} /> : null}
            <Submit id={id} submitted={p.status === 'submitted'} satisfied={p.satisfied} stale={p.stale} missing={p.missing_organizations} rejoined={p.rejoined ?? null} />
          </Can>
        </>
      )}
    </QueryView>
  );
}

/** Download the update for an organization's admin to sign elsewhere; upload the signed file. */
function SignElsewhere({ id, channelName, missing }: { id: string; channelName: string; missing: string[] }) {
  const qc = useQueryClient();
  const [pasted, setPasted] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const download = useMutation({
    mutationFn: () => unwrap(api.GET('/api/v1/nodesharing/proposals/{id}/update', { params: { path: { id } } })),
    onSuccess: (f) => saveBytes(f.envelope, `${channelName}-${id}.tx`),
  });
  const upload = useMutation({
    mutationFn: async () => unwrap(api.POST('/api/v1/nodesharing/proposals/{id}/signatures', { params: { path: { id } }, body: { envelope: file ? await fileBase64(file) : pasted.replace(/\s+/g, '') } })),
    onSuccess: () => {
      setPasted('');
      setFile(null);
      return qc.invalidateQueries({ queryKey: ['sharing', 'proposals'] });
    },
  });
  return (
    <section className="card form-grid" aria-labelledby="sign-elsewhere-title">
      <h2 id="sign-elsewhere-title">Signatures from elsewhere</h2>
      <p className="hint">
        {missing.length ? `Missing: ${missing.join(', ')}. ` : ''}Download the update and have the organization's admin sign it where its key is:{' '}
        <code>peer channel signconfigtx -f {`${channelName}-${id}.tx`}</code> (with CORE_PEER_LOCALMSPID and CORE_PEER_MSPCONFIGPATH of that admin; no peer needed). Then upload the signed file here; it is verified against the
        organization's MSP in the channel.
      </p>
      <div>
        <button type="button" disabled={download.isPending} onClick={() => download.mutate()}>
          Download the update to sign
        </button>
      </div>
      <ActionError error={download.error} />
      <form
        className="form-grid"
        aria-label="Upload a detached signature"
        onSubmit={(e) => {
          e.preventDefault();
          upload.mutate();
        }}
      >
        <label>
          The signed file (from peer channel signconfigtx)
          <input type="file" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        </label>
        <label>
          Or the signed file as base64
          <textarea {...invalid(upload.error, 'envelope')} className="code" rows={3} spellCheck={false} value={pasted} onChange={(e) => setPasted(e.target.value)} />
          <FieldError error={upload.error} field="envelope" />
        </label>
        <div>
          <button type="submit" disabled={upload.isPending || (!file && !pasted.trim())}>
            {upload.isPending ? 'Verifying…' : 'Upload the signature'}
          </button>
        </div>
        {upload.error instanceof ApiError && upload.error.status === 400 ? (
          <p role="alert" className="action-error" data-testid="signature-refused">
            Refused: {upload.error.message}
          </p>
        ) : (
          <ActionError error={upload.error} />
        )}
        {upload.data ? (
          <p role="status" className="verdict valid">
            Added the signature of {upload.data.added.join(', ')}; signed so far by {upload.data.signed_by.join(', ')}.
          </p>
        ) : null}
      </form>
    </section>
  );
}

/** Kept mounted once submitted, so that the answer (sequence, block, who signed) stays shown. */
function Submit({ id, submitted, satisfied, stale, missing, rejoined }: { id: string; submitted: boolean; satisfied: boolean; stale: boolean; missing: string[]; rejoined: Rejoined | null }) {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/nodesharing/proposals/{id}/submit', { params: { path: { id } } })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['sharing', 'proposals'] }),
  });
  const err = m.error instanceof ApiError ? m.error : null;
  return (
    <section aria-labelledby="submit-title">
      <h2 id="submit-title">Submit</h2>
      {submitted && !m.data ? <p className="verdict valid" role="status">Submitted: the channel has this update.</p> : null}
      {!submitted && !satisfied && !stale ? (
        <p className="hint" data-testid="submit-waiting">
          Waiting for the signatures of {missing.join(', ') || 'the organizations the policy counts'}: the policy is not met yet.
        </p>
      ) : null}
      {!submitted || m.data ? (
        <button type="button" className="primary" disabled={m.isPending || !!m.data || submitted || !satisfied || stale} onClick={() => m.mutate()}>
          {m.isPending ? 'Submitting…' : 'Submit the update'}
        </button>
      ) : null}
      {err?.code === 'PROPOSAL_STALE' ? (
        <p role="alert" className="action-error">
          The channel config moved on, make a new proposal. <span className="muted">({err.message})</span>
        </p>
      ) : err?.code === 'SIGNATURES_MISSING' ? (
        <p role="alert" className="action-error">
          Not submitted: signatures still missing from {((err.context.missingOrganizations as string[] | undefined) ?? []).join(', ')}.
        </p>
      ) : (
        <ActionError error={m.error} />
      )}
      {m.data ? (
        <p role="status" className="verdict valid" data-testid="proposal-submitted">
          Submitted: configuration sequence {m.data.sequence}, block {m.data.block_number}, signed by {m.data.signed_by.join(', ')}.
        </p>
      ) : null}
      {/* The submit's answer, or what the proposal recorded of it (a removed BFT consenter's rejoin, said on every later visit). */}
      {(m.data?.rejoined ?? rejoined) ? <RejoinedOutcome rejoined={(m.data?.rejoined ?? rejoined)!} /> : null}
    </section>
  );
}
