import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isLoopback } from '../../http/serviceMetrics.ts';

test('only loopback addresses count as loopback (IPv4, IPv6 and IPv4-mapped)', () => {
  for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) assert.ok(isLoopback(a), a);
  for (const a of ['10.0.0.1', '::ffff:10.0.0.1', '0.0.0.0', '::', '128.0.0.1', undefined, '']) assert.not.ok(isLoopback(a), String(a));
});

test.run();
