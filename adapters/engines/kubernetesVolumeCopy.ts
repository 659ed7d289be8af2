// The files of a cluster node's claim, in and out, for backups and `lnm restore`
// (kubernetesEngine.ts copyNodeDataOut and the restore at start), and for a consensus
// migration's backup and restore of a stopped orderer's data directory (copyNodeDataOut and
// copyNodeDataIn with `sub`). The node images are built FROM scratch (.ci/docker.sh: no tar, no
// shell), so the engine runs a short-lived helper pod of the
// service's own image (Node.js) mounting the claim, and streams the files over the Exec
// WebSocket as frames: a 4-byte big-endian length, a JSON header {t: 'd' | 'f' | 'o' | 'e', p:
// the path relative to the directory, m: mode, s: size}, then for a file its s bytes; 'o' is
// anything else (a link, a device: counted, not copied), 'e' the end. No tar program is needed on
// either side and the same frames go both ways.
//
// The scripts below run in the helper pod as `node -e <script> <directory>`; they are
// self-contained (no reference outside their text).
import { createReadStream } from 'node:fs';
import { lstat, mkdir, open, readdir, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';

/**
 * The helper pod's own process (its PID 1, `node -e <script> <idle ms>`): it keeps the pod up while
 * a copy runs in it and ends it once none has for `idle` ms, so a helper left by a service that
 * died mid-copy (or before its copy began) ends by itself and the cluster check's sweep removes it
 * (docs/kubernetes.md, "Orphans"). A copy is any other process of the container (the Exec'd
 * READ_SCRIPT or WRITE_SCRIPT); one whose CPU time and I/O counters have not moved for `idle` ms
 * is stalled (its client gone, a pipe nobody reads) and is killed. The pod also ends after an hour
 * whatever happens (activeDeadlineSeconds).
 */
export const HELPER_SCRIPT = `
const fs = require('node:fs');
const idle = Number(process.argv[1]) || 135000;
const seen = new Map();
let busy = Date.now();
function progress(pid) {
  let v = '';
  try { v += fs.readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1].split(' ').slice(11, 13).join(' '); } catch { return null; }
  try { v += ' ' + (fs.readFileSync('/proc/' + pid + '/io', 'utf8').match(/^(rchar|wchar): \\d+$/gm) || []).join(' '); } catch {}
  return v;
}
setInterval(() => {
  const now = Date.now();
  const pids = fs.readdirSync('/proc').filter((d) => /^\\d+$/.test(d) && Number(d) !== process.pid);
  for (const pid of pids) {
    const v = progress(pid);
    if (v === null) continue;
    const s = seen.get(pid);
    if (!s || s.v !== v) seen.set(pid, { v, at: now });
    else if (now - s.at > idle) { try { process.kill(Number(pid), 'SIGKILL'); } catch {} }
  }
  for (const pid of [...seen.keys()]) if (!pids.includes(pid)) seen.delete(pid);
  if (pids.length) busy = now;
  else if (now - busy > idle) process.exit(0);
}, 1000);
`;

/**
 * Writes the frames of every entry under the directory to stdout (read while the node may run),
 * then the end frame with what it sent: {t: 'e', f: files, b: bytes, o: others}.
 */
export const READ_SCRIPT = `
const fs = require('node:fs'), p = require('node:path');
const root = process.argv[1];
let files = 0, bytes = 0, others = 0;
async function put(b) { if (!process.stdout.write(b)) await new Promise((r) => process.stdout.once('drain', r)); }
async function frame(h) { const j = Buffer.from(JSON.stringify(h)); const n = Buffer.alloc(4); n.writeUInt32BE(j.length); await put(Buffer.concat([n, j])); }
async function walk(rel) {
  for (const e of fs.readdirSync(rel ? p.join(root, rel) : root, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const r = rel ? rel + '/' + e.name : e.name; const full = p.join(root, r);
    if (e.isDirectory()) { if (!rel && e.name === 'lost+found') continue; await frame({ t: 'd', p: r, m: fs.statSync(full).mode & 0o7777 }); await walk(r); }
    else if (e.isFile()) {
      const fd = fs.openSync(full, 'r'); const st = fs.fstatSync(fd);
      await frame({ t: 'f', p: r, m: st.mode & 0o7777, s: st.size }); files++; bytes += st.size;
      // Exactly the size announced: a file growing meanwhile is cut there, one shrinking is padded with zeros.
      let left = st.size; const chunk = Buffer.alloc(1 << 20);
      while (left > 0) { const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, left), null); if (n === 0) { chunk.fill(0); await put(Buffer.from(chunk.subarray(0, Math.min(chunk.length, left)))); left -= Math.min(chunk.length, left); continue; } await put(Buffer.from(chunk.subarray(0, n))); left -= n; }
      fs.closeSync(fd);
    } else { await frame({ t: 'o', p: r }); others++; }
  }
}
walk('').then(() => frame({ t: 'e', f: files, b: bytes, o: others })).catch((err) => { process.stderr.write(String(err && err.message || err)); process.exitCode = 1; });
`;

/**
 * Empties the directory (made when missing: a claim's `data` the node has not written yet), then writes the frames read from stdin into it; at the end frame it
 * prints {"files": n, "bytes": b} (the files it wrote whole, the bytes the file system took) and
 * exits (stdin is never closed by the Exec WebSocket of Kubernetes 1.20, so the end is in the
 * data). The service checks those against what it sent (writtenAsSent). A write that fails prints
 * {"failed": message} and exits 1 (writeFailure reads it).
 */
export const WRITE_SCRIPT = `
const fs = require('node:fs'), p = require('node:path');
const root = p.resolve(process.argv[1]);
// A failure (a full disk: ENOSPC after a short write; a path too long) is said on stdout at once, as
// {"failed": message}: the service stops sending then. Exiting alone is not enough: with frames still
// coming, the cluster's Exec stream does not report the exit while its stdin is not closed.
let failed = false;
function fail(err) { failed = true; const m = String(err && err.message || err); process.stdin.pause(); process.stderr.write(m); process.stdout.write(JSON.stringify({ failed: m }) + '\\n', () => process.exit(1)); }
try {
  fs.mkdirSync(root, { recursive: true });
  for (const e of fs.readdirSync(root)) if (e !== 'lost+found') fs.rmSync(p.join(root, e), { recursive: true, force: true });
} catch (err) { fail(err); }
let buf = Buffer.alloc(0), fd = null, left = 0, files = 0, bytes = 0;
const safe = (r) => { const f = p.resolve(root, String(r)); if (!f.startsWith(root + '/')) throw new Error('a path outside the directory: ' + r); return f; };
function step() {
  for (;;) {
    if (fd !== null) {
      if (!buf.length) return;
      // writeSync may take fewer bytes than asked (a file system filling up): what it took is what counts.
      const n = fs.writeSync(fd, buf, 0, Math.min(left, buf.length)); buf = buf.subarray(n); left -= n; bytes += n;
      if (left === 0) { fs.closeSync(fd); fd = null; files++; }
      continue;
    }
    if (buf.length < 4) return;
    const hl = buf.readUInt32BE(0); if (buf.length < 4 + hl) return;
    const h = JSON.parse(buf.subarray(4, 4 + hl).toString('utf8')); buf = buf.subarray(4 + hl);
    if (h.t === 'e') { process.stdout.write(JSON.stringify({ files, bytes }) + '\\n', () => process.exit(0)); process.stdin.pause(); return; }
    const f = safe(h.p);
    if (h.t === 'd') fs.mkdirSync(f, { recursive: true, mode: h.m & 0o7777 });
    else if (h.t === 'f') { fs.mkdirSync(p.dirname(f), { recursive: true }); fd = fs.openSync(f, 'w', h.m & 0o7777); left = h.s; if (left === 0) { fs.closeSync(fd); fd = null; files++; } }
  }
}
process.stdin.on('data', (d) => {
  if (failed) return;
  buf = buf.length ? Buffer.concat([buf, d]) : d;
  try { step(); } catch (err) { fail(err); }
});
`;

export interface CopyCounts {
  files: number;
  bytes: number;
  skipped: number;
}

/** A path of a frame, checked: relative, inside the directory, no "..". */
function inside(root: string, rel: unknown): string {
  if (typeof rel !== 'string' || rel === '' || path.isAbsolute(rel) || rel.split('/').some((s) => s === '..' || s === '.' || s === '')) throw new Error(`the helper pod sent a path that is not inside the node directory: ${String(rel).slice(0, 100)}`);
  return path.join(root, rel);
}

/**
 * A Writable that takes READ_SCRIPT's frames and writes them under `intoDir` (emptied first by
 * the caller); an end frame whose counts are not those of the frames before it fails the sink.
 * `done(what)` answers the counts once the end frame came, and throws when it did not (the
 * stream stopped early: a copy cut short, whatever the helper's exit said); `what` names the copy.
 */
export function frameWriter(intoDir: string): { sink: Writable; done: (what: string) => CopyCounts } {
  let buf: Buffer = Buffer.alloc(0);
  let file: FileHandle | null = null;
  let left = 0;
  let ended = false;
  const counts: CopyCounts = { files: 0, bytes: 0, skipped: 0 };
  async function step(): Promise<void> {
    for (;;) {
      if (ended) return;
      if (file) {
        if (!buf.length) return;
        const n = Math.min(left, buf.length);
        await file.write(buf.subarray(0, n));
        buf = buf.subarray(n);
        left -= n;
        if (left === 0) {
          await file.close();
          file = null;
        }
        continue;
      }
      if (buf.length < 4) return;
      const hl = buf.readUInt32BE(0);
      if (hl > 1 << 16) throw new Error('the helper pod sent a malformed frame');
      if (buf.length < 4 + hl) return;
      const h = JSON.parse(buf.subarray(4, 4 + hl).toString('utf8')) as { t: string; p?: string; m?: number; s?: number; f?: unknown; b?: unknown; o?: unknown };
      buf = buf.subarray(4 + hl);
      if (h.t === 'e') {
        // The end frame says what the helper sent: frames lost or doubled on the way show here.
        if (h.f !== counts.files || h.b !== counts.bytes || h.o !== counts.skipped) {
          throw new Error(`the helper pod's end frame says ${String(h.f)} files (${String(h.b)} bytes, ${String(h.o)} others) but ${counts.files} files (${counts.bytes} bytes, ${counts.skipped} others) came before it`);
        }
        ended = true;
        return;
      }
      const to = inside(intoDir, h.p);
      if (h.t === 'd') await mkdir(to, { recursive: true, mode: 0o700 });
      else if (h.t === 'f') {
        if (!Number.isSafeInteger(h.s) || h.s! < 0) throw new Error('the helper pod sent a malformed frame');
        await mkdir(path.dirname(to), { recursive: true, mode: 0o700 });
        file = await open(to, 'w', (h.m ?? 0o600) & 0o777);
        left = h.s!;
        counts.files++;
        counts.bytes += left;
        if (left === 0) {
          await file.close();
          file = null;
        }
      } else counts.skipped++;
    }
  }
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      step().then(() => cb(), cb);
    },
    final(cb) {
      const f = file;
      file = null;
      (f ? f.close() : Promise.resolve()).then(() => cb(), cb);
    },
  });
  return {
    sink,
    done: (what) => {
      if (!ended) throw new Error(`the copy of ${what} ended early: the helper pod's frames stopped before their end (${counts.files} files, ${counts.bytes} bytes came)`);
      return { ...counts };
    },
  };
}

/**
 * Emits the frames of `dir` (regular files and directories; anything else is left out) into
 * `write`, then the end frame; answers the files and bytes sent.
 */
export async function writeFrames(dir: string, write: (b: Buffer) => Promise<void>): Promise<{ files: number; bytes: number }> {
  const frame = (h: object) => {
    const j = Buffer.from(JSON.stringify(h));
    const n = Buffer.alloc(4);
    n.writeUInt32BE(j.length);
    return write(Buffer.concat([n, j]));
  };
  let files = 0;
  let bytes = 0;
  async function walk(rel: string): Promise<void> {
    for (const name of (await readdir(rel ? path.join(dir, rel) : dir)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const st = await lstat(path.join(dir, r));
      if (st.isDirectory()) {
        await frame({ t: 'd', p: r, m: st.mode & 0o7777 });
        await walk(r);
      } else if (st.isFile()) {
        await frame({ t: 'f', p: r, m: st.mode & 0o7777, s: st.size });
        let sent = 0;
        for await (const chunk of createReadStream(path.join(dir, r), { start: 0, end: st.size > 0 ? st.size - 1 : 0 })) {
          const b = (chunk as Buffer).subarray(0, st.size - sent);
          if (!b.length) break;
          await write(b);
          sent += b.length;
        }
        if (sent < st.size) await write(Buffer.alloc(st.size - sent));
        files++;
        bytes += st.size;
      }
    }
  }
  await walk('');
  await frame({ t: 'e' });
  return { files, bytes };
}

/**
 * What WRITE_SCRIPT printed (its stdout), checked against what was sent: the same files written
 * whole and the same bytes taken by the claim's file system, else an error naming both (`what`
 * names where). The helper's exit status alone does not say the files are all there.
 */
export function writtenAsSent(said: string, sent: { files: number; bytes: number }, what: string): { files: number; bytes: number } {
  const m = /\{"files":(\d+),"bytes":(\d+)\}/.exec(said);
  const files = m ? Number(m[1]) : Number.NaN;
  const bytes = m ? Number(m[2]) : Number.NaN;
  if (files !== sent.files || bytes !== sent.bytes) {
    throw new Error(`the helper pod wrote ${m ? `${files} files (${bytes} bytes)` : 'an unknown number of files'} of the ${sent.files} (${sent.bytes} bytes) sent into ${what}`);
  }
  return { files, bytes };
}

/** The failure WRITE_SCRIPT printed (its {"failed": message} line), or undefined. */
export function writeFailure(said: string): string | undefined {
  const m = /\{"failed":("(?:[^"\\]|\\.)*")\}/.exec(said);
  if (!m) return undefined;
  try {
    return String(JSON.parse(m[1]!));
  } catch {
    return undefined;
  }
}

export async function emptyDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
}
