// The arma local config this service writes: the keys fabric-x-orderer 1.0.x reads (its metrics
// port from Operations.ListenPort), paths under the node directory, TLS only among the party's
// roles.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { armaLocalConfig } from '../../../adapters/ledgerx/armaLaunch.ts';
import type { LedgerXRoleNodeCreatedData, LedgerXOrdererRole } from '../../../domain/ledgerx/ledgerxNode.ts';

const role = (r: LedgerXOrdererRole, grpcPort: number, monitoringPort: number): LedgerXRoleNodeCreatedData => ({
  nodeId: 7, name: `g-${r}`, platform: 'LEDGERX', nodeType: `LEDGERX_ORDERER_${r.toUpperCase()}` as LedgerXRoleNodeCreatedData['nodeType'], role: r, organizationId: 1, mspId: 'Org1MSP',
  networkId: null, client: 'fabric-x', engine: 'process', resources: null, at: '2026-01-01T00:00:00.000Z', identityKeyId: 1, tlsKeyId: 2,
  config: { groupId: 3, role: r, externalIp: '127.0.0.1', grpcPort, monitoringPort },
});

test('each role\'s local config sets Operations.ListenPort to its monitoring port and General.ListenPort to its gRPC port', () => {
  for (const r of ['router', 'batcher', 'consenter', 'assembler'] as const) {
    const doc = parse(armaLocalConfig(role(r, 17050, 17150), 2, '/data/nodes/node-7'));
    assert.is(doc.Operations.ListenPort, 17150, r);
    assert.is(doc.General.ListenPort, 17050, r);
    assert.is(doc.PartyID, 2);
    assert.is(doc.General.LocalMSPID, 'Org1MSP');
    assert.is(doc.General.Bootstrap.File, '/data/nodes/node-7/bootstrap.block');
    assert.ok(String(doc.FileStore.Location).startsWith('/data/nodes/node-7/'), 'store inside the node directory, not /var/dec-trust');
    assert.is(doc.General.TLS.Enabled, r === 'batcher' || r === 'consenter', `${r} TLS`);
    assert.is(doc.General.MonitoringListenPort, undefined, 'no pre-1.0 key');
  }
  assert.ok(parse(armaLocalConfig(role('consenter', 1, 2), 1, '/d')).Consensus.WALDir);
  assert.is(parse(armaLocalConfig(role('batcher', 1, 2), 1, '/d')).Batcher.ShardID, 1);
});

test.run();
