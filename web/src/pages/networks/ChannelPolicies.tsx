// A channel's ACLs and its orderer and channel policies (issue 37 item 4): the Application ACLs
// (resource to policy reference) and the /Channel/Orderer and /Channel policies as the decoded
// config has them; with NETWORK_UPDATE, a form for an ACL and one for an orderer or channel
// policy (PUT .../config acls, ordererPolicies, channelPolicies). Each change is first sent as a
// dry run: the diff and whose admin signatures it needs are shown, and only then can it be
// submitted, or, when this service does not hold every signature needed, made a signing
// proposal of the same change (POST /nodesharing/proposals, channel_config). The service checks the rules (docs/consortium.md): a refused field is said beside it.
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ActionError, FieldError, invalid } from '../../components/states';
import { DataTable, type Column } from '../../components/DataTable';
import { policyText, type ChannelConfigJson } from '../../components/channelPolicies';
import { ACL_RESOURCES, LEVELS, aclRows, levelPolicyRows, type Level } from '../../components/channelAcls';
import { Can } from '../../session';
import { AskToSign, ConfigDiff, type ProposalChange } from './ConfigChangeReview';

type Answer = { status: string; sequence: number; diff: Array<{ path: string; before: unknown; after: unknown }>; missing_organizations: string[]; held_organizations: string[]; policies: string[]; signed_by: string[] };

export function ChannelPolicies({ networkId, channelName, config }: { networkId: number; channelName: string; config: ChannelConfigJson }) {
  const acls = aclRows(config);
  const aclColumns: Array<Column<(typeof acls)[number]>> = [
    { header: 'Resource', cell: (a) => <code>{a.resource}</code> },
    { header: 'Policy', cell: (a) => <code data-testid={`acl-${a.resource}`}>{a.policyRef}</code> },
  ];
  const policyColumns: Array<Column<{ name: string; rule: string }>> = [
    { header: 'Policy', cell: (p) => p.name },
    { header: 'Rule', cell: (p) => <code>{p.rule}</code> },
  ];
  return (
    <section aria-labelledby="channel-policies-title">
      <h3 id="channel-policies-title">Orderer and channel policies, ACLs</h3>
      {(Object.keys(LEVELS) as Level[]).map((level) => (
        <DataTable key={level} caption={`${LEVELS[level].label} policies`} rows={levelPolicyRows(config, level).map((p) => ({ name: p.name, rule: policyText(p.policy) }))} columns={policyColumns} rowKey={(p) => p.name} empty="No policies." />
      ))}
      <DataTable caption="Application ACLs (who may call each channel resource)" rows={acls} columns={aclColumns} rowKey={(a) => a.resource} empty="The channel sets no ACLs: the peers' defaults apply." />
      <Can permission="NETWORK_UPDATE">
        <AclForm networkId={networkId} channelName={channelName} current={acls} />
        <LevelPolicyForm networkId={networkId} channelName={channelName} config={config} />
      </Can>
    </section>
  );
}

/** Dry run first (the diff and the signatures needed), then the same body submitted. */
function useDryRunThenSubmit(networkId: number, channelName: string, body: () => Record<string, unknown>) {
  const qc = useQueryClient();
  const send = (dryRun: boolean) => unwrap(api.PUT('/api/v1/networks/{networkId}/channels/{channelName}/config', { params: { path: { networkId, channelName }, query: { dry_run: dryRun } }, body: body() })) as Promise<Answer>;
  const preview = useMutation({ mutationFn: () => send(true) });
  const submit = useMutation({
    mutationFn: () => send(false),
    onSuccess: () => {
      preview.reset();
      void qc.invalidateQueries({ queryKey: ['channel-config', networkId] });
    },
  });
  return { preview, submit, reset: () => (preview.reset(), submit.reset()) };
}

/** The dry run's diff and signers; Submit when this service holds them, else the same change offered as a signing proposal. */
function Preview({ networkId, preview, submit, what, proposal }: { networkId: number; preview: { data?: Answer; error: unknown }; submit: { data?: Answer; error: unknown; isPending: boolean; mutate: () => void }; what: string; proposal: ProposalChange }) {
  const d = preview.data;
  return (
    <>
      {preview.error ? <ActionError error={preview.error} /> : null}
      {d ? (
        <div className="hint" data-testid="policy-preview" aria-live="polite">
          {d.status === 'unchanged' || d.diff.length === 0 ? (
            <p>Nothing to change: the channel already has this.</p>
          ) : (
            <>
              <ConfigDiff diff={d.diff} />
              <p>
                Signed for under {d.policies.join(', ') || '—'}
                {d.missing_organizations.length ? `; still missing the admin signatures of ${d.missing_organizations.join(', ')}: nothing can be submitted from here, ask for them with a signing proposal.` : `; this service holds every signature needed (${d.held_organizations.join(', ')}).`}
              </p>
              {d.missing_organizations.length ? (
                <AskToSign networkId={networkId} change={proposal} missing={d.missing_organizations} />
              ) : (
                <button type="button" className="primary" disabled={submit.isPending} onClick={() => submit.mutate()}>
                  {submit.isPending ? 'Sending the config update…' : `Submit: ${what}`}
                </button>
              )}
            </>
          )}
        </div>
      ) : null}
      {submit.error ? <ActionError error={submit.error} /> : null}
      {submit.data ? (
        <p className="verdict valid" role="status" data-testid="policy-outcome">
          {submit.data.status === 'unchanged' ? 'Nothing to change.' : `Updated: configuration sequence ${submit.data.sequence}, signed by ${submit.data.signed_by.join(', ')}.`}
        </p>
      ) : null}
    </>
  );
}

function AclForm({ networkId, channelName, current }: { networkId: number; channelName: string; current: Array<{ resource: string; policyRef: string }> }) {
  const [resource, setResource] = useState('qscc/GetChainInfo');
  const [policyRef, setPolicyRef] = useState('');
  const field = `acls.${resource}`;
  const m = useDryRunThenSubmit(networkId, channelName, () => ({ acls: { [resource]: policyRef.trim() } }));
  return (
    <form
      className="form-grid card"
      aria-label="Set an ACL"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.submit.reset();
        m.preview.mutate();
      }}
    >
      <label>
        Resource
        <select
          value={resource}
          onChange={(e) => {
            setResource(e.target.value);
            m.reset();
          }}
        >
          {ACL_RESOURCES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <p className="hint">Now: {current.find((a) => a.resource === resource)?.policyRef ?? 'not set (the peer\'s default)'}</p>
      <label>
        Policy reference
        <input {...invalid(m.preview.error, field, 'acls')} className="code" required value={policyRef} onChange={(e) => (setPolicyRef(e.target.value), m.reset())} placeholder="/Channel/Application/Admins" />
        <FieldError error={m.preview.error} field={field} also={['acls']} />
      </label>
      <div>
        <button type="submit" disabled={m.preview.isPending}>
          {m.preview.isPending ? 'Computing the update…' : 'Preview the ACL change'}
        </button>
      </div>
      <Preview networkId={networkId} preview={m.preview} submit={m.submit} what={`${resource} → ${policyRef.trim()}`} proposal={{ type: 'channel_config', acls: { [resource]: policyRef.trim() } }} />
    </form>
  );
}

function LevelPolicyForm({ networkId, channelName, config }: { networkId: number; channelName: string; config: ChannelConfigJson }) {
  const [level, setLevel] = useState<Level>('ordererPolicies');
  const [name, setName] = useState('Writers');
  const [type, setType] = useState<'ImplicitMeta' | 'Signature'>('ImplicitMeta');
  const [rule, setRule] = useState('');
  const field = `${level}.${name}`;
  const m = useDryRunThenSubmit(networkId, channelName, () => ({ [level]: { [name]: { type, rule: rule.trim() } } }));
  const now = policyText(levelPolicyRows(config, level).find((p) => p.name === name)?.policy);
  return (
    <form
      className="form-grid card"
      aria-label="Change an orderer or channel policy"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.submit.reset();
        m.preview.mutate();
      }}
    >
      <label>
        Group
        <select
          value={level}
          onChange={(e) => {
            const l = e.target.value as Level;
            setLevel(l);
            if (!(LEVELS[l].names as readonly string[]).includes(name)) setName('Writers');
            m.reset();
          }}
        >
          {(Object.keys(LEVELS) as Level[]).map((l) => (
            <option key={l} value={l}>
              {LEVELS[l].label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Policy
        <select value={name} onChange={(e) => (setName(e.target.value), m.reset())}>
          {LEVELS[level].names.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
      <p className="hint">Now: {now}</p>
      <label>
        Type
        <select value={type} onChange={(e) => (setType(e.target.value as 'ImplicitMeta' | 'Signature'), m.reset())}>
          <option value="ImplicitMeta">ImplicitMeta (ANY, ALL or MAJORITY of the sub-groups' policy)</option>
          <option value="Signature">Signature (named principals)</option>
        </select>
      </label>
      <label>
        Rule
        <input {...invalid(m.preview.error, field, level)} className="code" required value={rule} onChange={(e) => (setRule(e.target.value), m.reset())} placeholder={type === 'ImplicitMeta' ? 'MAJORITY Admins' : "OR('OrdererMSP.member')"} />
        <FieldError error={m.preview.error} field={field} also={[level]} />
      </label>
      <div>
        <button type="submit" disabled={m.preview.isPending}>
          {m.preview.isPending ? 'Computing the update…' : `Preview the ${name} change`}
        </button>
      </div>
      <Preview networkId={networkId} preview={m.preview} submit={m.submit} what={`${name} = ${rule.trim()}`} proposal={{ type: 'channel_config', [level]: { [name]: { type, rule: rule.trim() } } }} />
    </form>
  );
}
