// One lookup rule for every platform's programs: the family's bin variable when set (and then
// only there), else the PATH; a file that is not executable is not a program. Stand-in
// executables in a scratch directory: the lookup reads the file system, it runs nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findFabricXProgram } from '../../../adapters/ledgerx/fabricXPrograms.ts';
import { describePrograms } from '../../../bin/programs.ts';

const scratch = await mkdtemp(path.join(tmpdir(), 'lnm-programs-'));
const xBin = path.join(scratch, 'fabric-x', 'bin');
const fabricBin = path.join(scratch, 'fabric', 'bin');
await mkdir(xBin, { recursive: true });
await mkdir(fabricBin, { recursive: true });
await mkdir(path.join(scratch, 'fabric', 'config'), { recursive: true });
for (const p of ['arma', 'committer']) await writeFile(path.join(xBin, p), '#!/bin/sh\n', { mode: 0o755 });
for (const p of ['peer', 'orderer']) await writeFile(path.join(fabricBin, p), '#!/bin/sh\n', { mode: 0o755 });
const gethBin = path.join(scratch, 'geth', 'bin');
await mkdir(gethBin, { recursive: true });
await writeFile(path.join(gethBin, 'geth'), '#!/bin/sh\n', { mode: 0o755 });
await writeFile(path.join(scratch, 'fabric', 'config', 'core.yaml'), '# defaults\n');

test.after(() => rm(scratch, { recursive: true, force: true }));

test('Fabric-X programs: LNM_FABRIC_X_BIN only when set, the PATH otherwise, with a reason naming the variable', async () => {
  assert.equal(await findFabricXProgram('arma', { LNM_FABRIC_X_BIN: xBin, PATH: '' }), { ok: true, path: path.join(xBin, 'arma') });
  assert.equal(await findFabricXProgram('committer', { PATH: `/nonexistent:${xBin}` }), { ok: true, path: path.join(xBin, 'committer') });
  const configuredElsewhere = await findFabricXProgram('arma', { LNM_FABRIC_X_BIN: fabricBin, PATH: xBin });
  assert.is(configuredElsewhere.ok, false, 'a configured directory is the whole answer');
  assert.match((configuredElsewhere as { reason: string }).reason, `LNM_FABRIC_X_BIN=${fabricBin} has no executable arma`);
  const none = await findFabricXProgram('loadgen', { PATH: xBin });
  assert.match((none as { reason: string }).reason, /Fabric-X program loadgen is not on the PATH.*LNM_FABRIC_X_BIN/);
});

test('`lnm programs` lists each platform program with its path or why it is missing', async () => {
  const text = await describePrograms({ LNM_FABRIC_BIN: fabricBin, PATH: xBin });
  assert.match(text, `consortium  peer            ${path.join(fabricBin, 'peer')}`);
  assert.match(text, `consortium  config          ${path.join(scratch, 'fabric', 'config')}`);
  assert.match(text, `ledgerx     arma            ${path.join(xBin, 'arma')}`);
  const bare = await describePrograms({ PATH: '/nonexistent' });
  assert.match(bare, /consortium  orderer +missing: the Fabric program orderer is not on the PATH/);
  assert.match(bare, /ledgerx     committer +missing: /);
  assert.match(bare, /evm         geth +missing: the geth program geth is not on the PATH.*LNM_GETH_BIN/);
  assert.match(await describePrograms({ LNM_GETH_BIN: gethBin, PATH: '/nonexistent' }), `evm         geth            ${path.join(gethBin, 'geth')}`);
});

test.run();
