// What /proc says about a pid: enough to tell our node from a stranger that got its pid.
import { readFileSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';

export interface ProcStat {
  /** R, S, D, Z (zombie), T, ... */
  state: string;
  pgrp: number;
  /** Start time in clock ticks after boot: with the pid, unique for the life of the machine. */
  startTicks: number;
}

export async function procStat(pid: number): Promise<ProcStat | undefined> {
  let text: string;
  try {
    // Synchronous on purpose: a /proc file is made by the kernel on read and never waits on a
    // disk, and an asynchronous read costs four thread-pool round trips (open, fstat, read,
    // close) for a few hundred bytes; the health monitor reads one per node per interval.
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces or ")": split after the last ")".
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0], pgrp: Number(fields[2]), startTicks: Number(fields[19]) };
}

export async function procCmdline(pid: number): Promise<string[] | undefined> {
  try {
    const raw = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    return raw.split('\0').filter((a, i, all) => a !== '' || i < all.length - 1);
  } catch {
    return undefined;
  }
}

/** Live (not zombie) members of the process group. */
export async function groupMembers(pgid: number): Promise<number[]> {
  const members: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const s = await procStat(Number(entry));
    if (s && s.pgrp === pgid && s.state !== 'Z') members.push(Number(entry));
  }
  return members;
}

let knownBootId: string | undefined;

/** Changes at every boot: a pid record from before a reboot names nothing of ours. Read once (it cannot change while this process runs). */
export async function bootId(): Promise<string | undefined> {
  if (knownBootId !== undefined) return knownBootId;
  try {
    return (knownBootId = (await readFile('/proc/sys/kernel/random/boot_id', 'utf8')).trim());
  } catch {
    return undefined;
  }
}
