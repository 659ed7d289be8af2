// Start, stop and restart a whole network (POST /networks/{networkId}/start, /stop, /restart),
// for the platforms that start as a whole (evm, consortium). The server stops the nodes in
// reverse dependency order and starts them in order; the answer lists each node's status after,
// said here. Offered by the nodes' states, only to those with NETWORK_OPERATE.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { Can } from '../../session';
import { ActionError } from '../../components/states';

type Op = 'start' | 'stop' | 'restart';

const label: Record<Op, string> = { start: 'Start network', stop: 'Stop network', restart: 'Restart network' };
const busy: Record<Op, string> = { start: 'Starting network…', stop: 'Stopping network…', restart: 'Restarting network…' };
const done: Record<Op, string> = { start: 'started', stop: 'stopped', restart: 'restarted' };

/** `statuses`: the network's nodes' statuses (none: only Start, which makes an evm network's nodes). */
export function NetworkOperations({ networkId, statuses }: { networkId: number; statuses: string[] }) {
  const qc = useQueryClient();
  const m = useMutation({
    mutationFn: (op: Op) => {
      const params = { params: { path: { networkId } } };
      if (op === 'stop') return unwrap(api.POST('/api/v1/networks/{networkId}/stop', params));
      if (op === 'restart') return unwrap(api.POST('/api/v1/networks/{networkId}/restart', params));
      return unwrap(api.POST('/api/v1/networks/{networkId}/start', params));
    },
    onSettled: async () => {
      await qc.invalidateQueries({ queryKey: ['nodes'] });
      await qc.invalidateQueries({ queryKey: ['network'] });
    },
  });
  const anyUp = statuses.some((s) => s === 'running' || s === 'starting');
  const allRunning = statuses.length > 0 && statuses.every((s) => s === 'running');
  const ops: Op[] = [...(allRunning ? [] : (['start'] as Op[])), ...(anyUp ? (['stop'] as Op[]) : []), ...(statuses.length ? (['restart'] as Op[]) : [])];
  const answer = m.data as { nodes?: Array<{ name: string; status: string }> } | undefined;
  return (
    <Can permission="NETWORK_OPERATE">
      <div className="actions" role="group" aria-label="Network operations">
        {ops.map((op) => (
          <button key={op} type="button" className={op === 'start' ? 'primary' : undefined} disabled={m.isPending} onClick={() => m.mutate(op)}>
            {m.isPending && m.variables === op ? busy[op] : label[op]}
          </button>
        ))}
      </div>
      <ActionError error={m.error} />
      {answer?.nodes && m.variables && !m.isPending ? (
        <p role="status" data-testid="network-operation">
          Network {done[m.variables]}: {answer.nodes.map((n) => `${n.name} ${n.status}`).join(', ') || 'no nodes'}.
        </p>
      ) : null}
    </Can>
  );
}
