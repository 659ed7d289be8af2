// A committer placed on a Kubernetes cluster: its vc and query pods reach its database from the
// cluster, where a loopback address is the pod itself. Such a database (the service's embedded
// PostgreSQL on 127.0.0.1, a databaseUrl at localhost) is a 400 DATABASE_UNREACHABLE_FROM_CLUSTER
// saying what to give instead; an address the pods may reach passes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertDatabaseReachableFromCluster } from '../../../application/ledgerx/ledgerxCommitterCreate.ts';
import { isLoopbackHost } from '../../../domain/ledgerx/ledgerxNode.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

const cluster = { name: 'k8s-a', externalIp: '10.213.0.1' };

test('loopback names and addresses are loopback; other addresses are not', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', 'db.localhost', '::1', '[::1]', '0.0.0.0', '/tmp']) assert.ok(isLoopbackHost(h), h);
  for (const h of ['10.213.0.1', '192.168.1.5', 'db.example.org', 'postgres', '::ffff:10.0.0.1', '128.0.0.1']) assert.not.ok(isLoopbackHost(h), h);
});

test('a database at a loopback address is a 400 DATABASE_UNREACHABLE_FROM_CLUSTER naming config.databaseUrl and what is needed', () => {
  for (const [database, given] of [[{ host: '127.0.0.1', port: 5432 }, false], [{ host: 'localhost', port: 6543 }, true]] as const) {
    let err: unknown;
    try {
      assertDatabaseReachableFromCluster(cluster, database, given);
    } catch (e) {
      err = e;
    }
    assert.instance(err, ValidationError);
    const v = err as ValidationError & { code: string; status: number; details?: { field: string }[] };
    assert.is(v.status, 400);
    assert.is(v.code, 'DATABASE_UNREACHABLE_FROM_CLUSTER');
    assert.match(v.message, `${database.host}:${database.port}`);
    assert.match(v.message, 'k8s-a');
    assert.match(v.message, '10.213.0.1', 'names the address pods reach this machine at');
    assert.match(v.message, given ? 'config.databaseUrl names' : 'DATABASE_URL');
  }
});

test('a database at an address the pods may reach passes', () => {
  assertDatabaseReachableFromCluster(cluster, { host: '10.213.0.1', port: 5432 }, true);
  assertDatabaseReachableFromCluster(cluster, { host: 'db.example.org', port: 5432 }, false);
});

test.run();
