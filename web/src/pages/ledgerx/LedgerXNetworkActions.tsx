// A ledgerX network's own actions: download its genesis block (GET .../genesis answers it in
// base64; saved as the raw block file, the one configtxgen made) and delete the network after a
// confirmation (NETWORK_DELETE; a 409 while an orderer group of it runs says which, and what to do).
import { useMutation } from '@tanstack/react-query';
import { getJson } from '../../api/client';
import { ActionError } from '../../components/states';
import { DeleteNetwork } from '../networks/DeleteNetwork';
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
  const genesis = useMutation({ mutationFn: () => downloadGenesis(network) });
  return (
    <>
      <DeleteNetwork
        platform="ledgerx"
        network={network}
        inUseHelp="Stop or delete its orderer groups first (on the Nodes tab), then delete the network."
        buttons={
          <button type="button" disabled={genesis.isPending} onClick={() => genesis.mutate()}>
            {genesis.isPending ? 'Fetching the genesis block…' : 'Download genesis block'}
          </button>
        }
      >
        <p>The network's record and genesis block go; its orderer groups and committers stay as nodes (they forget the network's block) and can be deleted or joined to another network.</p>
      </DeleteNetwork>
      <ActionError error={genesis.error} />
    </>
  );
}
