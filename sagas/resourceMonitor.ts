// The resource monitor: every resourceCheckIntervalSeconds it samples the data directory's disk,
// CPU and memory and records a sample per resource (domain/system/resourceAlerts.ts turns a
// crossing into DiskSpaceWarningRaised, CpuHighDetected, MemoryHighDetected or their clearing).
// Disk alerts at the first sample at or above diskSpaceWarningPercent; CPU and memory only when
// `sustainedSamples` samples in a row are above their threshold, so a burst does not page anyone.
// State lives in the event stream, so a restart neither repeats nor loses an alert.
import type { EventStore } from '../domain/shared/eventStore.ts';
import { handleCommand } from '../domain/shared/commandHandler.ts';
import { RESOURCE_ALERTS_STREAM, resourceAlerts, type Resource } from '../domain/system/resourceAlerts.ts';
import type { HostResources } from '../domain/system/ports.ts';
import { pollingLoop } from './pollingLoop.ts';

export interface ResourceThresholds {
  intervalSeconds: number;
  diskPercent: number;
  cpuPercent: number;
  memoryPercent: number;
}

export interface ResourceMonitor {
  /** One sampling round (the timer calls it; tests may too). */
  sample(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
}

export function createResourceMonitor(o: { store: EventStore; host: HostResources; dataDir: string; thresholds: () => Promise<ResourceThresholds>; newId: () => string; clock?: () => Date; sustainedSamples?: number; log?: (m: string, e?: Record<string, unknown>) => void }): ResourceMonitor {
  const clock = o.clock ?? (() => new Date());
  const sustained = o.sustainedSamples ?? 3;
  const streak: Record<Resource, number> = { disk: 0, cpu: 0, memory: 0 };

  async function record(resource: Resource, usedPercent: number, thresholdPercent: number, needed: number, details: Record<string, unknown> = {}) {
    streak[resource] = usedPercent >= thresholdPercent ? streak[resource] + 1 : 0;
    const at = clock().toISOString();
    await handleCommand(o.store, RESOURCE_ALERTS_STREAM, resourceAlerts, { type: 'RecordResourceSample', resource, usedPercent, thresholdPercent, above: streak[resource] >= needed, details, at }, {
      metadata: { timestamp: at, actor: null },
      newId: o.newId,
    });
  }

  async function sample() {
    const t = await o.thresholds();
    const disk = await o.host.disk(o.dataDir);
    await record('disk', disk.usedPercent, t.diskPercent, 1, { path: o.dataDir, freeBytes: disk.freeBytes, totalBytes: disk.totalBytes });
    await record('cpu', o.host.cpuPercent(), t.cpuPercent, sustained);
    await record('memory', o.host.memoryPercent(), t.memoryPercent, sustained);
  }

  const loop = pollingLoop(sample, async () => (await o.thresholds().catch(() => ({ intervalSeconds: 30 }))).intervalSeconds * 1000, (err) => o.log?.('resource sampling failed', { error: err.message }));
  return { sample, start: loop.start, stop: loop.stop };
}
