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
import { frameWriter, READ_SCRIPT, WRITE_SCRIPT, writeFrames } from '../../../adapters/engines/kubernetesVolumeCopy.ts';

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
  const seen = w.done();
  assert.ok(seen.ended);
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
  const files = await writeFrames(from, async (b) => void chunks.push(Buffer.from(b)));
  assert.is(files, 3);
  const into = scratch();
  writeFileSync(path.join(into, 'stale-from-before.json'), 'old');
  const r = await runScript(WRITE_SCRIPT, into, null, Buffer.concat(chunks));
  assert.is(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out), { files: 3 });
  const expected = tree(from);
  delete expected['link'];
  assert.equal(tree(into), expected);
});

test('a migration\'s restore of a claim\'s data directory: the write script makes data/ when missing, empties it, writes it, and leaves the rest of the claim as it is', async () => {
  const from = scratch();
  sample(from);
  const chunks: Buffer[] = [];
  assert.is(await writeFrames(from, async (b) => void chunks.push(Buffer.from(b))), 3);
  const claim = scratch();
  writeFileSync(path.join(claim, 'orderer.yaml'), 'kept');
  mkdirSync(path.join(claim, 'keep', 'inner'), { recursive: true });
  writeFileSync(path.join(claim, 'keep', 'inner', 'x'), 'kept too');
  // data/ not there yet (a node that never wrote it): made.
  const first = await runScript(WRITE_SCRIPT, path.join(claim, 'data'), null, Buffer.concat(chunks));
  assert.is(first.code, 0, first.err);
  assert.equal(JSON.parse(first.out), { files: 3 });
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
  assert.equal(readdirSync(outside), ['dir']);

  const w = frameWriter(into);
  const failed = new Promise<Error>((resolve) => w.sink.on('error', resolve));
  w.sink.write(evil);
  assert.match((await failed).message, /not inside the node directory/);
  assert.equal(readdirSync(outside), ['dir']);
});

test.after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test.run();
