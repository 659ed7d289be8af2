// A ledgerX network's own actions: download its genesis block (GET .../genesis answers it in
// base64; saved as the raw block file, the one configtxgen made) and delete the network after a
// confirmation (NETWORK_DELETE; a 409 while an orderer group of it runs says which, and what to do).
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, getJson, unwrap } from '../../api/client';
import { Can } from '../../session';
import { ActionError } from '../../components/states';
import type { LedgerXNetwork } from './queries';

async function downloadGenesis(n: LedgerXNetwork): Promise<void> {
  const { block } = await getJson<{ block: string }>(`/api/v1/networks/ledgerx/${n.id}/genesis`);
  const bin = atob(block);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `${n.channel_name}-genesis.block`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function LedgerXNetworkActions({ network }: { network: LedgerXNetwork }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const genesis = useMutation({ mutationFn: () => downloadGenesis(network) });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/networks/ledgerx/{id}', { params: { path: { id: network.id } } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['networks'] });
      navigate('/networks');
    },
  });
  const inUse = remove.error instanceof ApiError && remove.error.status === 409;
  return (
    <>
      <div className="actions">
        <button type="button" disabled={genesis.isPending} onClick={() => genesis.mutate()}>
          {genesis.isPending ? 'Fetching the genesis block…' : 'Download genesis block'}
        </button>
        {!confirming ? (
          <Can permission="NETWORK_DELETE">
            <button type="button" className="danger" onClick={() => setConfirming(true)}>
              Delete network
            </button>
          </Can>
        ) : null}
      </div>
      <ActionError error={genesis.error} />
      {confirming ? (
        <div className="card" role="group" aria-labelledby="delete-network-title">
          <h2 id="delete-network-title">Delete the network {network.name}?</h2>
          <p>The network's record and genesis block go; its orderer groups and committers stay as nodes (they forget the network's block) and can be deleted or joined to another network.</p>
          {inUse ? (
            <div className="action-error" role="alert">
              <p>
                <strong>The network is in use and was not deleted (409).</strong> {(remove.error as ApiError).message}
              </p>
              <p>Stop or delete its orderer groups first (on the Nodes tab), then delete the network.</p>
            </div>
          ) : (
            <ActionError error={remove.error} />
          )}
          <div className="actions">
            <button type="button" className="danger" disabled={remove.isPending || inUse} onClick={() => remove.mutate()}>
              {remove.isPending ? 'Deleting…' : `Yes, delete ${network.name}`}
            </button>
            <button
              type="button"
              onClick={() => {
                setConfirming(false);
                remove.reset();
              }}
            >
              {inUse ? 'Close' : 'Cancel'}
            </button>
          </div>
        </div>
      ) : null}
    </>
  );
}
