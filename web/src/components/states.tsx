// The three states every page has besides its data: loading, error (a 403 said as such, an
// edition gate named), and empty.
import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ApiError } from '../api/client';

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="state loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {what}…
    </p>
  );
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  if (error instanceof ApiError && error.status === 403) {
    const edition = /edition/i.test(error.message) || error.code.includes('EDITION');
    return (
      <div className="state error forbidden" role="alert">
        <h2>{edition ? 'Not in this edition' : 'Permission denied (403)'}</h2>
        <p>{edition ? error.message : `Your role does not allow this. ${error.message}`}</p>
      </div>
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="state error" role="alert">
      <h2>{error instanceof ApiError && error.status === 404 ? 'Not found' : 'Something went wrong'}</h2>
      <p>
        {message}
        {error instanceof ApiError ? <span className="muted"> ({error.code}, HTTP {error.status})</span> : null}
      </p>
      {retry ? (
        <button type="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="state empty">{children}</div>;
}

/** Loading, error, or the children with the data. */
export function QueryView<T>({ q, children, what }: { q: { isPending: boolean; error: unknown; data: T | undefined; refetch: () => unknown }; what?: string; children: (data: T) => ReactNode }) {
  if (q.isPending) return <Loading what={what} />;
  if (q.error) return <ErrorState error={q.error} retry={() => q.refetch()} />;
  return <>{children(q.data as T)}</>;
}

/** A mutation's failure, shown where the action was. */
/**
 * The end of a form: the refusal of its last try (ActionError), the submit button (its label
 * while the mutation runs) and Cancel. `disabled` adds a reason to hold the submit beyond the
 * mutation running (nothing changed yet, say).
 */
export function FormActions({ m, label, pendingLabel, onCancel, disabled = false }: { m: { isPending: boolean; error: unknown }; label: string; pendingLabel: string; onCancel: () => void; disabled?: boolean }) {
  return (
    <>
      <ActionError error={m.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={m.isPending || disabled}>
          {m.isPending ? pendingLabel : label}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </>
  );
}

export function ActionError({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error as Error;
  const details = error instanceof ApiError && error.details.length ? error.details.map((d) => `${d.field}: ${d.message}`).join('; ') : '';
  return (
    <p className="action-error" role="alert">
      {error instanceof ApiError && error.status === 403 ? 'Permission denied: ' : ''}
      {e.message}
      {details ? ` (${details})` : ''}
    </p>
  );
}

/** A record read fresh (its GET by id) before a form edits it: loading, error, or the form with it. */
export function Fresh<T>({ queryKey, load, what, children }: { queryKey: readonly unknown[]; load: () => Promise<T>; what?: string; children: (record: T) => ReactNode }) {
  const q = useQuery({ queryKey, queryFn: load });
  return (
    <QueryView q={q} what={what}>
      {children}
    </QueryView>
  );
}

/** Field errors of a refused request by field name: a 400's details, and the field a 409 names (a port or name taken); `strip` drops a prefix such as "config.". */
export function fieldErrors(error: unknown, strip = ''): Record<string, string> {
  if (!(error instanceof ApiError)) return {};
  const name = (f: string) => {
    const n = f.replace(/^(body\.|\/)/, '').replace(/\//g, '.');
    return strip && n.startsWith(strip) ? n.slice(strip.length) : n;
  };
  const out: Record<string, string> = Object.fromEntries(error.details.map((d) => [name(d.field), d.message]));
  const taken = error.context.field;
  if (error.status === 409 && typeof taken === 'string') out[name(taken)] = error.message;
  return out;
}
