import type { RecordedEvent } from '../domain/shared/eventStore.ts';

export interface SqlStatement {
  text: string;
  values?: unknown[];
}

/**
 * A read model: the event types it handles, the tables it owns (emptied by a rebuild), and
 * `apply`, which returns the SQL for one event. Apply must be deterministic (use the event's
 * timestamp, never now()) so a rebuild yields the same tables.
 */
export interface Projection {
  name: string;
  /** Event types, or '*' for every event (the audit log). */
  handles: readonly string[] | '*';
  tables: readonly string[];
  apply(event: RecordedEvent): SqlStatement[];
}
