// Three `lnm serve` instances on one DATABASE_URL behind Debian's nginx (issue 25): a mixed load of
// writes (users made) and reads (each read back at once) runs for ~15 s while the instance holding
// the background work gets SIGTERM. It drains: requests in flight on it finish, new ones are
// refused with a 503 that nginx resends to the others (GETs by proxy_next_upstream, POSTs through
// its @refused location: a refused POST was not run), then it releases its leases and exits 0.
// Afterwards no request has failed, every acknowledged write is there, the audit chain verifies,
// and every lease it held is held by a survivor within one renewal period of its exit.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { requires } from '../helpers/requirements.ts';
import { adminAuth, call } from '../helpers/server.ts';
import { nginxBin, workHolders } from '../helpers/nginx.ts';
import { assertWritesKept, instancesAnswering, LOAD_WORKERS, mixedLoad, oneWorkHolder, RELEASED_BOUND_MS, startInstancesBehindNginx, workOf, type Instances } from '../helpers/instances.ts';

const t = requires(suite('several instances behind nginx: a SIGTERM drain under load'), 'nginx', nginxBin ? undefined : 'no nginx on PATH or in /usr/sbin');

const LOAD_MS = 15_000;
const TERM_AT_MS = 5_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let cluster: Instances | undefined;

t.before(async () => {
  cluster = await startInstancesBehindNginx({ count: 3 });
});

t.after(async () => {
  await cluster?.stop();
});

/** The request lines an instance logged after it logged `shutting down`. */
function requestsAfterSignal(output: string): Array<{ method: string; path: string; status: number }> {
  const lines = output.split('\n');
  const from = lines.findIndex((l) => l.includes('shutting down'));
  if (from < 0) return [];
  return lines.slice(from).flatMap((l) => {
    try {
      const j = JSON.parse(l);
      return j.msg === 'request' ? [{ method: j.method, path: j.path, status: j.status }] : [];
    } catch {
      return [];
    }
  });
}

t('SIGTERM under load through nginx: no request fails, acknowledged writes kept, leases taken within a renewal period', async () => {
  const { servers, lb } = cluster!;
  assert.is((await instancesAnswering(lb, 9)).size, 3, 'nginx spreads requests over the three instances');
  const victim = await oneWorkHolder(servers, RELEASED_BOUND_MS * 4);
  const held = (await workOf(servers[victim]))!;
  assert.ok(held.includes('work:webhooks') && held.length >= 2, held.join(', '));

  let termAt = 0;
  let exitAt = 0;
  let exitCode: number | null = -1;
  let takenAfterExit = -1;
  // POSTs sent to the victim itself just before its SIGTERM (so in flight at it, unless it had
  // not begun them: then a 503), and a burst of organizations made through nginx right after it
  // (the victim refuses its share while it drains; nginx must resend them).
  const direct: Array<{ status: number; at: number; username: string; id?: number; text?: string }> = [];
  const burst: Array<{ status: number; name: string; id?: number; text?: string }> = [];
  const drainer = (async () => {
    await sleep(TERM_AT_MS);
    const s = servers[victim];
    const exited = new Promise<number | null>((r) => s.child.once('exit', (code) => r(code)));
    const inFlight = Array.from({ length: 3 }, (_, i) => `drain-direct-${i}`).map((username) =>
      call(s.api, 'POST', '/users', { headers: adminAuth(), body: { username, password: 'correct-horse-battery', role: 'VIEWER' } })
        .then((r) => direct.push({ status: r.status, at: Date.now(), username, id: r.json?.id, ...(r.status === 201 ? {} : { text: r.text.slice(0, 300) }) }), (e: Error) => direct.push({ status: 599, at: Date.now(), username: `${username}: ${e.message}` })));
    await sleep(30);
    termAt = Date.now();
    s.child.kill('SIGTERM');
    // Organizations: no password to hash, so the burst is answered while the victim still drains.
    await Promise.all([...inFlight, ...Array.from({ length: 9 }, (_, i) => `DrainBurst${i}`).map((name) =>
      call(lb, 'POST', '/organizations', { headers: adminAuth(), body: { name, mspId: `${name}MSP` } })
        .then((r) => burst.push({ status: r.status, name, id: r.json?.id, ...(r.status === 201 ? {} : { text: r.text.slice(0, 300) }) }), (e: Error) => burst.push({ status: 599, name: `${name}: ${e.message}` })))]);
    exitCode = await exited;
    exitAt = Date.now();
    const rest = servers.filter((_, i) => i !== victim);
    while (Date.now() - exitAt < RELEASED_BOUND_MS * 5) {
      const work = (await Promise.all(rest.map(workOf))).flatMap((w) => w ?? []);
      if (held.every((l) => work.includes(l))) {
        takenAfterExit = Date.now() - exitAt;
        break;
      }
      await sleep(100);
    }
  })();
  const [load] = await Promise.all([mixedLoad(lb, { workers: LOAD_WORKERS, durationMs: LOAD_MS, prefix: 'drain' }), drainer]);
  const { requests, acknowledged, failures, readBackMisses, began } = load;
  const after = requestsAfterSignal(servers[victim].output());
  const finished = after.filter((r) => r.status < 500);
  const refused = after.filter((r) => r.status === 503);
  console.log(
    `  ${requests} requests in ${Date.now() - began} ms, ${acknowledged.length} writes acknowledged, ${failures.length} failed; ` +
      `the drained instance answered ${finished.length} requests in flight after SIGTERM (${finished.filter((r) => r.method === 'POST').length} POSTs) and refused ${refused.length} (resent by nginx), ` +
      `exited ${exitAt - termAt} ms after SIGTERM (code ${exitCode}); its ${held.length} leases held by the others ${takenAfterExit} ms after its exit (bound ${RELEASED_BOUND_MS} ms)`,
  );
  console.log(`  sent to the victim before SIGTERM: ${direct.map((d) => `${d.status} at +${d.at - termAt} ms`).join(', ')}; burst through nginx after it: ${burst.map((b) => b.status).join(' ')}`);
  for (const f of failures) console.log(`    failed at +${f.at - termAt} ms after SIGTERM: ${f.what}`);
  // A POST the victim had begun finishes (201, answered after the signal); one it had not begun is refused with a 503, never cut off.
  assert.ok(direct.every((d) => d.status === 201 || d.status === 503), JSON.stringify(direct));
  assert.ok(direct.some((d) => d.status === 201 && d.at > termAt), `no POST in flight at SIGTERM: ${JSON.stringify(direct)}`);
  assert.ok(burst.every((b) => b.status === 201), `the burst through nginx: ${JSON.stringify(burst)}`);
  // Creating a user hashes its password, which bounds the rate on two shared cores.
  assert.ok(acknowledged.length >= 5, `only ${acknowledged.length} writes through nginx in ${LOAD_MS} ms`);
  acknowledged.push(...direct.filter((x) => x.status === 201).map((x) => ({ id: x.id!, username: x.username })));
  for (const b of burst) assert.is((await call(lb, 'GET', `/organizations/${b.id}`, { headers: adminAuth() })).json?.name, b.name);
  assert.is(exitCode, 0, servers[victim].output().slice(-2000));
  assert.equal(failures, [], 'no request fails through nginx');
  assert.is(readBackMisses, 0, 'a write acknowledged through nginx is read back at once through nginx');
  assert.equal(after.filter((r) => r.status >= 500 && r.status !== 503), [], 'the drained instance answered every request it ran');
  assert.ok(takenAfterExit >= 0 && takenAfterExit <= RELEASED_BOUND_MS, `its leases (${held.join(', ')}) taken ${takenAfterExit} ms after its exit`);
  assert.is((await workHolders(servers.filter((_, i) => i !== victim))).length, 1, 'one survivor holds the background work');

  await assertWritesKept(lb, acknowledged);
});

t.run();
