// Which actions a node's state offers: a running node stops or restarts; a node in transition
// offers nothing; any other state (created, stopped, error, ...) starts or is deleted.
export type Action = 'start' | 'stop' | 'restart' | 'delete';

export function actionsFor(status: string): Action[] {
  const s = status.toLowerCase();
  if (s === 'running') return ['stop', 'restart'];
  if (['starting', 'stopping', 'deleting', 'updating'].includes(s)) return [];
  return ['start', 'delete'];
}
