// A failed create (GET /creations/{id}): the step that failed and why, what it made, and one
// button that removes all of it with their keys (POST /creations/{id}/undo). Shown by the
// consortium and the ledgerX quick starts' pages.
import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../api/client';
import type { paths } from '../api/schema';

export type Creation = paths['/api/v1/creations/{id}']['get']['responses'][200]['content']['application/json'];

const RESOURCE_NAMES: Record<string, string> = { organization: 'Organization', node: 'Node', network: 'Network', key: 'Key' };
const describe = (rs: Creation['made']) => rs.map((r) => `${RESOURCE_NAMES[r.resource] ?? r.resource} #${r.id}${r.reason ? ` (${r.reason})` : ''}`);

export function CreationUndo({ creation, onChange }: { creation: Creation; onChange: (c: Creation) => void }) {
  const qc = useQueryClient();
  const [undoing, setUndoing] = useState(false);
  const [undoError, setUndoError] = useState<string | null>(null);

  async function undo() {
    setUndoing(true);
    setUndoError(null);
    try {
      onChange(await unwrap(api.POST('/api/v1/creations/{id}/undo', { params: { path: { id: creation.id } } })));
    } catch (e) {
      setUndoError(e instanceof ApiError ? `${e.message} (${e.code}, HTTP ${e.status})` : (e as Error).message);
    } finally {
      setUndoing(false);
      await qc.invalidateQueries({ queryKey: ['networks'] });
      await qc.invalidateQueries({ queryKey: ['nodes'] });
      await qc.invalidateQueries({ queryKey: ['organizations'] });
      await qc.invalidateQueries({ queryKey: ['keys'] });
    }
  }

  if (creation.status === 'IN_PROGRESS' || creation.status === 'COMPLETED') return null;
  return (
    <section className="card" aria-labelledby="qs-failed-title">
      <h2 id="qs-failed-title">{creation.status === 'UNDONE' ? 'What the quick start made is removed' : 'The quick start failed'}</h2>
      <p>
        Failed step: <strong>{creation.step}</strong>
        {creation.message ? <> — {creation.message}</> : null}
      </p>
      {creation.status === 'UNDONE' ? (
        <p role="status">Removed: {describe(creation.removed).join(', ') || 'nothing was made'}.</p>
      ) : (
        <>
          <p>What it made ({creation.remaining.length}, with their keys):</p>
          <ul aria-label="Made by the quick start">
            {describe(creation.remaining).map((d) => (
              <li key={d}>{d}</li>
            ))}
          </ul>
          {creation.left.length ? <p className="error">Could not be removed: {describe(creation.left).join(', ')}</p> : null}
          <button type="button" className="danger" disabled={undoing} onClick={() => void undo()}>
            {undoing ? 'Removing…' : 'Remove what was made'}
          </button>
        </>
      )}
      {undoError ? (
        <p className="error" role="alert">
          {undoError}
        </p>
      ) : null}
    </section>
  );
}
