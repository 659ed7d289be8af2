import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { metricsAddressOf, targetGroups } from '../../../adapters/metrics/prometheusTargets.ts';
import { GETH_METRICS_PATH } from '../../../domain/evm/evmClient.ts';

test('a ledgerX role is scraped on its monitoring port; its group node and a role created without one are not', () => {
  assert.is(metricsAddressOf({ platform: 'LEDGERX', client: 'fabric-x', config: { role: 'router', grpcPort: 17050, monitoringPort: 17150 } }), '127.0.0.1:17150');
  assert.is(metricsAddressOf({ platform: 'LEDGERX', client: 'fabric-x', config: { routerPort: 17050, routerMonitoringPort: 17150 } }), null);
  assert.is(metricsAddressOf({ platform: 'LEDGERX', client: 'fabric-x', config: { role: 'router', monitoringPort: 0 } }), null);
  assert.is(metricsAddressOf({ platform: 'CONSORTIUM', client: 'fabric', config: { operationsPort: 9443, listenAddress: '0.0.0.0' } }), '127.0.0.1:9443');
});

test('a geth node is scraped directly on its metrics port at /debug/metrics/prometheus; a besu node at /metrics', () => {
  const geth = { id: 7, name: 'sealer-1', platform: 'EVM', nodeType: 'EVM_FULLNODE', client: 'geth', networkId: 3, metricsAddress: metricsAddressOf({ platform: 'EVM', client: 'geth', config: { metricsPort: 9545, isBootnode: false } }) };
  const besu = { ...geth, id: 8, client: 'besu', metricsAddress: metricsAddressOf({ platform: 'EVM', client: 'besu', config: { metricsPort: 9546, isBootnode: false } }) };
  assert.is(geth.metricsAddress, '127.0.0.1:9545');
  const { direct, exported } = targetGroups([geth, besu], '127.0.0.1:8100');
  assert.is(exported.length, 0);
  assert.is(direct[0].labels.__metrics_path__, GETH_METRICS_PATH);
  assert.is(direct[1].labels.__metrics_path__, undefined);
  assert.is(metricsAddressOf({ platform: 'EVM', client: 'geth', config: { metricsPort: 9545, isBootnode: true } }), null);
});

test.run();
