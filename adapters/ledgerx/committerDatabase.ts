// A committer's database given as a connection string: can the service reach it with these
// credentials (the committer's vc and query service will)? The reason given back never holds the
// password: PostgreSQL's messages do not, and any echo of it is cut out.
import pg from 'pg';

export async function checkCommitterDatabase(d: { host: string; port: number; name: string; user: string; password: string }, timeoutMs = 5000): Promise<string | null> {
  const client = new pg.Client({ host: d.host, port: d.port, database: d.name, user: d.user, password: d.password, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    const message = (err as Error).message || String((err as { code?: string }).code ?? err);
    return d.password ? message.split(d.password).join('<redacted>') : message;
  } finally {
    await client.end().catch(() => {});
  }
}
