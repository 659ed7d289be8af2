import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { metricsAddressOf } from '../../../adapters/metrics/prometheusTargets.ts';

test('a ledgerX role is scraped on its monitoring port; its group node and a role created without one are not', () => {
  assert.is(metricsAddressOf({ platform: 'LEDGERX', client: 'fabric-x', config: { role: 'router', grpcPort: 17050, monitoringPort: 17150 } }), '127.0.0.1:17150');
  assert.is(metricsAddressOf({ platform: 'LEDGERX', client: 'fabric-x', config: { routerPort: 17050, routerMonitoringPort: 17150 } }), null);
  assert.is(metricsAddressOf({ platform: 'LEDGERX', client: 'fabric-x', config: { role: 'router', monitoringPort: 0 } }), null);
  assert.is(metricsAddressOf({ platform: 'CONSORTIUM', client: 'fabric', config: { operationsPort: 9443, listenAddress: '0.0.0.0' } }), '127.0.0.1:9443');
});

test.run();
