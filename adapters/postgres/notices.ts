// The instance's one listening connection to PostgreSQL (LISTEN/NOTIFY), shared by the event store
// (lnm_events: new events to read), the projector (lnm_projected: the position another projector
// committed, the shared checkpoint) and the instance's awareness of other instances on the same
// database (lnm_instances: a hello at start and a heartbeat every few seconds).
//
// barrier(): a round trip on this same connection. PostgreSQL sends a listening session the
// notifications committed before a command ahead of that command's answer, and the client hands
// them over in order: once barrier() resolves, every notification committed before it was called
// has been delivered. A write another instance acknowledged was committed (with its projector's
// notification) before the client could send this instance the request that calls barrier(), so
// a cache validated by it is never older than that write. Concurrent calls share one round trip
// (one in flight, the next queued for everyone who came after it was sent). Only needed while
// another instance is there (peers()): alone, this instance's own projector tells its caches
// synchronously, before its waiters go on.
import pg from 'pg';
import { randomUUID } from 'node:crypto';

export interface Notices {
  /** Calls `handler` with each notification's payload on `channel` (LISTENs on first use). */
  on(channel: string, handler: (payload: string) => void): Promise<void>;
  /** Resolves true once every notification committed before the call has been delivered; false when the connection is down (nothing can be vouched for). */
  barrier(): Promise<boolean>;
  /** Whether another instance has been heard on this database lately. */
  peers(): boolean;
  close(): Promise<void>;
}

const APP_NAME = 'lnm-notices';

export async function openNotices(url: string, opts: { heartbeatMs?: number; log?: (msg: string, extra?: Record<string, unknown>) => void } = {}): Promise<Notices> {
  const heartbeatMs = opts.heartbeatMs ?? 5_000;
  const log = opts.log ?? (() => {});
  const tag = randomUUID();
  const handlers = new Map<string, Array<(payload: string) => void>>();
  let client: pg.Client | null = null;
  let connecting: Promise<pg.Client | null> | null = null;
  let closed = false;
  let peersUntil = 0;
  const known = new Set<string>();

  const hello = (c: pg.Client) => c.query(`SELECT pg_notify('lnm_instances', $1)`, [tag]).then(() => {}, () => {});

  function connect(): Promise<pg.Client | null> {
    if (client) return Promise.resolve(client);
    if (connecting || closed) return connecting ?? Promise.resolve(null);
    connecting = (async () => {
      const c = new pg.Client({ connectionString: url, application_name: APP_NAME });
      c.on('error', (err) => {
        log('the listening connection failed; caches answer from the tables until it is back', { error: err.message });
        if (client === c) client = null;
        void c.end().catch(() => {});
        if (!closed) setTimeout(() => void connect(), 1000).unref();
      });
      c.on('notification', (n) => {
        if (n.channel === 'lnm_instances') {
          if (n.payload === tag || !n.payload) return;
          peersUntil = Date.now() + heartbeatMs * 3;
          // A newcomer learns of this instance at once, not at the next heartbeat.
          if (!known.has(n.payload)) {
            known.add(n.payload);
            void hello(c);
          }
          return;
        }
        for (const h of handlers.get(n.channel) ?? []) h(n.payload ?? '');
      });
      await c.connect();
      for (const ch of ['lnm_instances', ...handlers.keys()]) await c.query(`LISTEN ${ch}`);
      // Instances already listening on this database (they answer the hello too).
      const others = await c.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database() AND pid <> pg_backend_pid()`, [APP_NAME]);
      if (others.rows[0].n > 0) peersUntil = Date.now() + heartbeatMs * 3;
      await hello(c);
      client = c;
      return c;
    })()
      .catch((err: Error) => {
        log('opening the listening connection failed; retrying', { error: err.message });
        if (!closed) setTimeout(() => void connect(), 1000).unref();
        return null;
      })
      .finally(() => {
        connecting = null;
      });
    return connecting;
  }

  const beat = setInterval(() => {
    if (client) void hello(client);
  }, heartbeatMs);
  beat.unref();

  let running: Promise<boolean> | null = null;
  let queued: Promise<boolean> | null = null;
  const roundTrip = (): Promise<boolean> => {
    queued = null;
    const c = client;
    running = (c ? c.query('SELECT 1').then(() => client === c, () => false) : Promise.resolve(false)).finally(() => {
      running = null;
    });
    return running;
  };

  await connect();
  return {
    async on(channel, handler) {
      if (!/^[a-z_]+$/.test(channel)) throw new Error(`bad channel name ${channel}`);
      const first = !handlers.has(channel);
      handlers.set(channel, [...(handlers.get(channel) ?? []), handler]);
      const c = client ?? (await connect());
      if (first && c) await c.query(`LISTEN ${channel}`);
    },
    barrier() {
      if (queued) return queued;
      if (!running) return roundTrip();
      queued = running.then(roundTrip, roundTrip);
      return queued;
    },
    peers: () => peersUntil > Date.now(),
    async close() {
      closed = true;
      clearInterval(beat);
      await connecting;
      const c = client;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}
