// After this instance committed a chaincode definition it shared with peer instances, each of
// them is told (a signed request, as every other): their peers endorse with their own chaincode
// servers, which they start once their peer sees the commit. Best effort: the commit stands
// whatever a peer answers, and each peer's answer is reported (a peer that failed can still
// start its server with its own commit call, which then answers already-committed).
import type { ChaincodeRow } from '../../projections/consortium/consortiumChaincodes.ts';
import { getSharingPeer } from '../../projections/nodeSharing.ts';
import type { CommandInput } from '../keys/keyCreation.ts';
import { post } from './configProposals.ts';
import { sharingState } from './sharingContext.ts';

export interface PeerCommitNotice {
  peer_id: number;
  instance_id: string;
  status: 'server-started' | 'failed';
  server_status: string | null;
  error: string | null;
}

export async function notifyChaincodeCommitted(input: CommandInput, chaincode: ChaincodeRow): Promise<PeerCommitNotice[]> {
  if (chaincode.sharedFrom) return [];
  const { peers } = await sharingState(input.deps);
  const out: PeerCommitNotice[] = [];
  for (const [id, p] of Object.entries(peers)) {
    if (p.revoked || !(p.sharedChaincodes ?? []).includes(chaincode.id)) continue;
    const peer = await getSharingPeer(input.deps.pool, Number(id));
    if (!peer) continue;
    try {
      const r = await post(input, peer, '/sharing/v1/chaincodes/committed', { chaincodeId: chaincode.id, sequence: chaincode.sequence });
      out.push({ peer_id: peer.id, instance_id: peer.instanceId, status: 'server-started', server_status: String(r?.serverStatus ?? null), error: null });
    } catch (err) {
      out.push({ peer_id: peer.id, instance_id: peer.instanceId, status: 'failed', server_status: null, error: (err as Error).message });
    }
  }
  return out;
}
