// An etcdraft channel's raft options (the ConsensusType metadata's options, read from the config
// GET .../channel-config decoded): their current values and, with NETWORK_UPDATE, a form changing
// them (PUT /networks/{id}/channels/{name}/config raftOptions). Each field starts at the channel's
// value; only those changed are sent (the API keeps the others and the consenters). The change is
// first computed as a dry run and its diff shown (DryRunChange); Submit sends it. A refused option
// (electionTick not above heartbeatTick, a tick interval that is no duration above zero) is said
// beside its field (the API names it raftOptions.<name>). Nothing is shown for a smartbft channel
// (its options are SmartBftOptions).
import { useState, type FormEvent } from 'react';
import { api, unwrap, type paths } from '../../api/client';
import { FieldError, invalid } from '../../components/states';
import type { ChannelConfigJson } from '../../components/channelPolicies';
import { Can } from '../../session';
import { DryRunChange, type ChangeView } from './ConfigChangeReview';

type Body = NonNullable<NonNullable<paths['/api/v1/networks/{networkId}/channels/{channelName}/config']['put']['requestBody']>['content']['application/json']['raftOptions']>;
type Name = keyof Body;

/** The API's option names, Fabric's (snake case) names in the config, and what each is. */
const OPTIONS: Array<[name: Name, fabric: string, label: string]> = [
  ['tickInterval', 'tick_interval', 'Tick interval (a duration such as 500ms)'],
  ['electionTick', 'election_tick', 'Election tick (ticks without a leader before an election; above the heartbeat tick)'],
  ['heartbeatTick', 'heartbeat_tick', 'Heartbeat tick (ticks between the leader\'s heartbeats)'],
  ['maxInflightBlocks', 'max_inflight_blocks', 'Max in-flight blocks (while replicating)'],
  ['snapshotIntervalSize', 'snapshot_interval_size', 'Snapshot interval size (bytes between snapshots)'],
];

/** The raft options of an etcdraft channel as the config holds them (null: not etcdraft). */
function raftOptionsOf(config: ChannelConfigJson): Record<string, string> | null {
  const ct = config.channel_group?.groups?.Orderer?.values?.ConsensusType?.value as { type?: string; metadata?: { options?: Record<string, unknown> } } | undefined;
  if (ct?.type !== 'etcdraft') return null;
  const o = ct.metadata?.options ?? {};
  return Object.fromEntries(OPTIONS.map(([name, fabric]) => [name, o[fabric] === undefined || o[fabric] === null ? '' : String(o[fabric])]));
}

export function RaftOptions({ networkId, channelName, config }: { networkId: number; channelName: string; config: ChannelConfigJson }) {
  const now = raftOptionsOf(config);
  const [text, setText] = useState<Partial<Record<Name, string>>>({});
  const [asked, setAsked] = useState<{ body: Body; n: number } | null>(null);
  const [refused, setRefused] = useState<unknown>(null);
  if (!now) return null;
  const body: Record<string, string | number> = {};
  for (const [name] of OPTIONS) {
    const v = (text[name] ?? now[name]).trim();
    // Counts as numbers; anything else is sent as typed, so the API says what is wrong with it.
    if (v !== '' && v !== now[name]) body[name] = name !== 'tickInterval' && /^\d+$/.test(v) ? Number(v) : v;
  }
  const send = (b: Body) => (dryRun: boolean): Promise<ChangeView> =>
    unwrap(api.PUT('/api/v1/networks/{networkId}/channels/{channelName}/config', { params: { path: { networkId, channelName }, query: { dry_run: dryRun } }, body: { raftOptions: b } }));
  return (
    <section aria-labelledby="raft-options-title">
      <h3 id="raft-options-title">Raft options</h3>
      <dl className="facts" data-testid="raft-options">
        {OPTIONS.map(([name]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd data-testid={`raft-${name}`}>{now[name] || '—'}</dd>
          </div>
        ))}
      </dl>
      <Can permission="NETWORK_UPDATE">
        <form
          className="form-grid"
          aria-label="Change the raft options"
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            setRefused(null);
            setAsked({ body: body as Body, n: (asked?.n ?? 0) + 1 });
          }}
        >
          <p className="muted">Fields start at the channel's values; only those changed are sent. Signed by the orderer organizations' admins.</p>
          {OPTIONS.map(([name, , label]) => (
            <label key={name}>
              {label} (<code>{name}</code>)
              <input {...invalid(refused, `raftOptions.${name}`)} inputMode={name === 'tickInterval' ? undefined : 'numeric'} maxLength={20} value={text[name] ?? now[name]} onChange={(e) => setText({ ...text, [name]: e.target.value })} />
              <FieldError error={refused} field={`raftOptions.${name}`} />
            </label>
          ))}
          <div>
            <button type="submit" disabled={Object.keys(body).length === 0}>
              Preview the raft options change
            </button>
          </div>
        </form>
        {asked ? <DryRunChange key={asked.n} networkId={networkId} label={`Change the raft options of channel ${channelName}`} what={`raft-options-${asked.n}`} send={send(asked.body)} done={() => setAsked(null)} onPreviewError={setRefused} /> : null}
      </Can>
    </section>
  );
}
