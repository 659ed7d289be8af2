// CPU time and resident memory of a process, from /proc (Linux), for the node benches.
import { readFileSync } from 'node:fs';

const CLK_TCK = 100;
const PAGE = 4096;

export function procStat(pid: number): { cpuMs: number; rssBytes: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK, rssBytes: Number(fields[21]) * PAGE };
}
