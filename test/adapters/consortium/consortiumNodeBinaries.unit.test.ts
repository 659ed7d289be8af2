// Where the runtime finds Fabric (LNM_FABRIC_BIN only, else PATH; config beside the real
// binary or LNM_FABRIC_CFG), over a release laid out in a scratch directory with stand-in
// executables (the lookup reads the file system only, it runs nothing), and the ccaas builder programs doing their part of Fabric's
// external builder contract when run the way the peer runs them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { findFabricBinary, findFabricConfigDir } from '../../../adapters/consortium/fabricBinaries.ts';
import { ccaasBuilderFiles } from '../../../adapters/consortium/ccaasBuilder.ts';
import { writeFabricFiles } from '../../../adapters/consortium/fabricMsp.ts';

const run = promisify(execFile);

/** The error a command failed with; fails the test when it succeeded. */
async function failure(p: Promise<unknown>): Promise<Error & { stderr?: string }> {
  try {
    await p;
  } catch (err) {
    return err as Error & { stderr?: string };
  }
  throw new Error('the command succeeded where it had to fail');
}
const scratch = await mkdtemp(path.join(tmpdir(), 'lnm-fabric-bin-'));
// A release as Hyperledger's archives lay it out: bin/ and config/ side by side.
const release = path.join(scratch, 'fabric-2.5');
const bin = path.join(release, 'bin');
await mkdir(bin, { recursive: true });
await mkdir(path.join(release, 'config'), { recursive: true });
for (const program of ['peer', 'orderer']) await writeFile(path.join(bin, program), '#!/bin/sh\necho "Version: 2.5.12"\n', { mode: 0o755 });
await writeFile(path.join(bin, 'osnadmin'), 'not executable', { mode: 0o644 });
for (const file of ['core.yaml', 'orderer.yaml']) await writeFile(path.join(release, 'config', file), '# defaults\n');

test.after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

test('LNM_FABRIC_BIN is the only place looked at when set, PATH otherwise', async () => {
  assert.equal(await findFabricBinary('orderer', { LNM_FABRIC_BIN: bin, PATH: '' }), { ok: true, path: path.join(bin, 'orderer') });
  const missing = await findFabricBinary('peer', { LNM_FABRIC_BIN: scratch, PATH: bin });
  assert.is(missing.ok, false);
  assert.match((missing as { reason: string }).reason, `LNM_FABRIC_BIN=${scratch} has no executable peer`);
  assert.equal(await findFabricBinary('peer', { PATH: `/nonexistent:${bin}` }), { ok: true, path: path.join(bin, 'peer') });
  const none = await findFabricBinary('peer', { PATH: '/nonexistent' });
  assert.match((none as { reason: string }).reason, /not on the PATH.*LNM_FABRIC_BIN/);
  // A file that is there but not executable is not a program.
  const notExecutable = await findFabricBinary('osnadmin', { LNM_FABRIC_BIN: bin });
  assert.match((notExecutable as { reason: string }).reason, 'has no executable osnadmin');
});

test("Fabric's default config is found beside the real binary, even through a symlink, or where LNM_FABRIC_CFG says", async () => {
  const links = path.join(scratch, 'links');
  await mkdir(links, { recursive: true });
  await symlink(path.join(bin, 'peer'), path.join(links, 'peer'));
  const beside = await findFabricConfigDir({}, 'peer', path.join(links, 'peer'));
  // The real binary's release, wherever the links on the way point (shared/ may itself be one).
  assert.equal(beside, { ok: true, dir: path.join(await realpath(path.resolve(bin, '..')), 'config') });
  const configured = await findFabricConfigDir({ LNM_FABRIC_CFG: scratch }, 'orderer', path.join(bin, 'orderer'));
  assert.is(configured.ok, false);
  assert.match((configured as { reason: string }).reason, `orderer.yaml is not readable at ${scratch}/orderer.yaml (from LNM_FABRIC_CFG`);
  assert.is((await findFabricConfigDir({}, 'peer')).ok, false);
});

test('the ccaas builder detects ccaas packages only, builds and releases their connection.json', async () => {
  const builder = path.join(scratch, 'node');
  await writeFabricFiles(builder, ccaasBuilderFiles());
  const tool = (name: string) => path.join(builder, 'builders/ccaas/bin', name);
  const [src, meta, out, rel] = ['src', 'meta', 'out', 'release'].map((d) => path.join(scratch, d));
  for (const d of [src, meta, out, rel]) await mkdir(d, { recursive: true });
  await writeFile(path.join(meta, 'metadata.json'), '{"label":"basic_1.0","type":"golang"}');
  await failure(run(tool('detect'), [src, meta]));
  await writeFile(path.join(meta, 'metadata.json'), '{"label":"basic_1.0", "type" : "CCAAS"}');
  await run(tool('detect'), [src, meta]);
  assert.match((await failure(run(tool('build'), [src, meta, out]))).stderr ?? '', /no connection.json/);
  const connection = '{"address":"basic:9999","dial_timeout":"10s","tls_required":false}';
  await writeFile(path.join(src, 'connection.json'), connection);
  await mkdir(path.join(src, 'META-INF/statedb/couchdb/indexes'), { recursive: true });
  await writeFile(path.join(src, 'META-INF/statedb/couchdb/indexes/owner.json'), '{}');
  await run(tool('build'), [src, meta, out]);
  await run(tool('release'), [out, rel]);
  assert.is(await readFile(path.join(rel, 'chaincode/server/connection.json'), 'utf8'), connection);
  assert.is(await readFile(path.join(rel, 'statedb/couchdb/indexes/owner.json'), 'utf8'), '{}');
});

test.run();
