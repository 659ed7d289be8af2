// Resource alerts of the server host: disk usage of the data directory, CPU and memory. One
// stream; each resource is either normal or alerting, and only a change is an event, so a
// monitor sampling every few seconds raises system.disk_space.warning (performance.cpu.high,
// performance.memory.high) once per crossing, and again only after it has cleared. Whether a
// level is "sustained" is the monitor's call (it counts consecutive samples).
import type { Decider } from '../shared/decider.ts';
import { assertNever } from '../shared/decider.ts';

export const RESOURCE_ALERTS_STREAM = 'system-resource-alerts';
export type Resource = 'disk' | 'cpu' | 'memory';

export interface ResourceSample {
  resource: Resource;
  usedPercent: number;
  thresholdPercent: number;
  /** Above the threshold for long enough to alert (the monitor decides). */
  above: boolean;
  /** disk: path, freeBytes, totalBytes. */
  details: { path?: string; freeBytes?: number; totalBytes?: number };
  at: string;
}

type Alert = { usedPercent: number; thresholdPercent: number; path: string | null; freeBytes: number | null; totalBytes: number | null; at: string };
export type ResourceAlertEvent =
  | { type: 'DiskSpaceWarningRaised'; data: Alert }
  | { type: 'DiskSpaceWarningCleared'; data: Alert }
  | { type: 'CpuHighDetected'; data: Alert }
  | { type: 'CpuHighCleared'; data: Alert }
  | { type: 'MemoryHighDetected'; data: Alert }
  | { type: 'MemoryHighCleared'; data: Alert };

export type ResourceAlertState = Record<Resource, boolean>;
export type ResourceAlertCommand = { type: 'RecordResourceSample' } & ResourceSample;

const names = {
  disk: ['DiskSpaceWarningRaised', 'DiskSpaceWarningCleared'],
  cpu: ['CpuHighDetected', 'CpuHighCleared'],
  memory: ['MemoryHighDetected', 'MemoryHighCleared'],
} as const;

export const resourceAlerts: Decider<ResourceAlertState, ResourceAlertCommand, ResourceAlertEvent> = {
  initialState: () => ({ disk: false, cpu: false, memory: false }),
  evolve(s, e) {
    switch (e.type) {
      case 'DiskSpaceWarningRaised': return { ...s, disk: true };
      case 'DiskSpaceWarningCleared': return { ...s, disk: false };
      case 'CpuHighDetected': return { ...s, cpu: true };
      case 'CpuHighCleared': return { ...s, cpu: false };
      case 'MemoryHighDetected': return { ...s, memory: true };
      case 'MemoryHighCleared': return { ...s, memory: false };
      default: return assertNever(e);
    }
  },
  decide(c, s) {
    if (c.above === s[c.resource]) return [];
    const [raised, cleared] = names[c.resource];
    const data: Alert = { usedPercent: c.usedPercent, thresholdPercent: c.thresholdPercent, path: c.details.path ?? null, freeBytes: c.details.freeBytes ?? null, totalBytes: c.details.totalBytes ?? null, at: c.at };
    return [{ type: c.above ? raised : cleared, data } as ResourceAlertEvent];
  },
};
