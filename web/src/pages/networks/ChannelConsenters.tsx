// A consortium channel's raft consenters (GET /networks/consortium/{id}/channels/{name}/consenters):
// each consenter's endpoint, this service's orderer, what its channel participation API reports
// and whether the channel holds the orderer's current TLS certificate. With NETWORK_UPDATE: add
// an orderer of the network as consenter (a follower is promoted), remove one, replace one's
// certificate after a renewal. Every change is first computed as a dry run (?dry_run=true) and
// its config diff shown; only "Submit" sends it. Refusals name their rule (the API's message).
// ChannelOrganizationRemove: an application organization removed the same way.
// ChannelOrganizationMsp: an organization's MSP updated the same way (CA certificates added, admins set);
// how many root and intermediate CAs and admins the channel holds for it now is shown.
// ChannelOrdererOrganizations: an orderer organization added (an organization of this service or an
// application organization of the network, with its orderer endpoints), its endpoints set, or it removed,
// the same way; its endpoints in the channel now are shown beside it.
import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ActionError, FieldError, QueryView } from '../../components/states';
import { DryRunChange, type ChangeView, type ProposalChange } from './ConfigChangeReview';
import { DataTable, type Column } from '../../components/DataTable';
import { Can, useSession } from '../../session';
import { organizationGroup, useChannelConfig } from './channelConfigQuery';

type Action = { kind: 'add' | 'remove' | 'certificate'; nodeId: number; label: string };

export function ChannelConsenters({ networkId, channelName }: { networkId: number; channelName: string }) {
  const path = { id: networkId, channelName };
  const q = useQuery({ queryKey: ['consenters', networkId], refetchInterval: 15_000, retry: false, queryFn: () => unwrap(api.GET('/api/v1/networks/consortium/{id}/channels/{channelName}/consenters', { params: { path } })) });
  const nodes = useQuery({ queryKey: ['nodes', 'consortium', networkId], queryFn: () => unwrap(api.GET('/api/v1/networks/consortium/{id}/nodes', { params: { path: { id: networkId } } })) });
  const [action, setAction] = useState<Action | null>(null);
  type Row = { host: string; port: number; node_id: number | null; node_name: string | null; node_status: string | null; consensus_relation: string | null; certificate_current: boolean | null };
  const columns: Array<Column<Row>> = [
    { header: 'Endpoint', cell: (c) => `${c.host}:${c.port}` },
    { header: 'Orderer', cell: (c) => c.node_name ?? 'not held by this service' },
    { header: 'Status', cell: (c) => c.node_status ?? '—' },
    { header: 'Relation', cell: (c) => <span data-testid={`relation-${c.port}`}>{c.consensus_relation ?? '—'}</span> },
    { header: 'Certificate', cell: (c) => (c.certificate_current === null ? '—' : c.certificate_current ? 'current' : 'renewed: replace it') },
    {
      header: 'Actions',
      cell: (c) =>
        c.node_id === null ? null : (
          <Can permission="NETWORK_UPDATE">
            <button type="button" aria-label={`Remove ${c.node_name} from the consenters`} onClick={() => setAction({ kind: 'remove', nodeId: c.node_id!, label: `Remove ${c.node_name} from the consenters` })}>Remove</button>{' '}
            <button type="button" aria-label={`Replace certificate of ${c.node_name}`} onClick={() => setAction({ kind: 'certificate', nodeId: c.node_id!, label: `Replace the TLS certificate of ${c.node_name}` })}>Replace certificate</button>
          </Can>
        ),
    },
  ];
  return (
    <section aria-labelledby="consenters-title">
      <h3 id="consenters-title">Consenters</h3>
      <QueryView q={q} what="Reading the consenters from an orderer">
        {(d) => {
          const inSet = new Set(d.consenters.map((c) => c.node_id));
          const candidates = (nodes.data?.items ?? []).filter((n) => n.role === 'orderer' && !inSet.has(n.id));
          return (
            <>
              <DataTable rows={d.consenters} columns={columns} caption="The channel's raft consenters" testId="consenters" rowKey={(c) => `${c.host}:${c.port}`} />
              <Can permission="NETWORK_UPDATE">
                {candidates.length ? (
                  <p>
                    Add as consenter:{' '}
                    {candidates.map((n) => (
                      <button key={n.id} type="button" aria-label={`Add ${n.name} as consenter`} onClick={() => setAction({ kind: 'add', nodeId: n.id, label: `Add ${n.name} as consenter` })}>
                        {n.name}
                      </button>
                    ))}
                  </p>
                ) : (
                  <p className="muted">Every orderer of this network is a consenter (add one with “Add member”, then join it: it follows the channel until it is added here).</p>
                )}
              </Can>
              {action ? <DryRunChange key={`${action.kind}-${action.nodeId}`} networkId={networkId} label={action.label} what={`${action.kind}-${action.nodeId}`} send={consenterSender(networkId, channelName, action)} proposal={{ type: 'consenter', action: action.kind, node_id: action.nodeId }} done={() => setAction(null)} /> : null}
            </>
          );
        }}
      </QueryView>
    </section>
  );
}

function consenterSender(networkId: number, channelName: string, action: Action) {
  return (dryRun: boolean): Promise<ChangeView> => {
    const query = { dry_run: dryRun };
    if (action.kind === 'add') return unwrap(api.POST('/api/v1/networks/consortium/{id}/channels/{channelName}/consenters', { params: { path: { id: networkId, channelName }, query }, body: { nodeId: action.nodeId } }));
    if (action.kind === 'remove') return unwrap(api.DELETE('/api/v1/networks/consortium/{id}/channels/{channelName}/consenters/{nodeId}', { params: { path: { id: networkId, channelName, nodeId: action.nodeId }, query } }));
    return unwrap(api.PUT('/api/v1/networks/consortium/{id}/channels/{channelName}/consenters/{nodeId}/certificate', { params: { path: { id: networkId, channelName, nodeId: action.nodeId }, query } }));
  };
}

/** An application organization removed from the channel: the dry run's diff first, then Submit. */
export function ChannelOrganizationRemove({ networkId, channelName, mspIds }: { networkId: number; channelName: string; mspIds: string[] }) {
  const [mspId, setMspId] = useState<string | null>(null);
  const send = (m: string) => (dryRun: boolean): Promise<ChangeView> => unwrap(api.DELETE('/api/v1/networks/consortium/{id}/channels/{channelName}/organizations/{mspId}', { params: { path: { id: networkId, channelName, mspId: m }, query: { dry_run: dryRun } } }));
  // Kept while a removal is open, so that its outcome stays shown once the last but one organization is gone.
  if (mspIds.length < 2 && mspId === null) return null;
  return (
    <Can permission="NETWORK_UPDATE">
      <section aria-labelledby="org-remove-title">
        <h3 id="org-remove-title">Remove an organization</h3>
        <p className="muted">Its group leaves the channel's application group; the orderer then refuses its peers. Signed by the organizations' admins as /Channel/Application/Admins requires.</p>
        {mspIds.length < 2
          ? <p className="muted">The channel's last application organization cannot be removed.</p>
          : mspIds.map((m) => (
              <button key={m} type="button" onClick={() => setMspId(m)}>
                Remove {m}
              </button>
            ))}
        {mspId ? <DryRunChange key={mspId} networkId={networkId} label={`Remove ${mspId} from channel ${channelName}`} what={`org-${mspId}`} send={send(mspId)} proposal={{ type: 'remove_organization', msp_id: mspId }} done={() => setMspId(null)} /> : null}
      </section>
    </Can>
  );
}

/** PEM certificates pasted one after another. */
const pems = (text: string) => text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];

/** An organization's MSP in the channel updated: CA certificates added, admins set; the dry run's diff first, then Submit. */
export function ChannelOrganizationMsp({ networkId, channelName, mspIds }: { networkId: number; channelName: string; mspIds: string[] }) {
  const [mspId, setMspId] = useState(mspIds[0] ?? '');
  const [text, setText] = useState({ rootCerts: '', intermediateCerts: '', admins: '' });
  const [asked, setAsked] = useState<{ mspId: string; body: { rootCerts?: string[]; intermediateCerts?: string[]; admins?: string[] }; n: number } | null>(null);
  const send = (m: string, body: NonNullable<typeof asked>['body']) => (dryRun: boolean): Promise<ChangeView> =>
    unwrap(api.PUT('/api/v1/networks/consortium/{id}/channels/{channelName}/organizations/{mspId}/msp', { params: { path: { id: networkId, channelName, mspId: m }, query: { dry_run: dryRun } }, body }));
  const cfg = useChannelConfig(networkId);
  const msp = (organizationGroup(cfg.data?.config, mspId)?.values?.MSP?.value as { config?: { root_certs?: string[]; intermediate_certs?: string[]; admins?: string[] } } | undefined)?.config;
  const count = (n: number, what: string) => `${n || 'no'} ${what}${n === 1 ? '' : 's'}`;
  const preview = () => {
    const body = Object.fromEntries(Object.entries(text).filter(([, v]) => v.trim()).map(([k, v]) => [k, pems(v)]));
    setAsked({ mspId, body, n: (asked?.n ?? 0) + 1 });
  };
  if (!mspIds.length) return null;
  return (
    <Can permission="NETWORK_UPDATE">
      <section aria-labelledby="org-msp-title">
        <h3 id="org-msp-title">Update an organization's MSP</h3>
        <p className="muted">Add a root or intermediate CA (PEM; an intermediate must chain to a root of the MSP or one added here), or set the MSP's admins. Signed by the organization's admin.</p>
        <label>
          Organization{' '}
          <select value={mspId} onChange={(e) => setMspId(e.target.value)}>
            {mspIds.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <p className="hint" data-testid="msp-now">
          {msp ? `Now in the channel: ${count(msp.root_certs?.length ?? 0, 'root CA')}, ${count(msp.intermediate_certs?.length ?? 0, 'intermediate CA')}, ${count(msp.admins?.length ?? 0, 'admin certificate')}.` : 'Reading the MSP from the channel configuration…'}
        </p>
        {(['rootCerts', 'intermediateCerts', 'admins'] as const).map((k) => (
          <label key={k} className="block">
            {k === 'rootCerts' ? 'Root CA certificates to add' : k === 'intermediateCerts' ? 'Intermediate CA certificates to add' : 'Admin certificates (replace the MSP\'s admins)'}
            <textarea rows={3} value={text[k]} onChange={(e) => setText({ ...text, [k]: e.target.value })} placeholder="-----BEGIN CERTIFICATE-----" />
          </label>
        ))}
        <button type="button" disabled={!Object.values(text).some((v) => v.trim())} onClick={preview}>
          Preview the update
        </button>
        {asked ? <DryRunChange key={`${asked.mspId}-${asked.n}`} networkId={networkId} label={`Update the MSP of ${asked.mspId} in channel ${channelName}`} what={`msp-${asked.mspId}-${asked.n}`} send={send(asked.mspId, asked.body)} proposal={{ type: 'msp_update', msp_id: asked.mspId, ...asked.body }} done={() => setAsked(null)} /> : null}
      </section>
    </Can>
  );
}

/** host:port endpoints typed comma or space separated. */
const endpointList = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/**
 * Orderer organizations of the channel: one added (an organization of this service or an application
 * organization of the network that is not one yet, with its orderer endpoints), endpoints set
 * (host:port, comma separated) or one removed; the dry run's diff and whose signatures it needs
 * first, then Submit (or a signing proposal when admins this service does not hold must sign).
 */
export function ChannelOrdererOrganizations({ networkId, channelName, mspIds, applicationMspIds = [] }: { networkId: number; channelName: string; mspIds: string[]; applicationMspIds?: string[] }) {
  const { can } = useSession();
  const [endpoints, setEndpoints] = useState<Record<string, string>>({});
  const [adding, setAdding] = useState({ mspId: '', endpoints: '' });
  // The addition's refused preview, said beside the organization and endpoints fields.
  const [addRefused, setAddRefused] = useState<unknown>(null);
  const [action, setAction] = useState<{ kind: 'endpoints' | 'remove' | 'add'; mspId: string; endpoints: string[]; n: number } | null>(null);
  const send = (a: NonNullable<typeof action>) => (dryRun: boolean): Promise<ChangeView> => {
    const path = { id: networkId, channelName, mspId: a.mspId };
    if (a.kind === 'add') return unwrap(api.POST('/api/v1/networks/consortium/{id}/channels/{channelName}/orderer-organizations', { params: { path: { id: networkId, channelName }, query: { dry_run: dryRun } }, body: { msp_id: a.mspId, endpoints: a.endpoints } }));
    if (a.kind === 'remove') return unwrap(api.DELETE('/api/v1/networks/consortium/{id}/channels/{channelName}/orderer-organizations/{mspId}', { params: { path, query: { dry_run: dryRun } } }));
    return unwrap(api.PUT('/api/v1/networks/consortium/{id}/channels/{channelName}/orderer-organizations/{mspId}/endpoints', { params: { path, query: { dry_run: dryRun } }, body: { endpoints: a.endpoints } }));
  };
  const cfg = useChannelConfig(networkId);
  const orgs = useQuery({ queryKey: ['organizations', 'all'], enabled: can('ORGANIZATION_READ'), queryFn: () => unwrap(api.GET('/api/v1/organizations', { params: { query: { limit: 500 } } })) });
  const now = (m: string) => ((organizationGroup(cfg.data?.config, m, 'Orderer')?.values?.Endpoints?.value as { addresses?: string[] } | undefined)?.addresses ?? []);
  // Not yet orderer organizations: this service's organizations and the network's application organizations.
  const candidates = [...new Set([...(orgs.data?.items ?? []).map((o) => o.mspId), ...applicationMspIds])].filter((m) => !mspIds.includes(m)).sort();
  const addMspId = candidates.includes(adding.mspId) ? adding.mspId : (candidates[0] ?? '');
  const proposalOf = (a: NonNullable<typeof action>): ProposalChange =>
    a.kind === 'remove' ? { type: 'remove_orderer_organization', msp_id: a.mspId } : a.kind === 'add' ? { type: 'add_orderer_organization', msp_id: a.mspId, endpoints: a.endpoints } : { type: 'orderer_endpoints', msp_id: a.mspId, endpoints: a.endpoints };
  const labelOf = (a: NonNullable<typeof action>) =>
    a.kind === 'remove' ? `Remove orderer organization ${a.mspId} from channel ${channelName}` : a.kind === 'add' ? `Add orderer organization ${a.mspId} to channel ${channelName}` : `Set the orderer endpoints of ${a.mspId}`;
  if (!mspIds.length) return null;
  return (
    <Can permission="NETWORK_UPDATE">
      <section aria-labelledby="orderer-orgs-title">
        <h3 id="orderer-orgs-title">Orderer organizations</h3>
        <p className="muted">Add an orderer organization (its orderers then join the channel as followers and become consenters above), set where one's orderers serve (its Endpoints), or remove one (its consenters first). Signed by the orderer organizations' admins.</p>
        <ul data-testid="orderer-organizations">
          {mspIds.map((m) => (
            <li key={m}>
              <strong>{m}</strong>{' '}
              <span data-testid={`orderer-endpoints-${m}`}>{cfg.data ? (now(m).join(', ') || 'no endpoints of its own') : '…'}</span>{' '}
              <input aria-label={`Endpoints of ${m}`} placeholder="host:port, host:port" value={endpoints[m] ?? ''} onChange={(e) => setEndpoints({ ...endpoints, [m]: e.target.value })} />{' '}
              <button type="button" disabled={!(endpoints[m] ?? '').trim()} onClick={() => setAction({ kind: 'endpoints', mspId: m, endpoints: endpointList(endpoints[m] ?? ''), n: (action?.n ?? 0) + 1 })}>
                Set endpoints
              </button>{' '}
              {mspIds.length > 1 ? (
                <button type="button" onClick={() => setAction({ kind: 'remove', mspId: m, endpoints: [], n: (action?.n ?? 0) + 1 })}>
                  Remove {m}
                </button>
              ) : null}
            </li>
          ))}
        </ul>
        <form
          aria-label="Add an orderer organization"
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            setAddRefused(null);
            setAction({ kind: 'add', mspId: addMspId, endpoints: endpointList(adding.endpoints), n: (action?.n ?? 0) + 1 });
          }}
        >
          {candidates.length ? (
            <>
              <label>
                Organization{' '}
                <select value={addMspId} onChange={(e) => setAdding({ ...adding, mspId: e.target.value })}>
                  {candidates.map((m) => (
                    <option key={m} value={m}>
                      {m}
                    </option>
                  ))}
                </select>
              </label>{' '}
              <label>
                Its orderer endpoints{' '}
                <input placeholder="host:port, host:port" value={adding.endpoints} onChange={(e) => setAdding({ ...adding, endpoints: e.target.value })} />
              </label>{' '}
              <FieldError error={addRefused} field="endpoints" also={[...endpointList(adding.endpoints).map((_, i) => `endpoints.${i}`), 'msp_id']} />{' '}
              <button type="submit" disabled={!addMspId || !adding.endpoints.trim()}>
                Preview the addition
              </button>
            </>
          ) : (
            <p className="muted">{can('ORGANIZATION_READ') ? 'Every organization of this service and of the network is an orderer organization of the channel (organizations are created on the Organizations page).' : 'Your role cannot list organizations (ORGANIZATION_READ), so none can be picked here.'}</p>
          )}
        </form>
        {action ? <DryRunChange key={`${action.kind}-${action.mspId}-${action.n}`} networkId={networkId} label={labelOf(action)} what={`orderer-org-${action.kind}-${action.mspId}-${action.n}`} send={send(action)} proposal={proposalOf(action)} refusal={(e) => <ActionError error={e} />} onPreviewError={action.kind === 'add' ? setAddRefused : undefined} done={() => setAction(null)} /> : null}
      </section>
    </Can>
  );
}
