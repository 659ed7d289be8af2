// Create a node: an EVM full node in an EVM network, or a consortium peer or orderer of an
// organization. It starts automatically; the API's defaults fill its ports and paths. With node
// hosts registered (and HOST_READ), an EVM or consortium node can be placed on a host or by labels
// (config.hostId / config.hostLabels, docs/hosts.md); ledgerX nodes run on this machine.
// "Advanced" shows every other config field the API takes for the kind (nodeConfig.ts, NodeConfigFields.tsx):
// a consortium node's are filled from GET /nodes/defaults/consortium-peer|orderer (free ports,
// listen address; its host name and external endpoint are shown as the <name>.<domain> and
// 127.0.0.1:<port> the service derives), an EVM node's defaults (GET /nodes/defaults/evm-node)
// are the starting ports the service counts up from, so they are shown as placeholders: sent as
// they are, a second node would be refused with the first one's ports.
import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useEvmNetworks } from '../../api/queries';
import { PlacementFields, usePlacement } from '../../components/Placement';
import { ActionError, FieldError, fieldErrors, invalid, useShownFields } from '../../components/states';
import { NodeConfigFields } from './NodeConfigFields';
import { configFields, configValues, nodeConfigBody, nodeConfigIssues, type ConfigValues } from './nodeConfig';
import { LedgerXNodeFields, type LedgerXConfig } from '../ledgerx/LedgerXNodeFields';

type Kind = 'EVM_FULLNODE' | 'CONSORTIUM_PEER' | 'CONSORTIUM_ORDERER' | 'LEDGERX_ORDERER_GROUP' | 'LEDGERX_COMMITTER';

export function CreateNode({ onCancel }: { onCancel: () => void }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('EVM_FULLNODE');
  const [networkId, setNetworkId] = useState('');
  const [organizationId, setOrganizationId] = useState('');
  const [ledgerXConfig, setLedgerXConfig] = useState<LedgerXConfig>({});
  const ledgerX = kind === 'LEDGERX_ORDERER_GROUP' || kind === 'LEDGERX_COMMITTER';
  const where = usePlacement(!ledgerX);
  const placement = where.placement;
  const evm = useEvmNetworks();
  const [advanced, setAdvanced] = useState<ConfigValues>({});
  const [checked, setChecked] = useState(false);
  const evmDefaults = useQuery({ queryKey: ['node-defaults', 'evm'], enabled: kind === 'EVM_FULLNODE', queryFn: () => unwrap(api.GET('/api/v1/nodes/defaults/evm-node')) });
  const consortiumRole = kind === 'CONSORTIUM_PEER' ? 'peer' : kind === 'CONSORTIUM_ORDERER' ? 'orderer' : null;
  // A node placed on a registered host (a Docker host or a Kubernetes cluster) runs that host's release images.
  const hostId = placement && 'hostId' in placement ? placement.hostId : undefined;
  const consortiumDefaults = useQuery({
    queryKey: ['node-defaults', consortiumRole, organizationId, hostId],
    enabled: consortiumRole !== null,
    queryFn: () =>
      unwrap(
        api.GET(consortiumRole === 'peer' ? '/api/v1/nodes/defaults/consortium-peer' : '/api/v1/nodes/defaults/consortium-orderer', {
          params: { query: { ...(organizationId ? { organizationId: Number(organizationId) } : {}), ...(hostId !== undefined ? { hostId } : {}) } },
        }),
      ),
  });
  // The releases of where it runs: the host's release images (?hostId= hostFabricReleases), else the
  // engine chosen: the process engine's programs, or the docker engine's images tagged by version.
  const releaseDefaults = consortiumDefaults.data as { fabricReleases?: string[]; dockerFabricReleases?: string[]; hostFabricReleases?: string[]; engine?: string } | undefined;
  const fabricReleases =
    (hostId !== undefined ? releaseDefaults?.hostFabricReleases : (advanced.engine || releaseDefaults?.engine) === 'docker' ? releaseDefaults?.dockerFabricReleases : releaseDefaults?.fabricReleases) ?? [];
  // A host with no release images: said beside the release choice (a create would be refused).
  const hostHasNoRelease = consortiumRole !== null && hostId !== undefined && releaseDefaults !== undefined && !consortiumDefaults.isPlaceholderData && fabricReleases.length === 0;
  const fields = ledgerX ? [] : configFields(kind as 'EVM_FULLNODE' | 'CONSORTIUM_PEER' | 'CONSORTIUM_ORDERER', 'create', fabricReleases);
  // The Fabric release is a choice of the node itself (a SmartBFT channel needs 3.x orderers), not a
  // detail: shown beside the organization; the other config fields stay under Advanced.
  const releaseFields = fields.filter((f) => f.key === 'fabricVersion');
  const advancedFields = fields.filter((f) => f.key !== 'fabricVersion');
  // A consortium node's defaults fill the fields (again when the kind or organization changes).
  useEffect(() => {
    const d = consortiumDefaults.data as { config?: Record<string, unknown>; engine?: string } | undefined;
    // Not the host name and external endpoint: the service derives them from the node's name and
    // port (the defaults' are peer0's / orderer0's and the default port's), so they stay placeholders.
    // On a node host, none: its ports are the host's (a cluster's NodePorts) and the host runs it
    // (a pod, a container), so the service allocates them and no engine is sent.
    if (consortiumRole && d?.config) setAdvanced(hostId !== undefined ? {} : configValues(fields, { ...d.config, hostname: null, externalEndpoint: null, engine: d.engine }));
    else if (!consortiumRole) setAdvanced({});
  }, [consortiumDefaults.data, consortiumRole]);
  const evmConfig = (evmDefaults.data as { config?: Record<string, unknown>; engine?: string; client?: string } | undefined) ?? undefined;
  const domain = (consortiumDefaults.data as { domain?: string | null } | undefined)?.domain;
  const placeholders =
    kind === 'EVM_FULLNODE' && evmConfig?.config
      ? Object.fromEntries(Object.entries(evmConfig.config).filter(([, v]) => typeof v === 'number').map(([k, v]) => [k, `${v} or the next free one`]))
      : consortiumRole
        ? { hostname: domain ? `${name || '<name>'}.${domain}` : '<name>.<organization domain>', externalEndpoint: `127.0.0.1:${advanced.port || '<port>'}` }
        : undefined;
  const localIssues = checked ? nodeConfigIssues(fields, advanced) : {};
  const config = { ...nodeConfigBody(fields, advanced), ...(placement ?? {}) };
  const hasConfig = Object.keys(config).length > 0;
  const orgs = useQuery({ queryKey: ['organizations'], enabled: kind !== 'EVM_FULLNODE', queryFn: () => unwrap(api.GET('/api/v1/organizations', { params: { query: { limit: 500 } } })) });
  const m = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/nodes', {
          body:
            kind === 'EVM_FULLNODE'
              ? { name, platform: 'EVM', nodeType: kind, networkId: Number(networkId), ...(hasConfig ? { config } : {}) }
              : ledgerX
                ? { name, platform: 'LEDGERX', nodeType: kind, organizationId: Number(organizationId), config: ledgerXConfig }
                : { name, platform: 'CONSORTIUM', nodeType: kind, organizationId: Number(organizationId), ...(hasConfig ? { config } : {}) },
        }),
      ),
    onSuccess: async (n) => {
      await qc.invalidateQueries({ queryKey: ['nodes'] });
      navigate(`/nodes/${n.id}`);
    },
  });
  // The advanced fields (NodeConfigFields) show the refusal's config fields beside them.
  useShownFields(ledgerX ? null : m.error, [...fields.map((f) => `config.${f.key}`), ...releaseFields.map((f) => f.key)]);
  return (
    <form
      className="card form-grid"
      aria-labelledby="new-node"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        setChecked(true);
        if (Object.keys(nodeConfigIssues(fields, advanced)).length) return;
        if (where.ready) m.mutate();
      }}
    >
      <h2 id="new-node">New node</h2>
      <label>
        Name
        <input {...invalid(m.error, 'name')} required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} />
        <FieldError error={m.error} field="name" />
      </label>
      <label>
        Kind
        <select {...invalid(m.error, 'nodeType')} value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
          <option value="EVM_FULLNODE">EVM full node</option>
          <option value="CONSORTIUM_PEER">Consortium peer</option>
          <option value="CONSORTIUM_ORDERER">Consortium orderer</option>
          <option value="LEDGERX_ORDERER_GROUP">LedgerX orderer group</option>
          <option value="LEDGERX_COMMITTER">LedgerX committer</option>
        </select>
        <FieldError error={m.error} field="nodeType" />
      </label>
      {kind === 'EVM_FULLNODE' ? (
        <label>
          EVM network
          <select {...invalid(m.error, 'networkId')} required value={networkId} onChange={(e) => setNetworkId(e.target.value)}>
            <option value="">Choose a network</option>
            {(evm.data?.items ?? []).map((n) => (
              <option key={n.id} value={n.id}>
                {n.name} (chain {n.chain_id})
              </option>
            ))}
          </select>
          <FieldError error={m.error} field="networkId" />
        </label>
      ) : (
        <label>
          Organization
          <select {...invalid(m.error, 'organizationId')} required value={organizationId} onChange={(e) => setOrganizationId(e.target.value)}>
            <option value="">Choose an organization</option>
            {(orgs.data?.items ?? []).map((o) => (
              <option key={o.id} value={o.id}>
                {o.name} ({o.mspId})
              </option>
            ))}
          </select>
          <FieldError error={m.error} field="organizationId" />
        </label>
      )}
      {releaseFields.length ? <NodeConfigFields fields={releaseFields} values={advanced} onChange={setAdvanced} errors={{ ...fieldErrors(m.error), ...fieldErrors(m.error, 'config.') }} idPrefix="new-node" /> : null}
      {!ledgerX ? <PlacementFields choice={where} error={m.error} field="config" idPrefix="node" /> : null}
      {hostHasNoRelease ? (
        <small className="error-text" role="note" data-testid="host-no-fabric-release">
          No Fabric release on this host: it has no lnm-fabric-peer and lnm-fabric-orderer images of one release (load them there, docs/consortium.md), so a node placed on it is refused.
        </small>
      ) : null}
      {ledgerX ? (
        <LedgerXNodeFields kind={kind} onConfig={setLedgerXConfig} errors={fieldErrors(m.error, 'config.')} refusal={m.error} />
      ) : (
        <>
          <p className="muted">The node starts once created; what Advanced leaves empty comes from the service's defaults.</p>
          <details className="advanced" open={Object.keys({ ...localIssues, ...fieldErrors(m.error, 'config.') }).some((k) => advancedFields.some((f) => f.key === k)) || undefined}>
            <summary>Advanced: ports, addresses, {kind === 'EVM_FULLNODE' ? 'role, client' : 'host name'} and engine</summary>
            <div className="form-grid">
              {consortiumRole && consortiumDefaults.isPending ? <p className="muted">Reading the defaults…</p> : null}
              {consortiumDefaults.error && consortiumRole ? <p className="muted">The defaults could not be read ({(consortiumDefaults.error as Error).message}); empty fields are filled by the service.</p> : null}
              {kind === 'EVM_FULLNODE' && evmConfig ? (
                <p className="muted">
                  Defaults: client {String(evmConfig.client)}, engine {String(evmConfig.engine)}; ports counted up from the ones shown until free.
                </p>
              ) : null}
              <NodeConfigFields fields={advancedFields} values={advanced} onChange={setAdvanced} errors={{ ...fieldErrors(m.error, 'config.'), ...localIssues }} placeholders={placeholders} idPrefix="new-node" />
            </div>
          </details>
        </>
      )}
      <ActionError error={m.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={m.isPending}>
          {m.isPending ? (ledgerX ? 'Creating…' : 'Creating and starting…') : 'Create node'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
