// An organization create and a consortium node create cut off by kill -9 of the server (issue 36
// item 7, as evm/evmCreateLeftovers does for an evm network): at the next start each is recorded
// as failed (interrupted, audited with the step and what it made), the keys it made are removed,
// nothing half-made is listed, and the name (the mspId) is free again. The server is a child
// process killed with SIGKILL at a state reached, never after a time waited:
// - the organization's admin key is RSA 4096 (seconds to generate): the kill comes once both CA
//   keys are recorded, while the admin key is being made;
// - the node create waits for the port-allocation lock (a PostgreSQL advisory lock every instance
//   takes to record a node) that the test holds: the kill comes once its two keys are recorded.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import pg from 'pg';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { PORT_ALLOCATION_LOCK } from '../../application/nodes/portAllocation.ts';

const t = suite('creates cut off by kill -9 are failed at the next start');
let s: TestServer;
let db: pg.Client;
const env = { LNM_NODE_ENGINE: 'process' };
const api = (method: string, path: string, body?: unknown) => call(s.api, method, path, { headers: adminAuth(), body });

t.before(async () => {
  s = await startServer({ env });
  db = new pg.Client({ connectionString: s.databaseUrl! });
  await db.connect();
});
t.after(async () => {
  await db?.end();
  await s?.stop();
});

/** Keys recorded in the event store (not the read model, which may lag) under these names and not deleted since. */
async function keysRecorded(names: string[]): Promise<number> {
  const r = await db.query(
    `SELECT count(*) AS n FROM events c WHERE c.type = 'KeyCreated' AND c.data->>'name' = ANY($1)
       AND NOT EXISTS (SELECT 1 FROM events d WHERE d.type = 'KeyDeleted' AND d.data->>'keyId' = c.data->>'keyId')`,
    [names],
  );
  return Number(r.rows[0].n);
}

async function waitFor(what: string, ok: () => Promise<boolean>): Promise<void> {
  // A bound to see a hang, not a timing assertion.
  const bound = Date.now() + 120_000;
  while (!(await ok())) {
    if (Date.now() > bound) throw new Error(`never reached: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function restart(): Promise<void> {
  await s.kill();
  s = await startServer({ env, dataDir: s.dataDir, databaseUrl: s.databaseUrl! });
}

async function failedCreation(name: string) {
  const audit = await api('GET', '/audit-logs?resource_type=creation&status=failed&limit=50');
  assert.is(audit.status, 200, audit.text);
  return audit.json.items.find((e: { resource_name: string }) => e.resource_name === name);
}

const keyNames = async () => ((await api('GET', '/keys?limit=500')).json.items as Array<{ name: string }>).map((k) => k.name);

t('an organization create cut off while it makes its admin key: failed at the next start, its CA keys removed, the mspId free again', async () => {
  const body = { name: 'Cut Org', mspId: 'CutOrgMSP', algorithm: 'RSA', keySize: 4096 };
  const pending = api('POST', '/organizations', body).catch(() => null);
  await waitFor('both CA keys recorded', async () => (await keysRecorded(['CutOrgMSP-ca', 'CutOrgMSP-tlsca'])) === 2);
  await restart();
  await pending;
  const orgs = (await api('GET', '/organizations?limit=100')).json.items as Array<{ mspId: string }>;
  assert.not.ok(orgs.some((o) => o.mspId === 'CutOrgMSP'), 'the create was cut off before its organization was recorded (else this test proves nothing)');
  assert.equal((await keyNames()).filter((n) => n.startsWith('CutOrgMSP-')), [], 'the keys of the cut-off create are removed');
  assert.is(await keysRecorded(['CutOrgMSP-ca', 'CutOrgMSP-tlsca', 'CutOrgMSP-admin']), 0);
  const failed = await failedCreation('organization CutOrgMSP');
  assert.ok(failed, 'the interrupted create is audited as failed');
  assert.is(failed.details.interrupted, true);
  // Cut off while making the admin key (recorded before it is made), or just before recording it.
  assert.ok(['admin identity', 'certificate authorities'].includes(failed.details.step), JSON.stringify(failed.details));
  assert.ok(failed.details.made.length >= 2, JSON.stringify(failed.details));
  assert.equal(failed.details.removed, failed.details.made);
  // The mspId was released: the same create now succeeds (EC keys: quick).
  const again = await api('POST', '/organizations', { name: 'Cut Org', mspId: 'CutOrgMSP' });
  assert.is(again.status, 201, again.text);
});

t('a consortium node create cut off after making its keys: failed at the next start, its keys removed, no node, the name free again', async () => {
  const org = await api('POST', '/organizations', { name: 'Node Org', mspId: 'NodeOrgMSP' });
  assert.is(org.status, 201, org.text);
  const lock = new pg.Client({ connectionString: s.databaseUrl! });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [PORT_ALLOCATION_LOCK]);
    const pending = api('POST', '/nodes', { name: 'cut-peer', platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_PEER', organizationId: org.json.id }).catch(() => null);
    await waitFor('the node keys recorded', async () => (await keysRecorded(['cut-peer-identity', 'cut-peer-tls'])) === 2);
    await s.kill();
    await pending;
  } finally {
    await lock.end();
  }
  await restart();
  const nodes = (await api('GET', '/nodes?limit=100')).json.items as Array<{ name: string }>;
  assert.not.ok(nodes.some((n) => n.name === 'cut-peer'), 'no half-made node is listed');
  assert.equal((await keyNames()).filter((n) => n.startsWith('cut-peer-')), [], 'the keys of the cut-off create are removed');
  assert.is(await keysRecorded(['cut-peer-identity', 'cut-peer-tls']), 0);
  const failed = await failedCreation('consortium-node cut-peer');
  assert.ok(failed, 'the interrupted create is audited as failed');
  assert.is(failed.details.interrupted, true);
  assert.is(failed.details.step, 'node keys');
  assert.is(failed.details.made.length, 2, JSON.stringify(failed.details));
  assert.equal(failed.details.removed, failed.details.made);
  // The name is free again: no creation holds it (a 409 NAME_TAKEN would say so).
  const again = await api('POST', '/nodes', { name: 'cut-peer', platform: 'CONSORTIUM', nodeType: 'CONSORTIUM_PEER', organizationId: org.json.id });
  assert.is.not(again.status, 409, again.text);
  assert.ok(again.status < 500, again.text);
});

t.run();
