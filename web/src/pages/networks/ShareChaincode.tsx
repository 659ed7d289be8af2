// Sharing a chaincode defined here with the peer instance holding another organization of the
// channel (POST /nodesharing/chaincodes, pro): the definition and its source travel there, where
// its operator installs and approves it; the answer names the chaincode's record there, a
// refusal shows the other instance's reason (502) or why it cannot go (409: no organization of
// the channel on that peer). Only on a pro edition, for those who may manage chaincode.
import { useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { editionAtLeast, useSession } from '../../session';
import { ActionError, QueryView, FieldError, invalid } from '../../components/states';
import type { ChaincodeRecord } from './Chaincode';

interface ShareAnswer {
  chaincode_id: number;
  peer_id: number;
  instance_id: string;
  channel_name: string;
  status: string;
  peer_chaincode_id: number | null;
}

export function ShareChaincode({ chaincodes }: { chaincodes: ChaincodeRecord[] }) {
  const { me } = useSession();
  if (!editionAtLeast(me.edition, 'pro')) return null;
  return <ShareForm chaincodes={chaincodes} />;
}

function ShareForm({ chaincodes }: { chaincodes: ChaincodeRecord[] }) {
  const peers = useQuery({ queryKey: ['sharing', 'peers'], refetchInterval: 10_000, queryFn: () => unwrap(api.GET('/api/v1/nodesharing/peers', { params: { query: { limit: 500 } } })) });
  const [chaincodeId, setChaincodeId] = useState(String(chaincodes[0].id));
  const [peerId, setPeerId] = useState('');
  const m = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/nodesharing/chaincodes', { body: { chaincode_id: Number(chaincodeId), ...(peerId ? { peer_id: Number(peerId) } : {}) } })) as Promise<unknown> as Promise<ShareAnswer>,
  });
  return (
    <form
      className="card form-grid"
      aria-labelledby="cc-share-title"
      onSubmit={(e) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h3 id="cc-share-title">Share with a peer instance</h3>
      <p className="hint">The definition and its source go to the instance holding another organization of this channel; its operator installs and approves it there, then commit it here.</p>
      <QueryView q={peers} what="Loading peer instances">
        {(d) => {
          const active = d.items.filter((p) => p.status === 'active');
          return active.length === 0 ? (
            <p className="state empty">No active peer instance: invite one on the node sharing page first.</p>
          ) : (
            <>
              <label>
                Chaincode
                <select {...invalid(m.error, 'chaincode_id')} value={chaincodeId} onChange={(e) => {
                    setChaincodeId(e.target.value);
                    m.reset();
                  }}>
                  {chaincodes.map((c) => (
                    <option key={c.id} value={c.id}>
                      {c.name} {c.version} (sequence {c.sequence})
                    </option>
                  ))}
                </select>
                <FieldError error={m.error} field="chaincode_id" />
              </label>
              <label>
                Peer instance
                <select {...invalid(m.error, 'peer_id')} value={peerId} onChange={(e) => {
                    setPeerId(e.target.value);
                    m.reset();
                  }}>
                  <option value="">The first one holding an organization of the channel</option>
                  {active.map((p) => (
                    <option key={p.id} value={p.id}>
                      {p.instance_id} ({p.organizations.join(', ') || 'no organizations shared'})
                    </option>
                  ))}
                </select>
                <FieldError error={m.error} field="peer_id" />
              </label>
              <ActionError error={m.error} />
              {m.data ? (
                <p className="verdict valid" role="status" data-testid="chaincode-shared">
                  Shared with instance {m.data.instance_id} (peer {m.data.peer_id}) on channel {m.data.channel_name}
                  {m.data.peer_chaincode_id ? `: chaincode ${m.data.peer_chaincode_id} there` : ''}. Its operator installs and approves it there.
                </p>
              ) : null}
              <div>
                <button type="submit" className="primary" disabled={m.isPending}>
                  {m.isPending ? 'Sharing…' : 'Share chaincode'}
                </button>
              </div>
            </>
          );
        }}
      </QueryView>
    </form>
  );
}
