// The Fabric entries of the configuration reach the consortium runtime's environment, from
// variables and from flags (flags win), and stay out of it when unset.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fabricEnv, loadConfig } from '../../bin/config.ts';

test('Fabric binaries, config and images come from variables and flags', () => {
  const config = loadConfig(['--fabric-bin', '/opt/fabric/bin', '--fabric-orderer-image=o:1', '--chaincode-node-image', 'c:1'], { LNM_FABRIC_BIN: '/ignored', LNM_FABRIC_CFG: '/opt/fabric/config', LNM_IMAGE_FABRIC_PEER: 'p:1' });
  assert.equal(fabricEnv(config), { LNM_FABRIC_BIN: '/opt/fabric/bin', LNM_FABRIC_CFG: '/opt/fabric/config', LNM_IMAGE_FABRIC_PEER: 'p:1', LNM_IMAGE_FABRIC_ORDERER: 'o:1', LNM_IMAGE_CHAINCODE_NODE: 'c:1' });
});

test('the Fabric-X programs directory comes from LNM_FABRIC_X_BIN or --fabric-x-bin', () => {
  assert.equal(fabricEnv(loadConfig([], { LNM_FABRIC_X_BIN: '/opt/fabric-x/bin' })), { LNM_FABRIC_X_BIN: '/opt/fabric-x/bin' });
  assert.equal(fabricEnv(loadConfig(['--fabric-x-bin', '/x'], { LNM_FABRIC_X_BIN: '/ignored' })), { LNM_FABRIC_X_BIN: '/x' });
});

test('unset Fabric entries add nothing, so PATH and the image defaults apply', () => {
  assert.equal(fabricEnv(loadConfig([], {})), {});
});

test.run();
