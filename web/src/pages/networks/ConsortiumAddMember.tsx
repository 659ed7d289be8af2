// "Add a peer or orderer" to a consortium network (POST /networks/consortium/{id}/nodes, NODE_CREATE):
// the node is made in one of the network's organizations and started; it is joined afterwards with
// the join buttons. What the service will give it (ports, hostname, whether the programs are
// here) is shown from GET /nodes/defaults/consortium-peer|orderer before it is made, with the Fabric
// releases the service finds to pick from (default: the newest; a SmartBFT network's orderers need 3.x).
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, getJson, unwrap } from '../../api/client';
import { Can } from '../../session';
import { ActionError, QueryView, FieldError, invalid } from '../../components/states';

type Role = 'peer' | 'orderer';
interface Defaults {
  available: boolean;
  unavailableReason: string | null;
  mspId: string | null;
  config: { hostname: string | null; externalEndpoint: string; port: number; operationsPort?: number; chaincodePort?: number; adminPort?: number };
  note: string;
  fabricReleases?: string[];
}
type Org = { msp_id: string; organization_id: number | null };

/** The answer is untyped in the OpenAPI document: read with getJson. */
function defaultsOf(role: Role, organizationId: number | null): Promise<Defaults> {
  const q = organizationId ? `?organizationId=${organizationId}` : '';
  return role === 'peer' ? getJson<Defaults>('/api/v1/nodes/defaults/consortium-peer' + q) : getJson<Defaults>('/api/v1/nodes/defaults/consortium-orderer' + q);
}

type Network = { id: number; name: string; consensus: string; organizations: Org[]; orderer_organizations: Org[] };

export function ConsortiumAddMember({ network }: { network: Network }) {
  const [open, setOpen] = useState(false);
  return (
    <Can permission="NODE_CREATE">
      {open ? (
        <AddMemberForm network={network} onDone={() => setOpen(false)} />
      ) : (
        <div className="actions">
          <button type="button" onClick={() => setOpen(true)}>
            Add a peer or orderer
          </button>
        </div>
      )}
    </Can>
  );
}

function AddMemberForm({ network, onDone }: { network: Network; onDone: () => void }) {
  const qc = useQueryClient();
  const [role, setRole] = useState<Role>('peer');
  const [name, setName] = useState('');
  const orgs = (role === 'peer' ? network.organizations : network.orderer_organizations).filter((o): o is { msp_id: string; organization_id: number } => o.organization_id !== null);
  const [orgId, setOrgId] = useState<number | null>(null);
  const [fabricVersion, setFabricVersion] = useState('');
  const picked = orgs.find((o) => o.organization_id === orgId)?.organization_id ?? orgs[0]?.organization_id ?? null;
  const defaults = useQuery({ queryKey: ['node-defaults', 'consortium', role, picked], queryFn: () => defaultsOf(role, picked) });
  const m = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/networks/consortium/{id}/nodes', { params: { path: { id: network.id } }, body: { name, nodeType: role === 'peer' ? 'CONSORTIUM_PEER' : 'CONSORTIUM_ORDERER', ...(picked ? { organizationId: picked } : {}), ...(fabricVersion ? { fabricVersion } : {}) } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['nodes'] }),
  });
  if (m.data) {
    return (
      <div className="card" role="status">
        <p>
          <strong>
            {role === 'peer' ? 'Peer' : 'Orderer'} <Link to={`/nodes/${m.data.id}`}>{m.data.name}</Link> made: {m.data.status}
            {m.data.fabric_version ? <>, Fabric <span data-testid="member-fabric-version">{m.data.fabric_version}</span></> : null}.
          </strong>{' '}
          Join it to the channel with its join button in the list below once it runs.
        </p>
        <button type="button" onClick={onDone}>
          Close
        </button>
      </div>
    );
  }
  return (
    <form
      className="card form-grid"
      aria-labelledby="add-member-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h3 id="add-member-title">Add a peer or orderer to {network.name}</h3>
      <label>
        Kind
        <select {...invalid(m.error, 'nodeType')} value={role} onChange={(e) => setRole(e.target.value as Role)}>
          <option value="peer">Peer</option>
          <option value="orderer">Orderer</option>
        </select>
        <FieldError error={m.error} field="nodeType" />
      </label>
      <label>
        Node name
        <input {...invalid(m.error, 'name')} required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} placeholder={`${role}1`} />
        <FieldError error={m.error} field="name" />
      </label>
      <label>
        Organization
        <select {...invalid(m.error, 'organizationId')} value={picked ?? ''} onChange={(e) => setOrgId(Number(e.target.value))}>
          {orgs.length === 0 ? <option value="">None of this service</option> : null}
          {orgs.map((o) => (
            <option key={o.organization_id} value={o.organization_id}>
              {o.msp_id}
            </option>
          ))}
        </select>
        <FieldError error={m.error} field="organizationId" />
      </label>
      {(defaults.data?.fabricReleases?.length ?? 0) > 1 ? (
        <label>
          Fabric release
          <select {...invalid(m.error, 'fabricVersion')} value={fabricVersion} onChange={(e) => setFabricVersion(e.target.value)} aria-describedby="member-release-help">
            <option value="">The newest ({defaults.data!.fabricReleases![0]})</option>
            {defaults.data!.fabricReleases!.map((v) => (
              <option key={v} value={v}>
                Fabric {v}
              </option>
            ))}
          </select>
          <FieldError error={m.error} field="fabricVersion" />
          <small id="member-release-help">{network.consensus === 'smartbft' && role === 'orderer' ? 'This SmartBFT channel needs orderers on Fabric 3.x.' : 'The release whose programs it runs.'}</small>
        </label>
      ) : null}
      <QueryView q={defaults} what="Asking the service for the defaults">
        {(d) => (
          <p className="hint" data-testid="member-defaults">
            {d.available ? '' : `This service cannot run a ${role} here: ${d.unavailableReason}. `}
            It will get port {d.config.port}
            {d.config.operationsPort ? `, operations port ${d.config.operationsPort}` : ''}
            {d.config.chaincodePort ? `, chaincode port ${d.config.chaincodePort}` : ''}
            {d.config.adminPort ? `, admin port ${d.config.adminPort}` : ''}, endpoint {d.config.externalEndpoint}
            {d.config.hostname ? ` and the hostname ${d.config.hostname.replace(/^[^.]+/, name || `${role}0`)}` : ''}.
          </p>
        )}
      </QueryView>
      <ActionError error={m.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={m.isPending || orgs.length === 0}>
          {m.isPending ? 'Creating and starting…' : `Add ${role}`}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
