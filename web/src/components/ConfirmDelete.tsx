// The one confirmation card of a destructive action: what happens, "Yes, <verb> <name>" and
// "Cancel"; a 409 (the thing is still in use) is said in words with what to do first, and the
// confirm button stays disabled after it. Used for keys, hosts, organizations, users, backup
// targets and backups.
import { useId, type ReactNode } from 'react';
import { useMutation } from '@tanstack/react-query';
import { ApiError } from '../api/client';
import { ActionError } from './states';

export function ConfirmDelete({
  title,
  children,
  name,
  verb = 'delete',
  pending = 'Deleting…',
  action,
  onDeleted,
  onCancel,
  inUse,
  headingLevel = 3,
}: {
  /** The question, e.g. "Delete the key k1?". */
  title: string;
  /** What the action does, said before it is done. */
  children: ReactNode;
  /** Named on the confirm button ("Yes, delete <name>"). */
  name: string;
  verb?: string;
  pending?: string;
  action: () => Promise<unknown>;
  onDeleted: () => unknown;
  onCancel: () => void;
  /** A 409's heading and what to do about it. */
  inUse?: { title: string; help: ReactNode };
  headingLevel?: 2 | 3;
}) {
  const id = useId();
  const m = useMutation({ mutationFn: action, onSuccess: async () => onDeleted() });
  const refused = inUse && m.error instanceof ApiError && m.error.status === 409;
  const H = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <div className="card" role="group" aria-labelledby={id}>
      <H id={id}>{title}</H>
      {children}
      {refused ? (
        <div className="action-error" role="alert">
          <p>
            <strong>{inUse.title}</strong> {(m.error as ApiError).message}
          </p>
          <p>{inUse.help}</p>
        </div>
      ) : (
        <ActionError error={m.error} />
      )}
      <div className="actions">
        <button type="button" className="danger" disabled={m.isPending || refused} onClick={() => m.mutate()}>
          {m.isPending ? pending : `Yes, ${verb} ${name}`}
        </button>
        <button type="button" onClick={onCancel}>
          {refused ? 'Close' : 'Cancel'}
        </button>
      </div>
    </div>
  );
}
