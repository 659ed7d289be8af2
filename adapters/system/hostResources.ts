// Host usage figures: statfs of the data directory's file system (space available to this
// user counts as free, as df shows it), CPU busy time across all cores between two calls, and
// memory in use (total minus available).
import { statfs } from 'node:fs/promises';
import os from 'node:os';
import type { HostResources } from '../../domain/system/ports.ts';

function cpuTimes() {
  let idle = 0;
  let total = 0;
  for (const c of os.cpus()) {
    idle += c.times.idle;
    total += c.times.user + c.times.nice + c.times.sys + c.times.irq + c.times.idle;
  }
  return { idle, total };
}

export function createHostResources(): HostResources {
  let last = cpuTimes();
  return {
    async disk(path) {
      const s = await statfs(path);
      const totalBytes = s.blocks * s.bsize;
      const freeBytes = s.bavail * s.bsize;
      const usedBytes = (s.blocks - s.bfree) * s.bsize;
      // df's Use%: used / (used + available to unprivileged users).
      const usedPercent = usedBytes + freeBytes > 0 ? Math.round((usedBytes / (usedBytes + freeBytes)) * 100) : 0;
      return { usedPercent, freeBytes, totalBytes };
    },
    cpuPercent() {
      const now = cpuTimes();
      const total = now.total - last.total;
      const busy = total - (now.idle - last.idle);
      last = now;
      return total > 0 ? Math.round((busy / total) * 100) : 0;
    },
    memoryPercent() {
      const total = os.totalmem();
      return total > 0 ? Math.round(((total - os.freemem()) / total) * 100) : 0;
    },
  };
}
