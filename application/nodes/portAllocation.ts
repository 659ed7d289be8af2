// Port allocation reads the assigned ports (projections/nodes.ts assignedPorts) and then records
// the node (and waits for its projection): two creations at once would otherwise pick the same
// free port. Every instance on the database takes one PostgreSQL advisory lock for that span, so
// the guarantee holds across instances, not only within one process; within a process the
// creations also queue in memory first, so one instance holds at most one connection for it.
import type pg from 'pg';

/** The advisory lock's key (beside the migrator's 7243000 and the event store's 7243001). */
export const PORT_ALLOCATION_LOCK = 7243002;

let local: Promise<unknown> = Promise.resolve();

/** Runs `work` (read the assigned ports, record the node, wait for its projection) alone on the database. */
export function oneAtATime<T>(pool: pg.Pool, work: () => Promise<T>): Promise<T> {
  const locked = async () => {
    const client = await pool.connect();
    let held = false;
    try {
      await client.query('SELECT pg_advisory_lock($1)', [PORT_ALLOCATION_LOCK]);
      held = true;
      return await work();
    } finally {
      // A failed unlock (a broken connection) ends the session, and the lock with it.
      const unlocked = held ? await client.query('SELECT pg_advisory_unlock($1)', [PORT_ALLOCATION_LOCK]).then(() => true, () => false) : true;
      client.release(unlocked ? undefined : true);
    }
  };
  const run = local.then(locked, locked);
  local = run.catch(() => undefined);
  return run;
}
