// How often the health monitor reads a Fabric node's /metrics for the node lists
// (nodeReadingIntervalSeconds), counted by a real Fabric peer itself: its operations endpoint
// counts the /metrics requests it served (promhttp_metric_handler_requests_total{code="200"}).
// Probes every second: at the default reading interval (5 s) the peer serves about one /metrics
// request in five probes while every probe still asks /healthz (the list's last_probe.at moves
// each second, its block_height stays the last reading's, not null); with the reading interval at
// 1 s every probe reads it again. A value outside 1-3600 is a 400 naming the field. A counted
// skip without Fabric.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fabricMissing } from '../../helpers/fabric.ts';
import { requires } from '../../helpers/requirements.ts';
import { organization, runningNode, suiteServer, until } from './consortiumApi.ts';

const t = requires(suite('a Fabric node\'s ledger readings at most every nodeReadingIntervalSeconds (real Fabric)'), 'fabric', fabricMissing);
const { api } = suiteServer(t);

/** The /metrics requests the peer served before this one (its own counter). */
async function served(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const m = /^promhttp_metric_handler_requests_total\{code="200"\} (\d+)$/m.exec(text);
  assert.ok(m, 'the peer counts the /metrics requests it serves');
  return Number(m![1]);
}

/** The peer's /metrics requests from the service and its list readings over `seconds` of probes. */
async function over(seconds: number, peer: { id: number; config: { operationsPort: number } }) {
  const listed = async () => ((await api('GET', '/nodes/platform/CONSORTIUM?limit=100')).json.items as any[]).find((n) => n.id === peer.id);
  const before = await served(peer.config.operationsPort);
  const readings: Array<{ at: string; blockHeight: unknown; status: string }> = [];
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    const n = await listed();
    readings.push({ at: n.last_probe?.at, blockHeight: n.last_probe?.block_height, status: n.last_probe?.status });
    await new Promise((r) => setTimeout(r, 500));
  }
  // Less this test's own request before (counted in the second answer).
  return { requests: (await served(peer.config.operationsPort)) - before - 1, readings };
}

t('probes every second read /metrics about every fifth probe at the default, at every probe at 1 s; the list keeps the last reading', async () => {
  const refused = await api('POST', '/settings', { nodeReadingIntervalSeconds: 0 });
  assert.is(refused.status, 400, refused.text);
  assert.match(refused.text, 'nodeReadingIntervalSeconds');

  const org = await organization(api, 'Readings', 'ReadingsMSP');
  const peer = await runningNode(api, 'readings-peer', 'CONSORTIUM_PEER', org.id);
  const set = await api('POST', '/settings', { nodeHealthCheckIntervalSeconds: 1 });
  assert.is(set.status, 200, set.text);
  assert.is(set.json.general.nodeReadingIntervalSeconds, 5, 'the default reading interval');
  await until('a healthy reading in the list', async () => {
    const n = ((await api('GET', '/nodes/platform/CONSORTIUM?limit=100')).json.items as any[]).find((x) => x.id === peer.id);
    return n?.last_probe?.status === 'healthy' ? true : null;
  }, 60_000);

  const atDefault = await over(12, peer);
  const probesSeen = new Set(atDefault.readings.map((r) => r.at)).size;
  assert.ok(probesSeen >= 6, `the list saw ${probesSeen} probes in 12 s (one a second)`);
  for (const r of atDefault.readings) {
    assert.is(r.status, 'healthy');
    // A peer on no channel: its height is 0, recorded by every probe (the last reading's), never null.
    assert.is(r.blockHeight, 0, `a probe between readings recorded block height ${r.blockHeight}`);
  }
  // 12 s of probes every second, a reading every 5 s: 2 or 3 (one more if a probe straddles the ends); 12 without the setting.
  assert.ok(atDefault.requests >= 1 && atDefault.requests <= 4, `the peer served ${atDefault.requests} /metrics requests to 12 s of probes at the default reading interval`);

  const every = await api('POST', '/settings', { nodeReadingIntervalSeconds: 1 });
  assert.is(every.status, 200, every.text);
  await new Promise((r) => setTimeout(r, 2000));
  const atEvery = await over(12, peer);
  assert.ok(atEvery.requests >= 8, `the peer served ${atEvery.requests} /metrics requests to 12 s of probes reading at every probe`);
});

t.run();
