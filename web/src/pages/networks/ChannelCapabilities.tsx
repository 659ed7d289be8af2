// A channel's capabilities at its three levels (channel, orderer, application; read from the
// config GET .../channel-config decoded) and, with NETWORK_UPDATE, a form raising them (PUT
// /networks/{id}/channels/{name}/config capabilities). Only levels at or above the channel's are
// offered (a capability is never lowered); only the levels changed are sent. The change is first
// computed as a dry run and its diff shown (DryRunChange); Submit sends it. Channel V3_0 while a
// node of the channel runs a release older than 3.0 is refused (409 CAPABILITY_NODES_BELOW_V3):
// the nodes the API names are listed, with the release each runs (upgrade them first, one at a time,
// on each node's page).
import { useState, type FormEvent } from 'react';
import { api, ApiError, unwrap, type paths } from '../../api/client';
import { FieldError, invalid } from '../../components/states';
import type { ChannelConfigJson } from '../../components/channelPolicies';
import { Can } from '../../session';
import { DryRunChange, type ChangeView } from './ConfigChangeReview';

type Capabilities = NonNullable<paths['/api/v1/networks/{networkId}/channels/{channelName}/config']['put']['requestBody']>['content']['application/json']['capabilities'];
type Level = keyof NonNullable<Capabilities>;

/** Fabric's capability names per level, oldest first (as domain/consortium/capabilityRules.ts orders them; typed against the API's body). */
const ORDER: { [L in Level]-?: Array<NonNullable<NonNullable<Capabilities>[L]>> } = {
  channel: ['V1_1', 'V1_3', 'V1_4_2', 'V1_4_3', 'V2_0', 'V3_0'],
  orderer: ['V1_1', 'V1_4_2', 'V2_0'],
  application: ['V1_1', 'V1_2', 'V1_3', 'V1_4_2', 'V2_0', 'V2_5'],
};
const LEVELS: Array<[Level, string]> = [
  ['channel', 'Channel (/Channel)'],
  ['orderer', 'Orderer (/Channel/Orderer)'],
  ['application', 'Application (/Channel/Application)'],
];

/** The highest capability of a level the channel has (null: none known). */
function currentOf(config: ChannelConfigJson, level: Level): string | null {
  const g = config.channel_group;
  const group = level === 'channel' ? g : level === 'orderer' ? g?.groups?.Orderer : g?.groups?.Application;
  const names = Object.keys((group?.values?.Capabilities?.value as { capabilities?: Record<string, unknown> } | undefined)?.capabilities ?? {});
  const order: string[] = ORDER[level];
  return names.filter((n) => order.includes(n)).sort((a, b) => order.indexOf(b) - order.indexOf(a))[0] ?? null;
}

interface BelowNode { node_id: number; name: string; role: string; fabric_version: string | null }

/** The 409 of capability-v3-nodes said as the list of nodes to upgrade first. */
function NodesBelow({ error }: { error: unknown }) {
  if (!(error instanceof ApiError) || error.code !== 'CAPABILITY_NODES_BELOW_V3') return null;
  const nodes = (error.context.nodes as BelowNode[] | undefined) ?? [];
  return (
    <div className="action-error" role="alert" data-testid="capability-refused">
      <p>Not sent: channel capability V3_0 needs every node of the channel on Fabric 3.0 or newer. These do not; upgrade them first (each node's page, one node at a time):</p>
      <ul data-testid="nodes-below-v3">
        {nodes.map((n) => (
          <li key={n.node_id}>
            <a href={`/nodes/${n.node_id}`}>{n.name}</a> ({n.role}, {n.fabric_version ? `Fabric ${n.fabric_version}` : 'no recorded Fabric release'})
          </li>
        ))}
      </ul>
    </div>
  );
}

export function ChannelCapabilities({ networkId, channelName, config }: { networkId: number; channelName: string; config: ChannelConfigJson }) {
  const current = Object.fromEntries(LEVELS.map(([l]) => [l, currentOf(config, l)])) as Record<Level, string | null>;
  const [wanted, setWanted] = useState<Partial<Record<Level, string>>>({});
  const [asked, setAsked] = useState<{ body: NonNullable<Capabilities>; n: number } | null>(null);
  const [refused, setRefused] = useState<unknown>(null);
  const body = Object.fromEntries(LEVELS.flatMap(([l]) => (wanted[l] && wanted[l] !== current[l] ? [[l, wanted[l]]] : []))) as NonNullable<Capabilities>;
  const send = (b: NonNullable<Capabilities>) => (dryRun: boolean): Promise<ChangeView> =>
    unwrap(api.PUT('/api/v1/networks/{networkId}/channels/{channelName}/config', { params: { path: { networkId, channelName }, query: { dry_run: dryRun } }, body: { capabilities: b } }));
  return (
    <section aria-labelledby="capabilities-title">
      <h3 id="capabilities-title">Capabilities</h3>
      <dl className="facts" data-testid="capabilities">
        {LEVELS.map(([l, label]) => (
          <div key={l}>
            <dt>{label}</dt>
            <dd data-testid={`capability-${l}`}>{current[l] ?? '—'}</dd>
          </div>
        ))}
      </dl>
      <Can permission="NETWORK_UPDATE">
        <form
          className="form-grid"
          aria-label="Raise the capabilities"
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            setRefused(null);
            setAsked({ body, n: (asked?.n ?? 0) + 1 });
          }}
        >
          <p className="muted">A capability is never lowered. Channel V3_0 needs every node of the channel on Fabric 3.x. Signed by the admins the levels' modification policies name.</p>
          {LEVELS.map(([l, label]) => {
            const order: string[] = ORDER[l];
            const from = current[l] ? order.indexOf(current[l]) : 0;
            return (
              <label key={l}>
                {label}
                <select {...invalid(refused, `capabilities.${l}`)} value={wanted[l] ?? current[l] ?? ''} onChange={(e) => setWanted({ ...wanted, [l]: e.target.value })}>
                  {current[l] ? null : <option value="">none</option>}
                  {order.slice(Math.max(from, 0)).map((c) => (
                    <option key={c} value={c}>
                      {c}
                      {c === current[l] ? ' (now)' : ''}
                    </option>
                  ))}
                </select>
                <FieldError error={refused} field={`capabilities.${l}`} />
              </label>
            );
          })}
          <div>
            <button type="submit" disabled={Object.keys(body).length === 0}>
              Preview the capability change
            </button>
          </div>
        </form>
        {asked ? (
          <DryRunChange key={asked.n} networkId={networkId} label={`Raise the capabilities of channel ${channelName}`} what={`capabilities-${asked.n}`} send={send(asked.body)} done={() => setAsked(null)} onPreviewError={setRefused} refusal={(e) => (e instanceof ApiError && e.code === 'CAPABILITY_NODES_BELOW_V3' ? <NodesBelow error={e} /> : null)} />
        ) : null}
      </Can>
    </section>
  );
}
