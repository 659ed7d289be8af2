// Which projected events empty the consortium route cache (application/consortium/consortiumRoutes.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { changesRoutes } from '../../../application/consortium/consortiumRoutes.ts';

test('events that change a route empty the cache; a chaincode invocation and unrelated events do not', () => {
  for (const [streamId, type] of [
    ['node-7', 'NodeDowntime'], ['node-7', 'NodeRecovered'], ['node-7', 'NodeStopped'], ['node-7', 'NodeConfigChanged'], ['node-7', 'NodeDeleted'],
    ['consortium-networks', 'NetworkNodeJoined'], ['consortium-networks', 'AnchorPeersUpdated'], ['consortium-networks', 'NetworkDeleted'],
    ['chaincode-3', 'ChaincodeDeployed'], ['chaincode-3', 'ChaincodeUpgraded'], ['chaincode-3', 'ChaincodeServerAssigned'],
    ['organization-2', 'OrganizationUpdated'], ['key-9', 'KeyRotated'], ['key-9', 'CertificateIssued'],
  ]) assert.ok(changesRoutes({ streamId, type }), `${streamId} ${type}`);
  for (const [streamId, type] of [['chaincode-3-invocations', 'ChaincodeInvoked'], ['users', 'UserCreated'], ['system-query-monitor', 'SlowQueryDetected'], ['webhook-1', 'WebhookDelivered']]) {
    assert.not.ok(changesRoutes({ streamId, type }), `${streamId} ${type}`);
  }
});

test.run();
