// Reading a node's log file: the last lines without reading a big file whole, and a
// tail -f that survives truncation and rotation (a new file at the same path).
import { open, stat } from 'node:fs/promises';
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { LogFollower } from '../../domain/nodes/nodeEngine.ts';

const CHUNK = 64 * 1024;

/** The last `count` lines of the file's first `end` bytes (default: all of it). */
export async function lastLines(file: string, count: number, end?: number): Promise<string[]> {
  if (count <= 0) return [];
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  try {
    const size = end ?? (await handle.stat()).size;
    const chunks: Buffer[] = [];
    let newlines = 0;
    let pos = size;
    // Read backwards until count+1 newlines are in hand (the extra one bounds the first line).
    while (pos > 0 && newlines <= count) {
      const len = Math.min(CHUNK, pos);
      pos -= len;
      const buf = Buffer.alloc(len);
      await handle.read(buf, 0, len, pos);
      chunks.unshift(buf);
      for (const b of buf) if (b === 10) newlines++;
    }
    const text = Buffer.concat(chunks).toString('utf8');
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    return lines.slice(-count);
  } finally {
    await handle.close();
  }
}

/** The last `count` lines written after byte `offset` (this run's output, not an earlier run's). */
export async function linesAfter(file: string, offset: number, count: number): Promise<string[]> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    return [];
  }
  if (size <= offset) return [];
  const from = Math.max(offset, size - CHUNK);
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(size - from);
    await handle.read(buf, 0, buf.length, from);
    const lines = buf.toString('utf8').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    // Started mid-line when the run wrote more than one chunk: drop the fragment.
    if (from > offset) lines.shift();
    return lines.slice(-count);
  } finally {
    await handle.close();
  }
}

/**
 * Calls onLine for each complete line appended to the file from now on, after the last
 * `tail` existing lines. fs.watch on the directory wakes it at once; a poll every
 * `pollMs` covers file systems where watch says nothing.
 */
export async function followFile(file: string, onLine: (line: string) => void, opts: { tail?: number; pollMs?: number } = {}): Promise<LogFollower> {
  let pos = 0;
  let inode = -1;
  try {
    const s = await stat(file);
    pos = s.size;
    inode = s.ino;
  } catch {
    // Not written yet: follow from its first byte once it appears.
  }
  for (const line of await lastLines(file, opts.tail ?? 0, pos)) onLine(line);

  let partial = '';
  // The bytes just before `pos`: if they changed, the file was truncated and rewritten past
  // our position between two looks, which the size alone cannot show.
  let seenTail = Buffer.alloc(0);
  if (pos > 0) {
    const handle = await open(file, 'r');
    try {
      seenTail = Buffer.alloc(Math.min(64, pos));
      await handle.read(seenTail, 0, seenTail.length, pos - seenTail.length);
    } finally {
      await handle.close();
    }
  }
  let closed = false;
  let busy = false;
  let again = false;

  const readNew = async () => {
    let s;
    try {
      s = await stat(file);
    } catch {
      return;
    }
    if (s.ino !== inode || s.size < pos) {
      // Rotated (new file) or truncated: start over at its beginning.
      inode = s.ino;
      pos = 0;
      partial = '';
      seenTail = Buffer.alloc(0);
    }
    if (s.size < pos) return;
    const handle = await open(file, 'r');
    try {
      if (seenTail.length && pos >= seenTail.length) {
        const now = Buffer.alloc(seenTail.length);
        await handle.read(now, 0, now.length, pos - now.length);
        if (!now.equals(seenTail)) {
          pos = 0;
          partial = '';
          seenTail = Buffer.alloc(0);
        }
      }
      while (pos < s.size && !closed) {
        const len = Math.min(CHUNK, s.size - pos);
        const buf = Buffer.alloc(len);
        const { bytesRead } = await handle.read(buf, 0, len, pos);
        if (bytesRead === 0) break;
        pos += bytesRead;
        seenTail = Buffer.concat([seenTail, buf.subarray(0, bytesRead)]).subarray(-64);
        const lines = (partial + buf.subarray(0, bytesRead).toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) if (!closed) onLine(line);
      }
    } finally {
      await handle.close();
    }
  };

  const check = async () => {
    if (closed) return;
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        await readNew();
      } while (again && !closed);
    } catch {
      // A read racing a rotation: the next wake-up reads again.
    } finally {
      busy = false;
    }
  };

  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(path.dirname(file), { persistent: false }, (_event, name) => {
      if (!name || name === path.basename(file)) void check();
    });
    watcher.on('error', () => watcher?.close());
  } catch {
    watcher = undefined;
  }
  const timer = setInterval(() => void check(), opts.pollMs ?? 500);
  timer.unref();
  return {
    close() {
      closed = true;
      clearInterval(timer);
      watcher?.close();
    },
  };
}
