import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { appendFile, mkdtemp, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { followFile, lastLines, linesAfter } from '../../../adapters/engines/logFile.ts';
import { eventually } from './fixtures.ts';

const test = suite<{ dir: string }>('node log files', { dir: '' });

test.before(async (ctx) => {
  ctx.dir = await mkdtemp(path.join(tmpdir(), 'lnm-logfile-'));
});

test.after(async ({ dir }) => {
  await rm(dir, { recursive: true, force: true });
});

test('lastLines returns the last lines of a file much bigger than one read chunk', async ({ dir }) => {
  const file = path.join(dir, 'big.log');
  const lines = Array.from({ length: 200_000 }, (_, i) => `line ${i} ${'x'.repeat(i % 50)}`);
  await writeFile(file, lines.join('\n') + '\n');
  assert.equal(await lastLines(file, 5), lines.slice(-5));
  assert.equal(await lastLines(file, 3000), lines.slice(-3000));
});

test('lastLines keeps a last line without newline and handles short and missing files', async ({ dir }) => {
  const file = path.join(dir, 'short.log');
  await writeFile(file, 'one\ntwo\nthree');
  assert.equal(await lastLines(file, 2), ['two', 'three']);
  assert.equal(await lastLines(file, 10), ['one', 'two', 'three']);
  assert.equal(await lastLines(path.join(dir, 'absent.log'), 10), []);
});

test('linesAfter returns only what was written after the offset', async ({ dir }) => {
  const file = path.join(dir, 'runs.log');
  await writeFile(file, 'earlier run\nstill earlier\n');
  const offset = Buffer.byteLength('earlier run\nstill earlier\n');
  assert.equal(await linesAfter(file, offset, 10), []);
  await appendFile(file, 'this run failed\n');
  assert.equal(await linesAfter(file, offset, 10), ['this run failed']);
});

test('followFile starts with the last lines asked for, then delivers appended lines whole', async ({ dir }) => {
  const file = path.join(dir, 'follow.log');
  await writeFile(file, 'a\nb\nc\n');
  const seen: string[] = [];
  const follower = await followFile(file, (l) => seen.push(l), { tail: 2, pollMs: 50 });
  try {
    assert.equal(seen, ['b', 'c']);
    await appendFile(file, 'd\npart');
    await eventually('d', () => (seen.includes('d') ? true : undefined));
    await appendFile(file, 'ial\n');
    await eventually('the completed line', () => (seen.includes('partial') ? true : undefined));
    assert.equal(seen, ['b', 'c', 'd', 'partial']);
  } finally {
    follower.close();
  }
});

test('followFile goes on after the file is truncated or replaced by a new one (rotation)', async ({ dir }) => {
  const file = path.join(dir, 'rotate.log');
  await writeFile(file, 'old 1\nold 2\n');
  const seen: string[] = [];
  const follower = await followFile(file, (l) => seen.push(l), { pollMs: 50 });
  try {
    await truncate(file, 0);
    await appendFile(file, 'after truncate\n');
    await eventually('line after truncation', () => (seen.includes('after truncate') ? true : undefined));
    await rename(file, `${file}.1`);
    await writeFile(file, 'new file 1\n');
    await eventually('line of the new file', () => (seen.includes('new file 1') ? true : undefined));
    assert.not.ok(seen.includes('old 1'));
  } finally {
    follower.close();
  }
});

test.run();
