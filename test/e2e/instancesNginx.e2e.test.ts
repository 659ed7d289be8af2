// Three `lnm serve` instances on one DATABASE_URL behind Debian's nginx (issue 25): a mixed load of
// writes (users made) and reads (each read back at once, through whichever instance nginx picks)
// runs for ~20 s while the instance holding the background work is killed with kill -9 (and then
// started again on its port; the pieces are spread again by fair share). Afterwards
// every write that was acknowledged with a 2xx is there, the audit chain verifies, no request
// failed for longer than the failover bound, and a survivor holds the work within that bound.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { requires } from '../helpers/requirements.ts';
import { nginxBin, workHolders } from '../helpers/nginx.ts';
import { assertWritesKept, FAILOVER_BOUND_MS, instancesAnswering, LOAD_WORKERS, mixedLoad, oneWorkHolder, startInstancesBehindNginx, type Instances } from '../helpers/instances.ts';

const t = requires(suite('several instances behind nginx under kill -9'), 'nginx', nginxBin ? undefined : 'no nginx on PATH or in /usr/sbin');

const LOAD_MS = 20_000;
const KILL_AT_MS = 6_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let cluster: Instances | undefined;

t.before(async () => {
  cluster = await startInstancesBehindNginx({ count: 3 });
});

t.after(async () => {
  await cluster?.stop();
});

t('a mixed load through nginx while the holder is killed: acknowledged writes kept, chain verifies, failures bounded, work taken over', async () => {
  const { servers, lb } = cluster!;
  assert.is((await instancesAnswering(lb, 9)).size, 3, 'nginx spreads requests over the three instances');

  const holder = await oneWorkHolder(servers, FAILOVER_BOUND_MS * 2);
  let killedAt = 0;
  let tookOver = -1;
  const killer = (async () => {
    await sleep(KILL_AT_MS);
    killedAt = Date.now();
    await servers[holder].kill();
    const rest = servers.filter((_, i) => i !== holder);
    while (Date.now() - killedAt < FAILOVER_BOUND_MS * 3) {
      if ((await workHolders(rest)).length === 1) {
        tookOver = Date.now() - killedAt;
        break;
      }
      await sleep(100);
    }
    // The killed instance comes back on its port (nginx tries it again after fail_timeout).
    servers[holder] = await cluster!.start(servers[holder].port);
  })();
  const [load] = await Promise.all([mixedLoad(lb, { workers: LOAD_WORKERS, durationMs: LOAD_MS, prefix: 'lb' }), killer]);
  const { requests, acknowledged, failures, readBackMisses, began } = load;

  const failWindow = failures.length ? failures[failures.length - 1].at - failures[0].at : 0;
  console.log(
    `  ${requests} requests in ${Date.now() - began} ms, ${acknowledged.length} writes acknowledged, ${failures.length} failed (window ${failWindow} ms), ` +
      `work taken over ${tookOver} ms after the kill -9 (bound ${FAILOVER_BOUND_MS} ms)`,
  );
  for (const f of failures) console.log(`    failed at +${f.at - killedAt} ms after the kill: ${f.what}`);
  assert.is(readBackMisses, 0, 'a write acknowledged through nginx is read back at once through nginx');
  assert.ok(acknowledged.length >= 20, `only ${acknowledged.length} writes in ${LOAD_MS} ms`);
  assert.ok(failWindow <= FAILOVER_BOUND_MS, `requests failed over ${failWindow} ms`);
  assert.ok(failures.every((f) => killedAt > 0 && f.at >= killedAt), 'no failure before the kill');
  assert.ok(tookOver >= 0 && tookOver <= FAILOVER_BOUND_MS, `work taken over after ${tookOver} ms`);
  // With the restarted instance back, the piece is held once again within the bound (the pieces
  // are spread anew by fair share as it joins, so for a round the piece can be between holders;
  // a CI run under load read it there once): exactly one holder within the bound.
  await oneWorkHolder(servers, FAILOVER_BOUND_MS);

  // Every acknowledged write is there, read through the survivors behind nginx, and the audit
  // chain, written by three instances at once, verifies from the first entry to the last.
  await assertWritesKept(lb, acknowledged);
});

t.run();
