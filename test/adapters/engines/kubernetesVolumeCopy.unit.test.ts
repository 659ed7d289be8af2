// The frames a cluster node's claim is copied in (kubernetesVolumeCopy.ts), run here with this
// machine's Node.js as the helper pod runs them (`node -e <script> <dir>`): the read script's
// frames unpacked by the service, the service's frames written by the write script (stdin left
// open, as the Exec WebSocket leaves it), a directory of the claim (data/) written alone, and
// paths leaving the directory refused on both sides.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { frameWriter, READ_SCRIPT, WRITE_SCRIPT, writeFailure, writeFrames, writtenAsSent } from '../../../adapters/engines/kubernetesVolumeCopy.ts';

const dirs: string[] = [];
const scratch = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'lnm-kvc-'));
  dirs.push(d);
  return d;
};

/** Every file under dir with its content, by relative path. */
function tree(dir: string, base = dir): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir).sort().flatMap((f) => {
      const p = path.join(dir, f);
      const st = statSync(p);
      return st.isDirectory() ? Object.entries(tree(p, base)) : [[path.relative(base, p), readFileSync(p).toString('base64')]];
    }),
  );
}

/** Runs a script as the helper pod does; stdin is written and never ended. Resolves with exit code, stdout, stderr. */
function runScript(script: string, dir: string, stdout: Writable | null, feed?: Buffer): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', script, dir], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (stdout ? stdout.write(d) : (out += d.toString())));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => {
      stdout?.end();
      resolve({ code, out, err });
    });
    if (feed) child.stdin.write(feed);
  });
}

function sample(dir: string) {
  mkdirSync(path.join(dir, 'store', 'chains', 'empty'), { recursive: true });
  writeFileSync(path.join(dir, 'anvil-state.json'), '{"block":{"number":"0x7"}}');
  writeFileSync(path.join(dir, 'store', 'chains', 'big.bin'), Buffer.alloc(3 * 1024 * 1024 + 17, 7));
  writeFileSync(path.join(dir, 'store', 'zero'), '');
  symlinkSync('/etc/passwd', path.join(dir, 'link'));
}

test('the read script\'s frames unpacked here: the same files, a link counted not taken, the end seen', async () => {
  const from = scratch();
  sample(from);
  const into = scratch();
  const w = frameWriter(into);
  const finished = new Promise((r) => w.sink.on('finish', r));
  const r = await runScript(READ_SCRIPT, from, w.sink);
  await finished;
  assert.is(r.code, 0, r.err);
  const seen = w.done('the sample');
  assert.is(seen.files, 3);
  assert.is(seen.skipped, 1);
  assert.is(seen.bytes, 26 + 3 * 1024 * 1024 + 17);
  const expected = tree(from);
  delete expected['link'];
  assert.equal(tree(into), expected);
  assert.ok(statSync(path.join(into, 'store', 'chains', 'empty')).isDirectory());
});

test('the service\'s frames written by the write script: the directory emptied first, then the same files; it ends at the end frame with stdin open', async () => {
  const from = scratch();
  sample(from);
  const chunks: Buffer[] = [];
  const sent = await writeFrames(from, async (b) => void chunks.push(Buffer.from(b)));
  assert.equal(sent, { files: 3, bytes: 26 + 3 * 1024 * 1024 + 17 });
  const into = scratch();
  writeFileSync(path.join(into, 'stale-from-before.json'), 'old');
  const r = await runScript(WRITE_SCRIPT, into, null, Buffer.concat(chunks));
  assert.is(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out), sent);
  assert.equal(writtenAsSent(r.out, sent, 'the sample'), sent);
  const expected = tree(from);
  delete expected['link'];
  assert.equal(tree(into), expected);
});

test('a migration\'s restore of a claim\'s data directory: the write script makes data/ when missing, empties it, writes it, and leaves the rest of the claim as it is', async () => {
  const from = scratch();
  sample(from);
  const chunks: Buffer[] = [];
  assert.is((await writeFrames(from, async (b) => void chunks.push(Buffer.from(b)))).files, 3);
  const claim = scratch();
  writeFileSync(path.join(claim, 'orderer.yaml'), 'kept');
  mkdirSync(path.join(claim, 'keep', 'inner'), { recursive: true });
  writeFileSync(path.join(claim, 'keep', 'inner', 'x'), 'kept too');
  // data/ not there yet (a node that never wrote it): made.
  const first = await runScript(WRITE_SCRIPT, path.join(claim, 'data'), null, Buffer.concat(chunks));
  assert.is(first.code, 0, first.err);
  assert.is(JSON.parse(first.out).files, 3);
  // Written again over what the node wrote since: only the backup's files in data/.
  writeFileSync(path.join(claim, 'data', 'written-after-the-backup'), 'new');
  const again = await runScript(WRITE_SCRIPT, path.join(claim, 'data'), null, Buffer.concat(chunks));
  assert.is(again.code, 0, again.err);
  const expected = tree(from);
  delete expected['link'];
  assert.equal(tree(path.join(claim, 'data')), expected);
  assert.is(readFileSync(path.join(claim, 'orderer.yaml'), 'utf8'), 'kept');
  assert.is(readFileSync(path.join(claim, 'keep', 'inner', 'x'), 'utf8'), 'kept too');
  assert.equal(readdirSync(claim).sort(), ['data', 'keep', 'orderer.yaml']);
});

test('a path leaving the directory is refused by the write script and by the service', async () => {
  const frame = (h: object) => {
    const j = Buffer.from(JSON.stringify(h));
    const n = Buffer.alloc(4);
    n.writeUInt32BE(j.length);
    return Buffer.concat([n, j]);
  };
  const outside = scratch();
  const into = path.join(outside, 'dir');
  mkdirSync(into);
  const evil = Buffer.concat([frame({ t: 'f', p: '../escaped', m: 0o644, s: 3 }), Buffer.from('bad'), frame({ t: 'e' })]);
  const r = await runScript(WRITE_SCRIPT, into, null, evil);
  assert.is(r.code, 1);
  assert.match(r.err, /outside the directory/);
  // Said on stdout too, for the service to stop sending at once (a cluster's Exec stream does not
  // report the exit while frames still come: kubernetesClaimFull.int.test.ts).
  assert.match(writeFailure(r.out) ?? '', /outside the directory/);
  assert.is(writeFailure('{"files":1,"bytes":3}\n'), undefined);
  assert.equal(readdirSync(outside), ['dir']);

  const w = frameWriter(into);
  const failed = new Promise<Error>((resolve) => w.sink.on('error', resolve));
  w.sink.write(evil);
  assert.match((await failed).message, /not inside the node directory/);
  assert.equal(readdirSync(outside), ['dir']);
});

// What no real cluster produces at will: the frames cut or changed between the helper pod and
// the service (the Exec stream). The checks below are the only thing that notices when the
// helper's exit status says it went well (kubernetesEngine.ts copyNodeDataOut, writeIntoClaim).

/** The frames of a stream, each as its header and its bytes (header and any file data), in order. */
function framesOf(stream: Buffer): Array<{ h: { t: string; p?: string; s?: number }; bytes: Buffer }> {
  const out: Array<{ h: { t: string; p?: string; s?: number }; bytes: Buffer }> = [];
  let at = 0;
  while (at < stream.length) {
    const hl = stream.readUInt32BE(at);
    const h = JSON.parse(stream.subarray(at + 4, at + 4 + hl).toString('utf8'));
    const end = at + 4 + hl + (h.t === 'f' ? h.s : 0);
    out.push({ h, bytes: stream.subarray(at, end) });
    at = end;
  }
  return out;
}

/** READ_SCRIPT's whole output for the sample directory, as the helper pod sends it. */
async function readFramesOfSample(): Promise<Buffer> {
  const from = scratch();
  sample(from);
  const chunks: Buffer[] = [];
  const r = await runScript(READ_SCRIPT, from, new Writable({ write(c: Buffer, _e, cb) { chunks.push(Buffer.from(c)); cb(); } }));
  assert.is(r.code, 0, r.err);
  return Buffer.concat(chunks);
}

/** Feeds frames to a frameWriter and ends it; the error the sink raised, if any, and the writer. */
async function unpack(stream: Buffer) {
  const w = frameWriter(scratch());
  const settled = new Promise<Error | null>((resolve) => {
    w.sink.on('finish', () => resolve(null));
    w.sink.on('error', resolve);
  });
  w.sink.end(stream);
  return { error: await settled, w };
}

test('copy out: the end frame carries the counts the read script sent, and they match what came', async () => {
  const stream = await readFramesOfSample();
  const frames = framesOf(stream);
  assert.equal(frames.at(-1)!.h, { t: 'e', f: 3, b: 26 + 3 * 1024 * 1024 + 17, o: 1 });
  const { error, w } = await unpack(stream);
  assert.is(error, null);
  assert.equal(w.done('the sample'), { files: 3, bytes: 26 + 3 * 1024 * 1024 + 17, skipped: 1 });
});

test('copy out: frames that stop before the end frame (between two frames, or inside a file) are an early end, not a copy', async () => {
  const stream = await readFramesOfSample();
  const frames = framesOf(stream);
  const withoutEnd = stream.subarray(0, stream.length - frames.at(-1)!.bytes.length);
  const cut = await unpack(withoutEnd);
  assert.is(cut.error, null, 'the frames up to there are well formed');
  assert.throws(() => cut.w.done('the claim x-data'), /the copy of the claim x-data ended early/);
  const big = frames.findIndex((f) => f.h.p === 'store/chains/big.bin');
  const start = frames.slice(0, big).reduce((n, f) => n + f.bytes.length, 0);
  const midFile = await unpack(stream.subarray(0, start + 1000));
  assert.is(midFile.error, null);
  assert.throws(() => midFile.w.done('the claim x-data'), /ended early/);
});

test('copy out: a file frame lost on the way (the end frame still there) fails the copy, naming both counts', async () => {
  const frames = framesOf(await readFramesOfSample());
  const lost = frames.findIndex((f) => f.h.p === 'anvil-state.json');
  assert.ok(lost >= 0);
  const { error } = await unpack(Buffer.concat(frames.filter((_, i) => i !== lost).map((f) => f.bytes)));
  assert.instance(error, Error);
  assert.match(error!.message, /end frame says 3 files \(\d+ bytes, 1 others\) but 2 files/);
});

test('copy in: the write script says the files and bytes it wrote; fewer than sent (a frame lost on the way) or nothing said is an error naming both', async () => {
  const from = scratch();
  sample(from);
  const chunks: Buffer[] = [];
  const sent = await writeFrames(from, async (b) => void chunks.push(Buffer.from(b)));
  // The service sent three files; one frame with its data does not reach the helper.
  const frames = framesOf(Buffer.concat(chunks));
  const into = scratch();
  const r = await runScript(WRITE_SCRIPT, into, null, Buffer.concat(frames.filter((f) => f.h.p !== 'anvil-state.json').map((f) => f.bytes)));
  assert.is(r.code, 0, 'the helper itself exits 0: nothing it saw was wrong');
  assert.equal(JSON.parse(r.out), { files: 2, bytes: sent.bytes - 26 });
  assert.throws(() => writtenAsSent(r.out, sent, 'the node directory of the claim x-data'), /wrote 2 files \(\d+ bytes\) of the 3 \(\d+ bytes\) sent into the node directory of the claim x-data/);
  assert.throws(() => writtenAsSent('', sent, 'the node directory'), /wrote an unknown number of files of the 3/);
  // The same count of files with bytes missing (a file cut short) is no better.
  assert.throws(() => writtenAsSent(JSON.stringify({ files: 3, bytes: sent.bytes - 1 }), sent, 'the node directory'), /wrote 3 files/);
});

test.after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test.run();
