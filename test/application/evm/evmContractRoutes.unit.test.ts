// Which projected events empty the EVM contract-call route cache (application/evm/evmContractRoutes.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { changesContractRoutes } from '../../../application/evm/evmContractRoutes.ts';

test('node, network, contract and key events empty the cache; unrelated events do not', () => {
  for (const [streamId, type] of [
    ['node-7', 'NodeStarted'], ['node-7', 'NodeStopped'], ['node-7', 'NodeConfigChanged'], ['node-7', 'NodeDeleted'], ['node-7', 'NodeDowntime'],
    ['evm-networks', 'NetworkCreated'], ['evm-networks', 'NetworkDeleted'], ['evm-contract-3', 'ContractDeployed'], ['key-9', 'KeyDeleted'],
  ]) assert.ok(changesContractRoutes({ streamId, type }), `${streamId} ${type}`);
  for (const [streamId, type] of [['users', 'UserCreated'], ['system-query-monitor', 'SlowQueryDetected'], ['webhook-1', 'WebhookDelivered']]) {
    assert.not.ok(changesContractRoutes({ streamId, type }), `${streamId} ${type}`);
  }
});

test.run();
