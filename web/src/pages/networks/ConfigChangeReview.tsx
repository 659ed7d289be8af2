// A channel config change reviewed before it is sent: the dry run's diff (?dry_run=true) and whose
// admin signatures it needs (required, held by this service, missing, and each unmet policy with
// how many more signatures it needs). When signatures are missing, "Ask the other organizations
// to sign" makes it a signing proposal (POST /nodesharing/proposals, the same change) sent to the
// sharing peer holding them, or kept here for detached signatures; the proposal's page
// (/sharing/proposals/{id}) collects them and submits it. Used by the channel page's forms and
// the consenter, organization and MSP changes.
import { useEffect, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type paths } from '../../api/client';
import { ActionError, QueryView } from '../../components/states';
import { Can } from '../../session';

/** The change a signing proposal carries: one of the channel's change types. */
export type ProposalChange = NonNullable<NonNullable<paths['/api/v1/nodesharing/proposals']['post']['requestBody']>['content']['application/json']['change']>;

export interface Unmet {
  policy_path: string;
  rule: string;
  missing_organizations: string[];
  more_needed: number;
}

export interface ChangeView {
  status: string;
  sequence: number;
  block_number: number | null;
  signed_by: string[];
  diff: Array<{ path: string; before?: unknown; after?: unknown }>;
  missing_organizations: string[];
  required_organizations?: string[];
  held_organizations?: string[];
  unmet?: Unmet[];
  /** A removed BFT consenter brought back as a follower (its channel left, joined again with the newest config block); null when not done. */
  rejoined?: Rejoined | null;
}

export interface Rejoined {
  steps: string[];
  status: string;
  consensus_relation: string;
  height: number;
}

/** What became of a removed BFT consenter: rejoined as a follower (what its channel participation API says), or what is left to do. */
export function RejoinedOutcome({ rejoined }: { rejoined: Rejoined }) {
  const follower = rejoined.consensus_relation === 'follower';
  return (
    <div data-testid="rejoined" role="status">
      <p className={follower ? 'verdict valid' : 'verdict invalid'}>
        {follower
          ? `The orderer rejoined the channel as a follower (${rejoined.status}, height ${rejoined.height}): it keeps pulling the chain but no longer orders; add it as consenter again to have it order.`
          : `The orderer was not rejoined as a follower: its channel participation API says ${rejoined.consensus_relation}, ${rejoined.status}, height ${rejoined.height}.`}
      </p>
      <ol data-testid="rejoined-steps">
        {rejoined.steps.map((step, i) => (
          <li key={i}>{step}</li>
        ))}
      </ol>
    </div>
  );
}

export const short = (v: unknown) => {
  // A consenter (or any endpoint object) is said by its endpoint first: its certificates would fill the cell.
  if (v && typeof v === 'object' && 'host' in v && 'port' in v) {
    const o = v as Record<string, unknown>;
    const rest = Object.keys(o).filter((k) => k !== 'host' && k !== 'port');
    return `${String(o.host)}:${String(o.port)}${rest.length ? ` with ${rest.join(', ')}` : ''}`;
  }
  const s = JSON.stringify(v);
  return s === undefined || s === 'null' ? '—' : s.length > 140 ? `${s.slice(0, 140)}…` : s;
};

/** The config diff of a prepared or previewed update. */
export function ConfigDiff({ diff }: { diff: ChangeView['diff'] }) {
  if (!diff.length) return <p className="muted">Nothing would change.</p>;
  return (
    <table data-testid="config-diff">
      <caption>What the update changes</caption>
      <thead>
        <tr>
          <th>Config path</th>
          <th>Before</th>
          <th>After</th>
        </tr>
      </thead>
      <tbody>
        {diff.map((d, i) => (
          <tr key={i}>
            <td>
              <code>{d.path}</code>
            </td>
            <td>{short(d.before)}</td>
            <td>{short(d.after)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Required, held (or collected) and missing organizations, and each unmet policy with how many more it needs. */
export function SignatureNeeds({ required, held, heldLabel, missing, unmet }: { required: string[]; held: string[]; heldLabel: string; missing: string[]; unmet: Unmet[] }) {
  return (
    <dl className="facts" data-testid="signature-needs">
      <dt>Organizations whose admins count</dt>
      <dd data-testid="required-organizations">{required.join(', ') || '—'}</dd>
      <dt>{heldLabel}</dt>
      <dd data-testid="held-organizations">{held.join(', ') || 'none'}</dd>
      <dt>Missing</dt>
      <dd data-testid="missing-organizations">{missing.join(', ') || 'none'}</dd>
      {unmet.length ? (
        <>
          <dt>Unmet policies</dt>
          <dd data-testid="unmet-policies">
            {unmet.map((u) => (
              <p key={u.policy_path}>
                {u.policy_path} ({u.rule}): {u.more_needed} more signature{u.more_needed === 1 ? '' : 's'} needed, from {u.missing_organizations.join(' or ')}
              </p>
            ))}
          </dd>
        </>
      ) : null}
    </dl>
  );
}

type Created = { status: string; proposal_id: string | null; missing_organizations: string[]; signed_by?: string[] };

/** A change this service cannot sign alone, made a signing proposal: sent to the sharing peer holding the missing organizations, or kept here for detached signatures. */
export function AskToSign({ networkId, change, missing }: { networkId: number; change: ProposalChange; missing: string[] }) {
  const qc = useQueryClient();
  const [collect, setCollect] = useState<'peer' | 'upload'>('peer');
  const [description, setDescription] = useState('');
  const m = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/nodesharing/proposals', { body: { network_id: networkId, change, collect, ...(description.trim() ? { description: description.trim() } : {}) } })) as Promise<unknown> as Promise<Created>,
    onSuccess: () => qc.invalidateQueries({ queryKey: ['sharing', 'proposals'] }),
  });
  return (
    <Can permission="NETWORK_UPDATE">
      <div role="group" aria-label="Ask the other organizations to sign" className="card" data-testid="ask-to-sign">
        <p>
          This service does not hold the admins of {missing.join(', ')}. Make it a signing proposal: the admins held here sign it now, the others sign it on their instance or
          upload a detached signature, and it is submitted from the proposal's page once the policy is met.
        </p>
        <fieldset>
          <legend>Where the missing signatures come from</legend>
          <label className="inline">
            <input type="radio" name={`collect-${networkId}`} checked={collect === 'peer'} onChange={() => setCollect('peer')} /> The sharing peer instance holding them
          </label>
          <label className="inline">
            <input type="radio" name={`collect-${networkId}`} checked={collect === 'upload'} onChange={() => setCollect('upload')} /> Detached signatures uploaded here (peer channel signconfigtx)
          </label>
        </fieldset>
        <label>
          What the signers are asked to sign (optional)
          <input value={description} maxLength={1000} onChange={(e) => setDescription(e.target.value)} />
        </label>
        <div>
          <button type="button" className="primary" disabled={m.isPending || !!m.data} onClick={() => m.mutate()}>
            {m.isPending ? 'Preparing the proposal…' : 'Ask the other organizations to sign'}
          </button>
        </div>
        <ActionError error={m.error} />
        {m.data?.proposal_id ? (
          <p role="status" className="verdict valid" data-testid="proposal-created">
            Proposal {m.data.proposal_id}: signed by {(m.data.signed_by ?? []).join(', ') || 'no one yet'}, waiting for {m.data.missing_organizations.join(', ')}.{' '}
            <Link to={`/sharing/proposals/${encodeURIComponent(m.data.proposal_id)}`}>Open the proposal</Link>
          </p>
        ) : m.data ? (
          <p role="status">Nothing to change: the channel already has this configuration.</p>
        ) : null}
      </div>
    </Can>
  );
}

/**
 * A change computed as a dry run first (its diff and whose signatures it needs), then submitted, or
 * made a signing proposal when signatures are missing. A refused dry run is the panel's error state,
 * unless the form says it itself: `onPreviewError` hands the refusal to the form (its fields'
 * FieldErrors; this panel then says only what no field shows), `refusal` draws it.
 */
export function DryRunChange({ networkId, label, what, send, done, proposal, invalidate = [], onPreviewError, refusal }: { networkId: number; label: string; what: string; send: (dryRun: boolean) => Promise<ChangeView>; done: () => void; proposal?: ProposalChange; invalidate?: unknown[][]; onPreviewError?: (error: unknown) => void; refusal?: (error: unknown) => ReactNode }) {
  const qc = useQueryClient();
  const preview = useQuery({ queryKey: ['config-dry-run', networkId, what], retry: false, gcTime: 0, queryFn: () => send(true) });
  useEffect(() => onPreviewError?.(preview.error), [preview.error, onPreviewError]);
  const submit = useMutation({
    mutationFn: () => send(false),
    onSuccess: () => {
      for (const key of [['consenters', networkId], ['channel-config', networkId], ['network', 'consortium', networkId], ['network-map', networkId], ...invalidate]) void qc.invalidateQueries({ queryKey: key });
    },
  });
  if (preview.error && (onPreviewError || refusal)) {
    return (
      <div role="form" aria-label={label} data-testid="config-change">
        <h4>{label}</h4>
        {refusal?.(preview.error) ?? <ActionError error={preview.error} />}
        <p className="muted">Nothing was submitted.</p>
        <button type="button" onClick={done}>
          Close
        </button>
      </div>
    );
  }
  return (
    <div role="form" aria-label={label} data-testid="config-change">
      <h4>{label}</h4>
      <QueryView q={preview} what="Computing the config update (dry run)">
        {(p) => (
          <>
            {p.status === 'unchanged' ? <p className="muted">Nothing would change.</p> : <ConfigDiff diff={p.diff} />}
            {p.required_organizations ? <SignatureNeeds required={p.required_organizations} held={p.held_organizations ?? []} heldLabel="Held by this service (signs at once)" missing={p.missing_organizations} unmet={p.unmet ?? []} /> : null}
            {p.missing_organizations.length ? <p role="alert">Needs admin signatures this service does not hold: {p.missing_organizations.join(', ')}.</p> : null}
            {p.missing_organizations.length && proposal && p.diff.length ? (
              <AskToSign networkId={networkId} change={proposal} missing={p.missing_organizations} />
            ) : (
              <button type="button" disabled={submit.isPending || !!submit.data || p.diff.length === 0} onClick={() => submit.mutate()}>
                Submit
              </button>
            )}{' '}
            <button type="button" onClick={done}>
              Close
            </button>
            {submit.error ? <ActionError error={submit.error} /> : null}
            {submit.data ? (
              <p className="verdict valid" role="status" data-testid="consenter-outcome">
                {submit.data.status === 'unchanged' ? 'Nothing changed.' : `Updated: configuration sequence ${submit.data.sequence}, block ${submit.data.block_number}, signed by ${submit.data.signed_by.join(', ')}.`}
              </p>
            ) : null}
            {submit.data?.rejoined ? <RejoinedOutcome rejoined={submit.data.rejoined} /> : null}
          </>
        )}
      </QueryView>
    </div>
  );
}
