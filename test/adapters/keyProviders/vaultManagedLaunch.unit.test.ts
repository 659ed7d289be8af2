import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultVaultImage, managedVaultKey, managedVaultLaunchSpec } from '../../../adapters/keyProviders/vaultManagedLaunch.ts';
import { launchSpecIssues } from '../../../domain/nodes/nodeEngine.ts';
import { configPaths, loadServerConfig } from '../../standins/vaultStandinServer.ts';

test('a managed Vault is a real server (no dev mode) on 127.0.0.1:<port> with file storage in its node directory and mlock off (no IPC_LOCK in the container)', () => {
  const spec = managedVaultLaunchSpec({ dataDir: '/srv/lnm', port: 18200, image: defaultVaultImage('1.17') });
  assert.is(spec.nodeKey, managedVaultKey(18200));
  assert.equal(launchSpecIssues(spec, 'docker'), []);
  assert.equal(spec.docker, { image: 'hashicorp/vault:1.17', args: ['server', '-config=/srv/lnm/nodes/vault-18200/vault.json'] });
  assert.equal(spec.ports, [18200]);
  assert.not.ok(spec.docker!.args.some((a) => a.startsWith('-dev')));
  const config = JSON.parse(String(spec.files[0].content));
  assert.equal(config.storage, { file: { path: '/srv/lnm/nodes/vault-18200/data' } });
  assert.equal(config.listener, { tcp: { address: '127.0.0.1:18200', tls_disable: true } });
  assert.is(config.disable_mlock, true);
  assert.is(spec.files[0].secret, undefined, 'the configuration holds no secret');
});

test('the Vault stand-in in server mode accepts the command line and configuration the service writes', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-vault-launch-'));
  try {
    const spec = managedVaultLaunchSpec({ dataDir: dir, port: 18201, image: 'lnm-vault-standin:local' });
    const nodeDir = path.join(dir, 'nodes', spec.nodeKey);
    mkdirSync(nodeDir, { recursive: true });
    writeFileSync(path.join(nodeDir, spec.files[0].path), spec.files[0].content);
    assert.equal(loadServerConfig(configPaths(spec.docker!.args)), { host: '127.0.0.1', port: 18201, storageDir: path.join(nodeDir, 'data') });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
