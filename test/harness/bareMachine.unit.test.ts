// `npm run test:bare` hides the hand-built programs the way a fresh machine lacks them, and keeps
// everything else beside them reachable.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bareEnvironment, stillFound } from '../helpers/bareMachine.ts';
import { findFabricBinary } from '../../adapters/consortium/fabricBinaries.ts';

let dir = '';
test.before.each(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'lnm-bare-'));
});
test.after.each(() => rmSync(dir, { recursive: true, force: true }));

function program(where: string, name: string): string {
  mkdirSync(where, { recursive: true });
  const p = path.join(where, name);
  writeFileSync(p, '#!/bin/sh\nexit 0\n');
  chmodSync(p, 0o755);
  return p;
}

test('hand-built programs on PATH are hidden; the programs beside them stay reachable through links', async () => {
  const local = path.join(dir, 'usr-local-bin');
  const other = path.join(dir, 'other');
  program(local, 'peer');
  program(local, 'docker');
  program(local, 'geth');
  program(other, 'prometheus');
  const env = { PATH: [local, other].join(path.delimiter), HOME: '/root' };
  const made = bareEnvironment(env, path.join(dir, 'scratch'));
  assert.equal(made.hiddenPrograms.sort(), [path.join(local, 'geth'), path.join(local, 'peer')]);
  assert.equal(stillFound(made.env), []);
  assert.equal(stillFound(env).length, 2, 'the check itself sees them where they are');
  const [first, second] = made.env.PATH.split(path.delimiter);
  assert.is.not(first, local, 'the directory holding peer is replaced');
  assert.is(readlinkSync(path.join(first, 'docker')), path.join(local, 'docker'));
  assert.is(second, other, 'a directory with no hidden program is kept as it is');
  assert.is(made.env.HOME, '/root');
  // The service's own lookup no longer finds the program.
  const found = await findFabricBinary('peer', { PATH: made.env.PATH });
  assert.is(found.ok, false);
  assert.ok((await findFabricBinary('peer', { PATH: env.PATH })).ok);
});

test('the settings that point at hand-built programs, images or real servers are cleared, the images named hidden', () => {
  const env = {
    PATH: path.join(dir, 'nothing-here'),
    LNM_FABRIC_BIN: '/opt/fabric/bin',
    LNM_FABRIC_X_BIN: '/opt/fabric-x/bin',
    LNM_GETH_BIN: '/opt/geth',
    LNM_FABRIC_CFG: '/opt/fabric/config',
    LNM_IMAGE_FABRIC_PEER: 'my-peer:2.5',
    BESU_PATH: '/opt/besu',
    VAULT_ADDR: 'http://127.0.0.1:8200',
    LNM_DOCKER_PREFIX: 'kept-',
    LNM_TEST_K8S_SERVER: 'https://10.213.0.1:6443',
    LNM_K8S_STATE: '/tmp/lnm-k8s',
    DATABASE_URL: 'postgres://kept',
  };
  const made = bareEnvironment(env, path.join(dir, 'scratch'));
  for (const k of ['LNM_FABRIC_BIN', 'LNM_FABRIC_X_BIN', 'LNM_GETH_BIN', 'LNM_FABRIC_CFG', 'LNM_IMAGE_FABRIC_PEER', 'BESU_PATH', 'VAULT_ADDR', 'LNM_TEST_K8S_SERVER']) {
    assert.is(made.env[k], undefined, k);
    assert.ok(made.clearedSettings.includes(k), k);
  }
  // A test cluster left up on this machine (test/k8s/cluster.sh writes its test.env to /tmp/lnm-k8s) is not found.
  assert.ok(made.clearedSettings.includes('LNM_K8S_STATE'));
  assert.is(made.env.LNM_K8S_STATE, path.join(dir, 'scratch', 'no-test-cluster'));
  assert.is(made.env.LNM_DOCKER_PREFIX, 'kept-');
  assert.is(made.env.DATABASE_URL, 'postgres://kept');
  assert.is(made.env.PATH, path.join(dir, 'nothing-here'));
  const hidden = made.env.LNM_TEST_HIDDEN_IMAGES.split(',');
  for (const image of ['lnm-fabric-peer:local', 'lnm-fabric-orderer:local', 'lnm-fabric-x-arma:local', 'lnm-fabric-x-committer:local', 'my-peer:2.5']) assert.ok(hidden.includes(image), image);
});

test.run();
