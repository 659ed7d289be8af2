// The three states every page has besides its data: loading, error (a 403 said as such, an
// edition gate named), and empty.
import { useEffect, useSyncExternalStore, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ApiError } from '../api/client';
import { fieldName, refusalFields, restatesFields } from './fieldNames';

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

/**
 * Loading, error, or the children with the data. A refresh that fails after an answer was shown
 * keeps that answer on the page, and whatever was typed into it, under a notice (RefreshFailed):
 * a page that polls would otherwise drop an open form at the first failed poll. Only a first
 * failure, or the thing now gone (404) or forbidden (403), replaces the page with the error.
 */
export function QueryView<T>({ q, children, what }: { q: { isPending: boolean; error: unknown; data: T | undefined; refetch: () => unknown }; what?: string; children: (data: T) => ReactNode }) {
  if (q.isPending) return <Loading what={what} />;
  if (q.error && (q.data === undefined || replacesPage(q.error))) return <ErrorState error={q.error} retry={() => q.refetch()} />;
  return (
    <>
      {q.error ? <RefreshFailed error={q.error} retry={() => q.refetch()} /> : null}
      {children(q.data as T)}
    </>
  );
}

/** A failure that ends what the page showed: the thing is gone, or the user may no longer see it. */
function replacesPage(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 404 || error.status === 403);
}

/** The last answer is still shown; this says the refresh failed, why, and that it is tried again. */
export function RefreshFailed({ error, retry }: { error: unknown; retry: () => void }) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <p className="state stale" role="status" data-testid="refresh-failed">
      Could not refresh: {message}
      {error instanceof ApiError ? <span className="muted"> ({error.code}, HTTP {error.status})</span> : null}. Showing the last answer; it is asked again on its own.{' '}
      <button type="button" onClick={retry}>
        Try again now
      </button>
    </p>
  );
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

/**
 * A refusal, said once: the fields a FieldError shows beside themselves are not said again here.
 * With every detail of a 400 beside its field this says only that the marked fields were refused
 * (or, when the API's message says more than the field messages it contains, that message);
 * otherwise the API's message (which already names each field and what is wrong, so details are
 * not appended a second time), or the details no field shows.
 */
export function ActionError({ error }: { error: unknown }) {
  useSyncExternalStore(subscribeShown, shownVersion);
  if (!error) return null;
  const e = error as Error;
  const prefix = error instanceof ApiError && error.status === 403 ? 'Permission denied: ' : '';
  const atFields = shownAt(error);
  let text = e.message;
  if (error instanceof ApiError && atFields.size > 0) {
    const rest = error.details.filter((d) => !atFields.has(fieldName(d.field)));
    const taken = error.status === 409 && typeof error.context.field === 'string' && atFields.has(fieldName(error.context.field));
    const marked = `refused: see the field${atFields.size > 1 ? 's' : ''} marked above`;
    // The API's message is kept when it says more than the fields show (a reason beyond "cannot
    // be reached"); when it only restates them, it is not said a second time.
    const atField = fieldErrors(error);
    const restates = restatesFields(e.message, [...atFields].map((f) => atField[f]));
    text = taken || (rest.length === 0 && restates) ? `Not done, ${marked}.` : rest.length === 0 ? `${e.message} (${marked})` : `${rest.map((d) => `${d.field} ${d.message}`).join('; ')} (and ${marked}).`;
  }
  return (
    <p className="action-error" role="alert">
      {prefix}
      {text}
    </p>
  );
}

// Which fields of which refusal a FieldError shows, so ActionError leaves them out.
const shown = new WeakMap<object, Map<string, number>>();
const listeners = new Set<() => void>();
let version = 0;
const subscribeShown = (l: () => void) => {
  listeners.add(l);
  return () => void listeners.delete(l);
};
const shownVersion = () => version;
const changed = () => {
  version++;
  for (const l of listeners) l();
};
function shownAt(error: unknown): Set<string> {
  const m = error && typeof error === 'object' ? shown.get(error) : undefined;
  return new Set(m ? [...m].filter(([, n]) => n > 0).map(([f]) => f) : []);
}

/** The id of a field's error text, for the field's aria-describedby. */
export const fieldErrorId = (field: string) => `field-error-${field.replace(/[^A-Za-z0-9_-]/g, '-')}`;

/** The first of `fields` (a body field's spellings: chain_id, genesis.chain_id) the refusal names, with its message. */
function fieldMessage(error: unknown, fields: string[]): [string, string] | null {
  const errors = fieldErrors(error);
  for (const f of fields.map(fieldName)) if (errors[f] !== undefined) return [f, errors[f]];
  return null;
}

/**
 * Props for a field: aria-invalid and aria-describedby pointing at its FieldError while the
 * refusal names it. Spread it on the input: `<input {...invalid(m.error, 'name')} />`.
 */
export function invalid(error: unknown, ...fields: string[]): { 'aria-invalid'?: true; 'aria-describedby'?: string } {
  const hit = fieldMessage(error, fields);
  return hit ? { 'aria-invalid': true, 'aria-describedby': fieldErrorId(fields[0]) } : {};
}

/**
 * The one way a refusal is said beside its field: the message of the body field `field` (or one
 * of its other spellings) from the error body's details, or from the field a 409 names. The
 * form's ActionError (in FormActions) then leaves it out.
 */
export function FieldError({ error, field, also = [] }: { error: unknown; field: string; also?: string[] }) {
  const hit = fieldMessage(error, [field, ...also]);
  useShownFields(error, hit ? [hit[0]] : []);
  if (!hit) return null;
  return (
    <small id={fieldErrorId(field)} className="error-text" data-testid={`field-error-${field}`}>
      {hit[1]}
    </small>
  );
}

/**
 * For a field component that draws a refusal's messages beside its own fields from a
 * `fieldErrors` record (NodeConfigFields, SchemaFields): marks those of `fields` (full body
 * names, e.g. config.port) that the refusal names as said, so the form's ActionError leaves them
 * out, as FieldError does.
 */
export function useShownFields(error: unknown, fields: string[]) {
  const errors = fieldErrors(error);
  const key = fields.map(fieldName).filter((f) => errors[f] !== undefined).join('\n');
  useEffect(() => {
    if (!key || !error || typeof error !== 'object') return;
    const m = shown.get(error) ?? new Map<string, number>();
    shown.set(error, m);
    const hit = key.split('\n');
    for (const f of hit) m.set(f, (m.get(f) ?? 0) + 1);
    changed();
    return () => {
      for (const f of hit) m.set(f, (m.get(f) ?? 1) - 1);
      changed();
    };
  }, [error, key]);
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
  return error instanceof ApiError ? refusalFields(error, strip) : {};
}
