// Validator votes of a QBFT, IBFT 2.0 or Clique network (GET/POST /networks/{id}/validators/votes,
// DELETE .../votes/{address}): each running validator node's pending votes, and (NETWORK_UPDATE)
// a vote to add or remove a validator (a Clique signer) cast by every running validator node, or
// withdrawn; the answer's rule (BFT: at the next epoch boundary; Clique: in the block where the
// majority is reached) is shown. A network without voting (anvil, PoW) or without a running
// validator answers 409, said in words. The GET and POST answers are untyped in the OpenAPI document: read with local types.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, getJson, unwrap } from '../../api/client';
import { Can } from '../../session';
import { ActionError, ErrorState, Loading, FieldError, invalid } from '../../components/states';

interface PendingVotes {
  network_id: number;
  nodes: Array<{ node_id: number; validator_address: string | null; votes: Record<string, boolean> }>;
}
interface VoteResult {
  address: string;
  add: boolean;
  validators_now: number;
  validators_after: number;
  votes_cast: number;
  votes_needed: number;
  passes: boolean;
  /** The voting rule of the network's consensus, in words. */
  rule?: string;
  note: string;
}

export function ValidatorVotes({ networkId }: { networkId: number }) {
  const qc = useQueryClient();
  const key = ['validator-votes', networkId];
  const votes = useQuery({ queryKey: key, retry: false, refetchInterval: 10_000, queryFn: () => getJson<PendingVotes>(`/api/v1/networks/${networkId}/validators/votes`) });
  const withdraw = useMutation({
    mutationFn: (address: string) => unwrap(api.DELETE('/api/v1/networks/{networkId}/validators/votes/{address}', { params: { path: { networkId, address } } })),
    onSettled: () => qc.invalidateQueries({ queryKey: key }),
  });
  const noVoting = votes.error instanceof ApiError && votes.error.status === 409;
  const pending = votes.data ? [...new Set(votes.data.nodes.flatMap((n) => Object.keys(n.votes)))] : [];
  return (
    <section aria-labelledby="votes-title">
      <h2 id="votes-title">Validator votes</h2>
      {votes.isPending ? (
        <Loading what="Asking the validators for their votes" />
      ) : noVoting ? (
        <p className="state empty" data-testid="votes-unavailable">
          No validator voting here: {(votes.error as ApiError).message}
        </p>
      ) : votes.error ? (
        <ErrorState error={votes.error} retry={() => votes.refetch()} />
      ) : pending.length === 0 ? (
        <p className="state empty">No pending votes on any running validator.</p>
      ) : (
        <table>
          <caption className="sr-only">Pending validator votes</caption>
          <thead>
            <tr>
              <th scope="col">Address voted on</th>
              <th scope="col">Votes</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {pending.map((address) => {
              const by = votes.data!.nodes.filter((n) => address in n.votes);
              return (
                <tr key={address}>
                  <td>
                    <code>{address}</code>
                  </td>
                  <td>
                    {by.filter((n) => n.votes[address]).length} to add, {by.filter((n) => !n.votes[address]).length} to remove (of {votes.data!.nodes.length} running validators)
                  </td>
                  <td>
                    <Can permission="NETWORK_UPDATE">
                      <button type="button" disabled={withdraw.isPending} onClick={() => withdraw.mutate(address)} aria-label={`Withdraw the votes on ${address}`}>
                        Withdraw
                      </button>
                    </Can>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <ActionError error={withdraw.error} />
      {!noVoting ? (
        <Can permission="NETWORK_UPDATE">
          <CastVote networkId={networkId} onCast={() => qc.invalidateQueries({ queryKey: key })} />
        </Can>
      ) : null}
    </section>
  );
}

function CastVote({ networkId, onCast }: { networkId: number; onCast: () => void }) {
  const [address, setAddress] = useState('');
  const [add, setAdd] = useState(true);
  const m = useMutation({
    mutationFn: async () => (await unwrap(api.POST('/api/v1/networks/{networkId}/validators/votes', { params: { path: { networkId } }, body: { address: address.trim(), add } }))) as unknown as VoteResult,
    onSuccess: onCast,
  });
  return (
    <form
      className="card form-grid"
      aria-labelledby="vote-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h3 id="vote-title">Vote on a validator</h3>
      <label>
        Validator address
        <input {...invalid(m.error, 'address')} className="code" required pattern="0x[0-9a-fA-F]{40}" placeholder="0x…" value={address} onChange={(e) => setAddress(e.target.value)} />
        <FieldError error={m.error} field="address" />
      </label>
      <label>
        Vote
        <select {...invalid(m.error, 'add')} value={add ? 'add' : 'remove'} onChange={(e) => setAdd(e.target.value === 'add')}>
          <option value="add">Add it to the validators</option>
          <option value="remove">Remove it from the validators</option>
        </select>
        <FieldError error={m.error} field="add" />
      </label>
      <p className="hint">Every running validator node of this service casts the vote; a change passes when more than half of the validators vote for it (QBFT and IBFT 2.0: at the next epoch boundary; Clique: in the first block in which that majority has voted).</p>
      <ActionError error={m.error} />
      {m.data ? (
        <p role="status" className={`verdict ${m.data.passes ? 'valid' : 'invalid'}`}>
          {m.data.votes_cast} votes cast, {m.data.votes_needed} needed, to {m.data.add ? 'add' : 'remove'} {m.data.address} ({m.data.validators_now} validators now, {m.data.validators_after} after): {m.data.passes ? 'it passes' : 'not enough yet'}. {m.data.rule ? `${m.data.rule} ` : ''}{m.data.note}
        </p>
      ) : null}
      <div>
        <button type="submit" disabled={m.isPending}>
          {m.isPending ? 'Voting…' : 'Cast vote'}
        </button>
      </div>
    </form>
  );
}
