// Create a node: an EVM full node in an EVM network, or a consortium peer or orderer of an
// organization. It starts automatically; the API's defaults fill its ports and paths.
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useEvmNetworks } from '../../api/queries';
import { ActionError } from '../../components/states';
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
  const evm = useEvmNetworks();
  const orgs = useQuery({ queryKey: ['organizations'], enabled: kind !== 'EVM_FULLNODE', queryFn: () => unwrap(api.GET('/api/v1/organizations', { params: { query: { limit: 500 } } })) });
  const m = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/nodes', {
          body:
            kind === 'EVM_FULLNODE'
              ? { name, platform: 'EVM', nodeType: kind, networkId: Number(networkId) }
              : ledgerX
                ? { name, platform: 'LEDGERX', nodeType: kind, organizationId: Number(organizationId), config: ledgerXConfig }
                : { name, platform: 'CONSORTIUM', nodeType: kind, organizationId: Number(organizationId) },
        }),
      ),
    onSuccess: async (n) => {
      await qc.invalidateQueries({ queryKey: ['nodes'] });
      navigate(`/nodes/${n.id}`);
    },
  });
  return (
    <form
      className="card form-grid"
      aria-labelledby="new-node"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h2 id="new-node">New node</h2>
      <label>
        Name
        <input required maxLength={63} value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        Kind
        <select value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
          <option value="EVM_FULLNODE">EVM full node</option>
          <option value="CONSORTIUM_PEER">Consortium peer</option>
          <option value="CONSORTIUM_ORDERER">Consortium orderer</option>
          <option value="LEDGERX_ORDERER_GROUP">LedgerX orderer group</option>
          <option value="LEDGERX_COMMITTER">LedgerX committer</option>
        </select>
      </label>
      {kind === 'EVM_FULLNODE' ? (
        <label>
          EVM network
          <select required value={networkId} onChange={(e) => setNetworkId(e.target.value)}>
            <option value="">Choose a network</option>
            {(evm.data?.items ?? []).map((n) => (
              <option key={n.id} value={n.id}>
                {n.name} (chain {n.chain_id})
              </option>
            ))}
          </select>
        </label>
      ) : (
        <label>
          Organization
          <select required value={organizationId} onChange={(e) => setOrganizationId(e.target.value)}>
            <option value="">Choose an organization</option>
            {(orgs.data?.items ?? []).map((o) => (
              <option key={o.id} value={o.id}>
                {o.name} ({o.mspId})
              </option>
            ))}
          </select>
        </label>
      )}
      {ledgerX ? <LedgerXNodeFields kind={kind} onConfig={setLedgerXConfig} /> : <p className="muted">The node starts once created; ports and paths come from the service's defaults.</p>}
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
