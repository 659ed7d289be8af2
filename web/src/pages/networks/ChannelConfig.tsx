// A consortium network's channel configuration (GET /networks/consortium/{id}/channel-config,
// decoded): its organizations with their anchor peers and whether this service holds their
// admin, the application policies, sequence and config block. With NETWORK_UPDATE: set an
// organization's anchor peers, add organizations, change an application policy or the orderer's
// batch settings (batch timeout, batch size: the Orderer group's values). Each change
// shows, before it is sent, whose admin signatures it needs (from the config's modification
// policies, web/src/components/channelPolicies.ts) and whether this service holds them; the
// API's 409s are said in words (signatures missing: which organizations; no joined orderer: join
// one first). The config is read from a running joined orderer, so before that a 409 says why.
import { useMemo, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, getJson, unwrap } from '../../api/client';
import { ActionError, ErrorState, Loading, QueryView, FieldError, invalid } from '../../components/states';
import { DataTable, type Column } from '../../components/DataTable';
import { anchorPeersOf, policyText, ruleCounts, signaturesNeeded, type Change, type ChannelConfigJson, type ConfigGroup } from '../../components/channelPolicies';
import { Can, useSession } from '../../session';
import { ChannelCapabilities } from './ChannelCapabilities';
import { RaftOptions } from './RaftOptions';
import { useChannelConfig } from './channelConfigQuery';
import { ChannelPolicies } from './ChannelPolicies';
import { AskToSign, DryRunChange, type ChangeView, type ProposalChange } from './ConfigChangeReview';

interface MapOrg {
  organization_id: number | null;
  msp_id: string;
  kind: 'application' | 'orderer';
  peers: Array<{ node_id: number; name: string; external_endpoint: string | null; hostname: string | null; joined: boolean }>;
}
interface NetworkMap {
  channel_name: string;
  organizations: MapOrg[];
}

const POLICY_NAMES = ['Readers', 'Writers', 'Admins', 'Endorsement', 'LifecycleEndorsement'];

type Updated = { status: string; sequence: number; block_number: number | null; signed_by: string[] };

export function ChannelConfig({ networkId }: { networkId: number }) {
  const cfg = useChannelConfig(networkId);
  const map = useQuery({ queryKey: ['network-map', networkId], refetchInterval: 15_000, queryFn: () => getJson<NetworkMap>(`/api/v1/networks/consortium/${networkId}/map`) });
  return (
    <section aria-labelledby="channel-config-title">
      <h2 id="channel-config-title">Channel configuration</h2>
      {cfg.isPending || map.isPending ? (
        <Loading what="Reading the channel configuration from an orderer" />
      ) : cfg.error instanceof ApiError && cfg.error.status === 409 ? (
        <div className="state empty" data-testid="channel-config-unavailable">
          The configuration is read from a running orderer that joined the channel, and there is none yet: join an orderer (above) or start it. <span className="muted">({cfg.error.message})</span>
        </div>
      ) : cfg.error || map.error ? (
        <ErrorState error={cfg.error ?? map.error} retry={() => (cfg.error ? cfg.refetch() : map.refetch())} />
      ) : (
        <ConfigView networkId={networkId} data={cfg.data} map={map.data} />
      )}
    </section>
  );
}

function ConfigView({ networkId, data, map }: { networkId: number; data: { channel_name: string; sequence: number; block_number: number; config: Record<string, unknown> }; map: NetworkMap }) {
  const config = data.config as ChannelConfigJson;
  const app = config.channel_group?.groups?.Application;
  const held = map.organizations.filter((o) => o.organization_id !== null).map((o) => o.msp_id);
  const appOrgs = Object.keys(app?.groups ?? {}).sort();
  const ordererOrgs = Object.keys(config.channel_group?.groups?.Orderer?.groups ?? {}).sort();
  const orgRows = [...appOrgs.map((m) => ({ mspId: m, kind: 'application' })), ...ordererOrgs.filter((m) => !appOrgs.includes(m)).map((m) => ({ mspId: m, kind: 'orderer' }))];
  const orgColumns: Array<Column<{ mspId: string; kind: string }>> = [
    { header: 'Organization (MSP id)', cell: (o) => o.mspId },
    { header: 'Kind', cell: (o) => (appOrgs.includes(o.mspId) && ordererOrgs.includes(o.mspId) ? 'application and orderer' : o.kind) },
    { header: 'Anchor peers', cell: (o) => <span data-testid={`anchors-${o.mspId}`}>{anchorPeersOf(config, o.mspId).map((a) => `${a.host}:${a.port}`).join(', ') || '—'}</span> },
    { header: 'Admin held by this service', cell: (o) => (held.includes(o.mspId) ? 'yes' : 'no') },
  ];
  const policies = Object.entries(app?.policies ?? {}).map(([name, p]) => ({ name, ...p }));
  const policyColumns: Array<Column<(typeof policies)[number]>> = [
    { header: 'Policy', cell: (p) => p.name },
    { header: 'Rule', cell: (p) => <code data-testid={`policy-${p.name}`}>{policyText(p.policy)}</code> },
    { header: 'Changed under', cell: (p) => p.mod_policy || '—' },
  ];
  return (
    <>
      <dl className="facts">
        <dt>Channel</dt>
        <dd>{data.channel_name}</dd>
        <dt>Configuration sequence</dt>
        <dd data-testid="config-sequence">{data.sequence}</dd>
        <dt>Last config block</dt>
        <dd>{data.block_number}</dd>
      </dl>
      <h3>Organizations</h3>
      <DataTable caption="Organizations of the channel" rows={orgRows} columns={orgColumns} rowKey={(o) => o.mspId} empty="The channel has no organizations." />
      <h3>Orderer settings</h3>
      <OrdererSettings config={config} />
      <h3>Application policies</h3>
      <DataTable caption="Application policies" rows={policies} columns={policyColumns} rowKey={(p) => p.name} empty="The channel has no application policies." />
      <Can permission="NETWORK_UPDATE">
        <Changes networkId={networkId} channelName={data.channel_name} config={config} app={app} appOrgs={appOrgs} held={held} map={map} />
      </Can>
      <ChannelCapabilities networkId={networkId} channelName={data.channel_name} config={config} />
      <RaftOptions networkId={networkId} channelName={data.channel_name} config={config} />
      <ChannelPolicies networkId={networkId} channelName={data.channel_name} config={config} />
    </>
  );
}

function Changes(props: { networkId: number; channelName: string; config: ChannelConfigJson; app: ConfigGroup | undefined; appOrgs: string[]; held: string[]; map: NetworkMap }) {
  const [tab, setTab] = useState<'anchors' | 'organizations' | 'policy' | 'batch'>('anchors');
  return (
    <div className="card" role="region" aria-labelledby="change-title">
      <h3 id="change-title">Change the configuration</h3>
      <div className="actions" role="group" aria-label="What to change">
        {(
          [
            ['anchors', 'Anchor peers'],
            ['organizations', 'Add organizations'],
            ['policy', 'A policy'],
            ['batch', 'Batch settings'],
          ] as const
        ).map(([k, label]) => (
          <button key={k} type="button" aria-pressed={tab === k} className={tab === k ? 'primary' : ''} onClick={() => setTab(k)}>
            {label}
          </button>
        ))}
      </div>
      {tab === 'anchors' ? <AnchorPeersForm {...props} /> : tab === 'organizations' ? <OrganizationsForm {...props} /> : tab === 'policy' ? <PolicyForm {...props} /> : <BatchForm {...props} />}
    </div>
  );
}

/** The preview of whose signatures a change needs, and whether this service holds them. */
function Needs({ config, change, held }: { config: ChannelConfigJson; change: Change | null; held: string[] }) {
  const needs = useMemo(() => (change ? signaturesNeeded(config, change, held) : []), [config, change, held]);
  if (!change) return null;
  return (
    <div className="hint" data-testid="signatures-needed" aria-live="polite">
      {needs.map((n) => (
        <p key={n.path}>
          Needs {n.path} ({n.rule}), admins of {n.counted.join(', ') || 'no organization'}
          {n.satisfied
            ? `: this service signs for ${n.counted.filter((m) => held.includes(m)).join(', ')}, enough.`
            : `: this service does not hold the admin of ${n.missing.join(', ') || 'a counted organization'} (${n.moreNeeded} more signature${n.moreNeeded === 1 ? '' : 's'} needed), so the API will refuse it with a 409.`}
        </p>
      ))}
    </div>
  );
}

/** The answer of a change, or its refusal in words; signatures missing: the change can become a signing proposal. */
function Outcome({ m, networkId, proposal }: { m: { data?: Updated; error: unknown }; networkId: number; proposal: ProposalChange | null }) {
  if (m.error instanceof ApiError && m.error.status === 409) {
    const missing = (m.error.context.missingOrganizations as string[] | undefined) ?? [];
    return (
      <>
        <div className="action-error" role="alert" data-testid="change-refused">
          {m.error.code === 'SIGNATURES_MISSING' ? (
            <p>
              Not sent: the change needs the admin signatures of {missing.join(', ')}, and this service does not hold {missing.length === 1 ? 'that organization\'s admin' : 'their admins'}. Nothing was submitted; the channel is unchanged.
            </p>
          ) : (
            <p>Refused (409): the channel is in no state for this change now.</p>
          )}
          <p className="muted">{m.error.message}</p>
        </div>
        {m.error.code === 'SIGNATURES_MISSING' && proposal ? <AskToSign networkId={networkId} change={proposal} missing={missing} /> : null}
      </>
    );
  }
  if (m.error) return <ActionError error={m.error} />;
  if (!m.data) return null;
  return (
    <p className="verdict valid" role="status" data-testid="change-outcome">
      {m.data.status === 'unchanged'
        ? 'Nothing to change: the channel already has this configuration.'
        : `Updated: configuration sequence ${m.data.sequence}, block ${m.data.block_number}, signed by ${m.data.signed_by.join(', ')}.`}
    </p>
  );
}

function useChange(networkId: number) {
  const qc = useQueryClient();
  return (fn: () => Promise<Updated>) => ({
    mutationFn: fn,
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: ['channel-config', networkId] });
      void qc.invalidateQueries({ queryKey: ['network-map', networkId] });
      void qc.invalidateQueries({ queryKey: ['network', 'consortium', networkId] });
      void qc.invalidateQueries({ queryKey: ['consortium', networkId, 'blocks'] });
    },
  });
}

function AnchorPeersForm({ networkId, channelName, config, appOrgs, held, map }: { networkId: number; channelName: string; config: ChannelConfigJson; appOrgs: string[]; held: string[]; map: NetworkMap }) {
  const [mspId, setMspId] = useState(appOrgs.find((m) => held.includes(m)) ?? appOrgs[0] ?? '');
  const [text, setText] = useState<string | null>(null);
  const current = anchorPeersOf(config, mspId).map((a) => `${a.host}:${a.port}`).join('\n');
  const value = text ?? current;
  const peers = map.organizations.find((o) => o.msp_id === mspId)?.peers.filter((p) => p.external_endpoint) ?? [];
  const change = useChange(networkId);
  const parse = () =>
    value
      .split(/[\n,]/)
      .map((l) => l.trim())
      .filter(Boolean)
      .map((l) => {
        const i = l.lastIndexOf(':');
        const port = Number(l.slice(i + 1));
        if (i < 1 || !Number.isInteger(port)) throw new Error(`"${l}" is not host:port.`);
        return { host: l.slice(0, i), port };
      });
  const m = useMutation(
    change(() => {
      const anchorPeers = parse();
      return unwrap(api.PUT('/api/v1/networks/{networkId}/channels/{channelName}/anchor-peers', { params: { path: { networkId, channelName } }, body: { organizationId: mspId, anchorPeers } }));
    }),
  );
  if (!appOrgs.length) return <p className="muted">The channel has no application organization.</p>;
  return (
    <form
      className="form-grid"
      aria-label="Set anchor peers"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <label>
        Organization
        <select
          value={mspId}
          onChange={(e) => {
            setMspId(e.target.value);
            setText(null);
            m.reset();
          }}
        >
          {appOrgs.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      </label>
      <label>
        Anchor peers (host:port, one a line; empty removes them)
        <textarea {...invalid(m.error, 'anchorPeers')} className="code" rows={3} value={value} onChange={(e) => setText(e.target.value)} />
        <FieldError error={m.error} field="anchorPeers" />
      </label>
      {peers.length ? (
        <p className="hint">
          Its peers here: {peers.map((p) => `${p.name} (${p.external_endpoint})`).join(', ')}
        </p>
      ) : null}
      <Needs config={config} change={{ kind: 'anchorPeers', mspId }} held={held} />
      <div>
        <button type="submit" className="primary" disabled={m.isPending}>
          {m.isPending ? 'Sending the config update…' : 'Set anchor peers'}
        </button>
      </div>
      <Outcome m={m} networkId={networkId} proposal={m.error instanceof ApiError ? { type: 'anchor_peers', organizationId: mspId, anchorPeers: parse() } : null} />
    </form>
  );
}

function OrganizationsForm({ networkId, channelName, config, appOrgs, held }: { networkId: number; channelName: string; config: ChannelConfigJson; appOrgs: string[]; held: string[] }) {
  const { can } = useSession();
  const orgs = useQuery({ queryKey: ['organizations', 'all'], enabled: can('ORGANIZATION_READ'), queryFn: () => unwrap(api.GET('/api/v1/organizations', { params: { query: { limit: 500 } } })) });
  const [picked, setPicked] = useState<string[]>([]);
  const change = useChange(networkId);
  const m = useMutation(change(() => unwrap(api.PUT('/api/v1/networks/{networkId}/channels/{channelName}/config', { params: { path: { networkId, channelName } }, body: { organizations: [...appOrgs, ...picked] } }))));
  if (!can('ORGANIZATION_READ')) return <p className="muted">Your role cannot list organizations (ORGANIZATION_READ), so none can be picked here.</p>;
  return (
    <QueryView q={orgs} what="Loading organizations">
      {(d) => {
        const candidates = d.items.filter((o) => !appOrgs.includes(o.mspId));
        if (!candidates.length) {
          return (
            <div role="form" aria-label="Add organizations">
              <p className="muted">Every organization of this service is in the channel (organizations are created on the Organizations page).</p>
              <Outcome m={m} networkId={networkId} proposal={{ type: 'channel_config', organizations: [...appOrgs, ...picked] }} />
            </div>
          );
        }
        return (
          <form
            className="form-grid"
            aria-label="Add organizations"
            onSubmit={(e: FormEvent) => {
              e.preventDefault();
              m.mutate();
            }}
          >
            <fieldset>
              <legend>Organizations to add (removing one is not supported)</legend>
              {candidates.map((o) => (
                <label key={o.id}>
                  <input type="checkbox" checked={picked.includes(o.mspId)} onChange={(e) => setPicked(e.target.checked ? [...picked, o.mspId] : picked.filter((x) => x !== o.mspId))} /> {o.mspId} ({o.name})
                </label>
              ))}
              <FieldError error={m.error} field="organizations" />
            </fieldset>
            <Needs config={config} change={picked.length ? { kind: 'addOrganizations' } : null} held={held} />
            <div>
              <button type="submit" className="primary" disabled={m.isPending || picked.length === 0}>
                {m.isPending ? 'Sending the config update…' : 'Add to the channel'}
              </button>
            </div>
            <Outcome m={m} networkId={networkId} proposal={{ type: 'channel_config', organizations: [...appOrgs, ...picked] }} />
          </form>
        );
      }}
    </QueryView>
  );
}

/**
 * The policy editor: the policy chosen with its rule now, the rule being written with the
 * organizations it counts and how many of them must sign (ruleCounts), whose signatures the change
 * itself needs (its modification policy, Needs), and before sending, the dry run's diff with the
 * required, held and missing organizations; a change this service cannot sign alone becomes a
 * signing proposal from there (or from the 409).
 */
function PolicyForm({ networkId, channelName, config, app, held }: { networkId: number; channelName: string; config: ChannelConfigJson; app: ConfigGroup | undefined; held: string[] }) {
  const [name, setName] = useState('Writers');
  const [type, setType] = useState<'ImplicitMeta' | 'Signature'>('ImplicitMeta');
  const [rule, setRule] = useState('');
  const [reviewing, setReviewing] = useState<{ n: number; body: { policies: Record<string, { type: 'ImplicitMeta' | 'Signature'; rule: string }> } } | null>(null);
  const change = useChange(networkId);
  const body = { policies: { [name]: { type, rule: rule.trim() } } };
  const m = useMutation(change(() => unwrap(api.PUT('/api/v1/networks/{networkId}/channels/{channelName}/config', { params: { path: { networkId, channelName } }, body }))));
  const counts = rule.trim() ? ruleCounts(config, ['Application'], type, rule) : null;
  const review = (dryRun: boolean, b: NonNullable<typeof reviewing>['body']) => unwrap(api.PUT('/api/v1/networks/{networkId}/channels/{channelName}/config', { params: { path: { networkId, channelName }, query: { dry_run: dryRun } }, body: b })) as Promise<unknown> as Promise<ChangeView>;
  return (
    <form
      className="form-grid"
      aria-label="Change a policy"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <label>
        Policy
        <select
          value={name}
          onChange={(e) => {
            setName(e.target.value);
            setReviewing(null);
            m.reset();
          }}
        >
          {POLICY_NAMES.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </label>
      <p className="hint">Now: {policyText(app?.policies?.[name]?.policy)}</p>
      <label>
        Type
        <select value={type} onChange={(e) => setType(e.target.value as 'ImplicitMeta' | 'Signature')}>
          <option value="ImplicitMeta">ImplicitMeta (ANY, ALL or MAJORITY of the organizations' policy)</option>
          <option value="Signature">Signature (named principals)</option>
        </select>
      </label>
      <label>
        Rule
        <input {...invalid(m.error, `policies.${name}.rule`, 'policies')} className="code" required value={rule} onChange={(e) => setRule(e.target.value)} placeholder={type === 'ImplicitMeta' ? 'MAJORITY Admins' : "OR('Org1MSP.admin', 'Org2MSP.admin')"} />
        <FieldError error={m.error} field={`policies.${name}.rule`} also={[`policies.${name}`, 'policies']} />
      </label>
      {rule.trim() ? (
        <p className="hint" data-testid="rule-counts" aria-live="polite">
          {counts
            ? counts.organizations.length
              ? `Who must sign under this rule: ${counts.needed === null ? 'some' : `${counts.needed} of ${counts.organizations.length}`} of ${counts.organizations.join(', ')} (${type === 'ImplicitMeta' ? `their ${counts.what} policies` : `as ${counts.what}`}).`
              : `Under this rule, no organization of the channel counts (none has a ${counts.what} policy or is named): ${name} could not be met.`
            : 'The rule is not read here (ImplicitMeta: ANY, ALL or MAJORITY and a sub-policy name; Signature: principals such as \'Org1MSP.admin\'); the API checks it.'}
        </p>
      ) : null}
      <Needs config={config} change={{ kind: 'policy', name }} held={held} />
      <div className="actions">
        <button type="button" disabled={!rule.trim()} onClick={() => setReviewing({ n: (reviewing?.n ?? 0) + 1, body })}>
          Show the diff and who must sign
        </button>
        <button type="submit" className="primary" disabled={m.isPending}>
          {m.isPending ? 'Sending the config update…' : `Set ${name}`}
        </button>
      </div>
      {reviewing ? (
        <DryRunChange
          key={reviewing.n}
          networkId={networkId}
          label={`Change policy ${Object.keys(reviewing.body.policies)[0]} of channel ${channelName}`}
          what={`policy-${reviewing.n}`}
          send={(dryRun) => review(dryRun, reviewing.body)}
          proposal={{ type: 'channel_config', policies: reviewing.body.policies }}
          done={() => setReviewing(null)}
        />
      ) : null}
      <Outcome m={m} networkId={networkId} proposal={{ type: 'channel_config', policies: body.policies }} />
    </form>
  );
}

interface Batch {
  timeout: string;
  maxMessageCount: number | null;
  absoluteMaxBytes: number | null;
  preferredMaxBytes: number | null;
  consensus: string | null;
}

/** The Orderer group's batch settings and consensus type, as configtxlator decodes them. */
function batchOf(config: ChannelConfigJson): Batch | null {
  const values = config.channel_group?.groups?.Orderer?.values;
  if (!values) return null;
  const size = values.BatchSize?.value as { max_message_count?: number; absolute_max_bytes?: number; preferred_max_bytes?: number } | undefined;
  return {
    timeout: (values.BatchTimeout?.value as { timeout?: string } | undefined)?.timeout ?? '',
    maxMessageCount: size?.max_message_count ?? null,
    absoluteMaxBytes: size?.absolute_max_bytes ?? null,
    preferredMaxBytes: size?.preferred_max_bytes ?? null,
    consensus: (values.ConsensusType?.value as { type?: string } | undefined)?.type ?? null,
  };
}

const bytes = (n: number | null) => (n === null ? '—' : n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MiB (${n} bytes)` : n % 1024 === 0 ? `${n / 1024} KiB (${n} bytes)` : `${n} bytes`);

function OrdererSettings({ config }: { config: ChannelConfigJson }) {
  const b = batchOf(config);
  if (!b) return <p className="muted">The configuration has no Orderer group.</p>;
  return (
    <dl className="facts" data-testid="orderer-settings">
      <dt>Consensus</dt>
      <dd>{b.consensus ?? '—'}</dd>
      <dt>Batch timeout</dt>
      <dd data-testid="batch-timeout">{b.timeout || '—'}</dd>
      <dt>Max message count</dt>
      <dd data-testid="batch-max-message-count">{b.maxMessageCount ?? '—'}</dd>
      <dt>Absolute max bytes</dt>
      <dd data-testid="batch-absolute-max-bytes">{bytes(b.absoluteMaxBytes)}</dd>
      <dt>Preferred max bytes</dt>
      <dd data-testid="batch-preferred-max-bytes">{bytes(b.preferredMaxBytes)}</dd>
    </dl>
  );
}

function BatchForm({ networkId, channelName, config, held }: { networkId: number; channelName: string; config: ChannelConfigJson; held: string[] }) {
  const now = batchOf(config);
  const [timeout, setTimeoutText] = useState(now?.timeout ?? '');
  const [count, setCount] = useState(String(now?.maxMessageCount ?? ''));
  const [absolute, setAbsolute] = useState(String(now?.absoluteMaxBytes ?? ''));
  const [preferred, setPreferred] = useState(String(now?.preferredMaxBytes ?? ''));
  const change = useChange(networkId);
  // Only what differs from the channel's values is sent (the API keeps the others).
  const batch: { batchTimeout?: string; maxMessageCount?: number; absoluteMaxBytes?: number; preferredMaxBytes?: number } = {};
  if (timeout.trim() && timeout.trim() !== now?.timeout) batch.batchTimeout = timeout.trim();
  if (count.trim() && Number(count) !== now?.maxMessageCount) batch.maxMessageCount = Number(count);
  if (absolute.trim() && Number(absolute) !== now?.absoluteMaxBytes) batch.absoluteMaxBytes = Number(absolute);
  if (preferred.trim() && Number(preferred) !== now?.preferredMaxBytes) batch.preferredMaxBytes = Number(preferred);
  const values = [...(batch.batchTimeout !== undefined ? ['BatchTimeout' as const] : []), ...(batch.maxMessageCount !== undefined || batch.absoluteMaxBytes !== undefined || batch.preferredMaxBytes !== undefined ? ['BatchSize' as const] : [])];
  const key = values.join(',');
  const preview = useMemo<Change | null>(() => (key ? { kind: 'batch', values: key.split(',') as Array<'BatchTimeout' | 'BatchSize'> } : null), [key]);
  const m = useMutation(change(() => unwrap(api.PUT('/api/v1/networks/{networkId}/channels/{channelName}/config', { params: { path: { networkId, channelName } }, body: { batch } }))));
  if (!now) return <p className="muted">The configuration has no Orderer group, so there are no batch settings to change.</p>;
  return (
    <form
      className="form-grid"
      aria-label="Change the batch settings"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <label>
        Batch timeout (a duration: 500ms, 2s, 1m)
        <input {...invalid(m.error, 'batch.batchTimeout')} className="code" required pattern="[1-9][0-9]{0,5}(ms|s|m)" value={timeout} onChange={(e) => setTimeoutText(e.target.value)} />
        <FieldError error={m.error} field="batch.batchTimeout" />
      </label>
      <label>
        Max message count (transactions in a block at most)
        <input {...invalid(m.error, 'batch.maxMessageCount')} type="number" min={1} max={100000} required value={count} onChange={(e) => setCount(e.target.value)} />
        <FieldError error={m.error} field="batch.maxMessageCount" />
      </label>
      <label>
        Absolute max bytes (a block's size at most)
        <input {...invalid(m.error, 'batch.absoluteMaxBytes')} type="number" min={1024} max={104857600} required value={absolute} onChange={(e) => setAbsolute(e.target.value)} />
        <FieldError error={m.error} field="batch.absoluteMaxBytes" />
      </label>
      <label>
        Preferred max bytes (the size a block is cut at; at most the absolute)
        <input {...invalid(m.error, 'batch.preferredMaxBytes')} type="number" min={1024} max={104857600} required value={preferred} onChange={(e) => setPreferred(e.target.value)} />
        <FieldError error={m.error} field="batch.preferredMaxBytes" />
      </label>
      <Needs config={config} change={preview} held={held} />
      <div>
        <button type="submit" className="primary" disabled={m.isPending || !values.length}>
          {m.isPending ? 'Sending the config update…' : 'Change the batch settings'}
        </button>
      </div>
      <Outcome m={m} networkId={networkId} proposal={{ type: 'channel_config', batch }} />
    </form>
  );
}
