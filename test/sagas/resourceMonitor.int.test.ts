import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { freshDatabase } from '../helpers/postgres.ts';
import { migrate } from '../../adapters/postgres/migrate.ts';
import { postgresEventStore } from '../../adapters/eventstore/postgresEventStore.ts';
import { createResourceMonitor } from '../../sagas/resourceMonitor.ts';
import { RESOURCE_ALERTS_STREAM } from '../../domain/system/resourceAlerts.ts';
import { createHostResources } from '../../adapters/system/hostResources.ts';

test('disk alerts once per crossing of the threshold, CPU only when sustained, and a restarted monitor repeats nothing', async () => {
  const db = await freshDatabase();
  await migrate(db.pool);
  const store = postgresEventStore(db.pool, { url: db.url });
  const level = { disk: 0, cpu: 0, memory: 10 };
  const host = {
    disk: async () => ({ usedPercent: level.disk, freeBytes: 1024 ** 3, totalBytes: 10 * 1024 ** 3 }),
    cpuPercent: () => level.cpu,
    memoryPercent: () => level.memory,
  };
  const thresholds = async () => ({ intervalSeconds: 60, diskPercent: 80, cpuPercent: 90, memoryPercent: 90 });
  const monitor = () => createResourceMonitor({ store, host, dataDir: '/srv/lnm-data', thresholds, newId: randomUUID });
  const types = async () => (await store.readStream(RESOURCE_ALERTS_STREAM)).map((e) => e.type);
  const m = monitor();
  for (const [disk, cpu] of [[85, 95], [86, 95], [70, 95], [70, 50], [90, 95]]) {
    level.disk = disk;
    level.cpu = cpu;
    await m.sample();
  }
  assert.equal(await types(), ['DiskSpaceWarningRaised', 'DiskSpaceWarningCleared', 'CpuHighDetected', 'CpuHighCleared', 'DiskSpaceWarningRaised']);
  const first = (await store.readStream(RESOURCE_ALERTS_STREAM))[0];
  assert.equal(first.data, { usedPercent: 85, thresholdPercent: 80, path: '/srv/lnm-data', freeBytes: 1024 ** 3, totalBytes: 10 * 1024 ** 3, at: first.data.at });
  // A restart: still above, already raised, nothing new.
  await monitor().sample();
  assert.is((await types()).length, 5);
  await store.close();
  await db.close();
});

test('the host figures are plausible percentages of the real machine', async () => {
  const h = createHostResources();
  const d = await h.disk('/');
  assert.ok(d.usedPercent >= 0 && d.usedPercent <= 100 && d.totalBytes > d.freeBytes && d.freeBytes > 0, JSON.stringify(d));
  await new Promise((r) => setTimeout(r, 100));
  const cpu = h.cpuPercent();
  assert.ok(cpu >= 0 && cpu <= 100);
  const mem = h.memoryPercent();
  assert.ok(mem > 0 && mem < 100);
});

test.run();
