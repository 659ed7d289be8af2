// Create a ledgerX network (one Fabric-X channel ordered by Arma) from existing orderer groups:
// each group picked is one party (ids 1..n in the order picked); the service builds the genesis
// block. Groups and committers then join it from the network's page.
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useAllNodes } from '../../api/queries';
import { ActionError, Empty, QueryView, FieldError, invalid } from '../../components/states';
import { StatusBadge } from '../../components/format';
import { useLedgerXNetworks } from './queries';

export default function LedgerXNetworkCreate() {
  const navigate = useNavigate();
  const qc = useQueryClient();
  const nodes = useAllNodes('LEDGERX');
  const networks = useLedgerXNetworks();
  const [name, setName] = useState('');
  const [channel, setChannel] = useState('');
  const [description, setDescription] = useState('');
  const [groups, setGroups] = useState<number[]>([]);
  const m = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/networks/ledgerx', {
          body: { name, ordererGroupIds: groups, ...(channel ? { channelName: channel } : {}), ...(description ? { description } : {}) },
        }),
      ),
    onSuccess: async (n) => {
      await qc.invalidateQueries({ queryKey: ['networks'] });
      navigate(`/networks/ledgerx/${n.id}`);
    },
  });
  const taken = new Set((networks.data?.items ?? []).flatMap((n) => n.nodes.map((x) => x.node_id)));
  return (
    <section>
      <p className="crumbs">
        <Link to="/networks">Networks</Link> /
      </p>
      <h1>Create a ledgerX network</h1>
      <form
        className="card form-grid"
        aria-label="Create a ledgerX network"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          m.mutate();
        }}
      >
        <label>
          Name
          <input {...invalid(m.error, 'name')} required maxLength={64} value={name} onChange={(e) => setName(e.target.value)} />
          <FieldError error={m.error} field="name" />
        </label>
        <label>
          Channel name
          <input {...invalid(m.error, 'channelName')} maxLength={249} pattern="[a-z][a-z0-9.\-]*" value={channel} placeholder={name.toLowerCase()} onChange={(e) => setChannel(e.target.value)} aria-describedby="lx-channel-help" />
          <FieldError error={m.error} field="channelName" />
          <small id="lx-channel-help">Optional (default: the name in lower case). Lower-case letters, digits, “.” and “-”, starting with a letter.</small>
        </label>
        <label>
          Description
          <input {...invalid(m.error, 'description')} maxLength={500} value={description} onChange={(e) => setDescription(e.target.value)} />
          <FieldError error={m.error} field="description" />
        </label>
        <QueryView q={nodes} what="Loading ledgerX nodes">
          {(d) => {
            const free = d.items.filter((n) => n.nodeType === 'LEDGERX_ORDERER_GROUP' && !taken.has(n.id));
            return free.length === 0 ? (
              <Empty>
                No orderer group outside a network: create one under <Link to="/nodes">Nodes</Link> (kind “LedgerX orderer group”).
              </Empty>
            ) : (
              <fieldset>
                <legend>Orderer groups (one party each, numbered in the order picked; four tolerate one fault)</legend>
                {free.map((n) => (
                  <label key={n.id} className="inline">
                    <input type="checkbox" checked={groups.includes(n.id)} onChange={(e) => setGroups(e.target.checked ? [...groups, n.id] : groups.filter((x) => x !== n.id))} /> {n.name}
                    {groups.includes(n.id) ? <span className="muted"> (party {groups.indexOf(n.id) + 1})</span> : null} <StatusBadge status={n.status} />
                  </label>
                ))}
                <FieldError error={m.error} field="ordererGroupIds" />
              </fieldset>
            );
          }}
        </QueryView>
        <p className="muted">Committers are not part of the genesis block: they join the network from its page once it exists.</p>
        <ActionError error={m.error} />
        <div>
          <button type="submit" className="primary" disabled={m.isPending || groups.length === 0}>
            {m.isPending ? 'Building the genesis block…' : 'Create network'}
          </button>
        </div>
      </form>
    </section>
  );
}
