// What the resource monitor reads from the host. Adapter: adapters/system/hostResources.ts.
export interface HostResources {
  disk(path: string): Promise<{ usedPercent: number; freeBytes: number; totalBytes: number }>;
  /** Busy share of all CPUs since the previous call (0-100). */
  cpuPercent(): number;
  memoryPercent(): number;
}
