// The background work that is not per node, spread over three `lnm serve` instances on one
// DATABASE_URL (issue 25): one lease per piece (`work:<piece>`, sagas/workPieces.ts), claimed
// under the node shards' fair-share rule, so every instance holds some, none is held twice, and
// a kill -9 moves the dead instance's pieces to the survivors within the bound. The metrics stack
// is one of them: a real Prometheus (Debian's) deployed through an instance that does not hold
// it runs once, on the holder (one process on its port, under the holder's data directory);
// every instance's GET /metrics/status names that instance; when the holder is killed -9 the
// next holder stops the Prometheus it left running and starts its own on the same port.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { adminAuth, call, type TestServer } from '../helpers/server.ts';
import { freePortBlock } from '../helpers/ports.ts';
import { leasesHeld, startInstancesBehindNginx, type Instances } from '../helpers/instances.ts';
import { until } from './evm/evmLifecycle.ts';
import { WORK_PIECES } from '../../sagas/workPieces.ts';

const t = suite('several instances: background work spread by piece, the metrics stack run once');
const LEASE_S = 3;
// What a move should take on a quiet machine: lease expiry + one renewal period of the survivors
// + slack (as the node shards' test). Printed beside the measured time, not asserted: a CI run
// beside other CPU-heavy work (load 12 to 16 on 2 cores) moved them in 7.9 s and failed here on
// code that moves them. The assertion is that they move at all, each piece once, within a minute
// (a piece held by the dead instance until its restart would fail it); the time is measured by
// bench/instances.ts.
const MOVE_BOUND_MS = (LEASE_S + LEASE_S / 3 + 2) * 1000;
const MOVE_LIMIT_MS = 60_000;
let servers: TestServer[] = [];
let cluster: Instances | undefined;
let port = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const api = (s: TestServer, method: string, p: string, body?: unknown) => call(s.api, method, p, { headers: adminAuth(), body });
const start = () => cluster!.start();

/** The work pieces each instance says it holds (names without `work:`), null for one that does not answer. */
const piecesHeld = (list: TestServer[]) => leasesHeld(list, 'work:');

/** The Prometheus processes listening on the test's port: pid and the data directory they run from. */
function prometheusOnPort(): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
    } catch {
      continue;
    }
    if (cmdline.includes(`--web.listen-address=127.0.0.1:${port}`) && !/\) Z /.test(readFileSync(`/proc/${entry}/stat`, 'utf8'))) found.push({ pid: Number(entry), cmdline });
  }
  return found;
}

const idOf = async (s: TestServer) => (await call(s.api, 'GET', '/health')).json.instance.id as string;

t.before(async () => {
  cluster = await startInstancesBehindNginx({ count: 3, nginx: false, leaseSeconds: LEASE_S, env: { KEY_ENCRYPTION_KEY: 'work-pieces-e2e-key-encryption-key-0123456' } });
  servers = cluster.servers;
  port = await freePortBlock([0]);
});

t.after(async () => {
  await cluster?.stop();
});

t(`the ${WORK_PIECES.length} work pieces are spread over the three instances, each held by exactly one`, async () => {
  // Instances that joined take their share over a few rounds (the first one held all 8 alone).
  const held = await until('every instance holding its share, every piece held', async () => {
    const h = await piecesHeld(servers);
    return h.every((x) => x !== null && x.length >= 1 && x.length <= Math.ceil(WORK_PIECES.length / 3)) && h.flat().length === WORK_PIECES.length ? (h as string[][]) : null;
  });
  assert.equal(held.flat().sort(), [...WORK_PIECES].sort(), `no piece twice, none missing: ${JSON.stringify(held)}`);
  assert.ok(held.every((h) => h.length <= Math.ceil(WORK_PIECES.length / 3)), JSON.stringify(held));
  // Nothing of the one lease of before.
  for (const s of servers) assert.not.ok(((await call(s.api, 'GET', '/health')).json.instance.work as string[]).includes('background-work'));
  console.log(`  pieces per instance: ${JSON.stringify(held)}`);
});

t('the metrics stack deployed through another instance runs once, on the holder of its lease; every instance names it', async () => {
  const held = (await piecesHeld(servers)) as string[][];
  const holder = held.findIndex((h) => h.includes('metrics-stack'));
  const other = (holder + 1) % 3;
  const holderId = await idOf(servers[holder]);
  const r = await api(servers[other], 'POST', '/metrics/deploy', { port, scrapeIntervalSeconds: 5 });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.status, 'running', r.text);
  assert.is(r.json.instance, holderId, r.text);
  assert.is((await api(servers[(holder + 2) % 3], 'POST', '/metrics/deploy', {})).status, 409, 'a second deploy, through the third instance');
  for (const s of servers) {
    const st = await api(s, 'GET', '/metrics/status');
    assert.is(st.status, 200, st.text);
    assert.is(st.json.status, 'running', st.text);
    assert.is(st.json.instance, holderId, st.text);
    assert.is(st.json.url, `http://127.0.0.1:${port}`);
  }
  const procs = prometheusOnPort();
  assert.is(procs.length, 1, JSON.stringify(procs));
  assert.ok(procs[0].cmdline.includes(servers[holder].dataDir), `run from the holder's data directory: ${procs[0].cmdline}`);
  // It scrapes the holder (the service's own /metrics, with its scrape token).
  await until('the service target up', async () => {
    const st = await api(servers[other], 'GET', '/metrics/status');
    return st.json.targets.up >= 1 && st.json.instance === holderId;
  }, 30_000);
});

t('kill -9 of the metrics stack\'s holder: its pieces move to the survivors; Prometheus runs once, on the new holder', async () => {
  const held = (await piecesHeld(servers)) as string[][];
  const holder = held.findIndex((h) => h.includes('metrics-stack'));
  const theirs = held[holder];
  const oldPid = prometheusOnPort()[0].pid;
  const killedAt = Date.now();
  await servers[holder].kill();
  const rest = servers.filter((_, i) => i !== holder);
  const after = await until('the survivors holding every piece', async () => {
    const h = (await piecesHeld(rest)) as string[][];
    return h.flat().length === WORK_PIECES.length ? h : null;
  }, MOVE_LIMIT_MS);
  const movedMs = Date.now() - killedAt;
  assert.equal(after.flat().sort(), [...WORK_PIECES].sort(), `no piece twice: ${JSON.stringify(after)}`);
  const next = after.findIndex((h) => h.includes('metrics-stack'));
  const nextId = await idOf(rest[next]);
  const running = await until('Prometheus running on the new holder', async () => {
    const st = await api(rest[(next + 1) % 2], 'GET', '/metrics/status');
    const procs = prometheusOnPort();
    return st.json.status === 'running' && st.json.instance === nextId && procs.length === 1 && procs[0].pid !== oldPid ? { st, procs } : null;
  }, 60_000);
  const runningMs = Date.now() - killedAt;
  console.log(`  pieces ${JSON.stringify(theirs)} of the killed instance moved in ${movedMs} ms (${MOVE_BOUND_MS} ms expected on a quiet machine): ${JSON.stringify(after)}; Prometheus running on the new holder after ${runningMs} ms`);
  assert.ok(running.procs[0].cmdline.includes(rest[next].dataDir), `run from the new holder's data directory: ${running.procs[0].cmdline}`);
  assert.not.ok(prometheusOnPort().some((p) => p.pid === oldPid), 'the Prometheus the killed holder left running was stopped');
  for (const s of rest) assert.is((await api(s, 'GET', '/metrics/status')).json.instance, nextId);
  servers[holder] = await start();
});

t('stop and undeploy through an instance that does not run it: applied by the holder before the answer', async () => {
  // The restarted instance has taken its share again (the metrics stack may have moved to it).
  const held = await until('the pieces spread over the three again', async () => {
    const h = await piecesHeld(servers);
    return h.every((x) => x !== null && x.length >= 1 && x.length <= Math.ceil(WORK_PIECES.length / 3)) && h.flat().length === WORK_PIECES.length ? (h as string[][]) : null;
  }, MOVE_LIMIT_MS);
  const holder = held.findIndex((h) => h.includes('metrics-stack'));
  await until('Prometheus running on its holder', async () => (await api(servers[holder], 'GET', '/metrics/status')).json.status === 'running', 60_000);
  assert.is(prometheusOnPort().length, 1);
  const other = (holder + 1) % 3;
  let r = await api(servers[other], 'POST', '/metrics/stop');
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'stopped', r.text);
  assert.is(prometheusOnPort().length, 0, 'no Prometheus on the port');
  r = await api(servers[other], 'POST', '/metrics/undeploy');
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'not_deployed', r.text);
});

t.run();
