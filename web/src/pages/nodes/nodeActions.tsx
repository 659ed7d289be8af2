// Start, stop, restart and delete, offered by the node's state and only to those allowed. The
// delete confirmation offers "Also delete its keys" (its identity and TLS keys; with KEY_DELETE).
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useSession } from '../../session';
import { ActionError } from '../../components/states';
import { actionsFor, type Action } from './nodeStates';

export function NodeActions({ id, name, status, onDeleted }: { id: number; name: string; status: string; onDeleted?: () => void }) {
  const { can } = useSession();
  const qc = useQueryClient();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [deleteKeys, setDeleteKeys] = useState(false);
  const m = useMutation({
    mutationFn: async (a: Action) => {
      const params = { params: { path: { id } } };
      if (a === 'start') return unwrap(api.POST('/api/v1/nodes/{id}/start', params));
      if (a === 'stop') return unwrap(api.POST('/api/v1/nodes/{id}/stop', params));
      if (a === 'restart') return unwrap(api.POST('/api/v1/nodes/{id}/restart', params));
      return unwrap(api.DELETE('/api/v1/nodes/{id}', { params: { path: { id }, query: deleteKeys ? { deleteKeys } : {} } }));
    },
    onSettled: async (_d, _e, a) => {
      await qc.invalidateQueries({ queryKey: ['nodes'] });
      await qc.invalidateQueries({ queryKey: ['node', id] });
      if (a === 'delete') await qc.invalidateQueries({ queryKey: ['keys'] });
      if (a === 'delete' && !m.error) onDeleted?.();
    },
  });
  const allowed = actionsFor(status).filter((a) => can(a === 'delete' ? 'NODE_DELETE' : 'NODE_OPERATE'));
  if (!allowed.length) return null;
  const label: Record<Action, string> = { start: 'Start', stop: 'Stop', restart: 'Restart', delete: 'Delete' };
  const busy: Record<Action, string> = { start: 'Starting…', stop: 'Stopping…', restart: 'Restarting…', delete: 'Deleting…' };
  return (
    <div className="actions">
      {allowed.map((a) =>
        a === 'delete' && confirmDelete ? (
          <span key={a} className="confirm">
            <button type="button" className="danger" onClick={() => m.mutate('delete')} disabled={m.isPending} aria-label={`Confirm delete of node ${name}`}>
              Confirm delete
            </button>
            <button type="button" onClick={() => setConfirmDelete(false)}>
              Cancel
            </button>
            {can('KEY_DELETE') ? (
              <label className="inline">
                <input type="checkbox" checked={deleteKeys} onChange={(e) => setDeleteKeys(e.target.checked)} /> Also delete its keys (its identity and TLS keys, each deletion audited)
              </label>
            ) : null}
          </span>
        ) : (
          <button
            key={a}
            type="button"
            className={a === 'delete' ? 'danger' : undefined}
            disabled={m.isPending}
            aria-label={`${label[a]} node ${name}`}
            onClick={() => (a === 'delete' ? setConfirmDelete(true) : m.mutate(a))}
          >
            {m.isPending && m.variables === a ? busy[a] : label[a]}
          </button>
        ),
      )}
      <ActionError error={m.error} />
    </div>
  );
}
