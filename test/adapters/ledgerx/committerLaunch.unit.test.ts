// The committer services' configs this service writes (fabric-x-committer 1.0.x): where each
// service listens, which other services it calls and at which address, its database. On this
// machine the services call one another at 127.0.0.1; on a Kubernetes cluster (config.hostId)
// each is a pod, and they call one another at the cluster's node address (their NodePorts), as
// the roles of an orderer group on a cluster do.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { committerConfig, committerLaunchSpec } from '../../../adapters/ledgerx/committerLaunch.ts';
import { LEDGERX_COMMITTER_ROLES, type LedgerXCommitterRole, type LedgerXCommitterRoleNodeCreatedData } from '../../../domain/ledgerx/ledgerxNode.ts';

const groupPorts = { sidecar: 32350, coordinator: 32351, vc: 32352, verifier: 32353, query: 32354 };
const service = (r: LedgerXCommitterRole, placed: { hostId?: number; externalIp: string }): LedgerXCommitterRoleNodeCreatedData => ({
  nodeId: 11, name: `c-${r}`, platform: 'LEDGERX', nodeType: `LEDGERX_COMMITTER_${r.toUpperCase()}` as LedgerXCommitterRoleNodeCreatedData['nodeType'], role: r, organizationId: 1, mspId: 'Org1MSP',
  networkId: null, client: 'fabric-x', engine: placed.hostId ? 'docker' : 'process', resources: null, at: '2026-01-01T00:00:00.000Z',
  config: { groupId: 9, role: r, grpcPort: groupPorts[r], monitoringPort: groupPorts[r] + 100, groupPorts, database: { host: '10.213.0.1', port: 5432, name: 'cdb', user: 'cuser', external: true }, clientKeyId: 4, ...placed },
});
const configOf = (r: LedgerXCommitterRole, placed: { hostId?: number; externalIp: string }) => parse(committerConfig(service(r, placed), '/data/nodes/node-11', { databasePassword: 'pw-secret' }));

test('on this machine the coordinator and the sidecar call the other services at 127.0.0.1', () => {
  const local = { externalIp: '127.0.0.1' };
  const coordinator = configOf('coordinator', local);
  assert.equal(coordinator.verifier.endpoints, ['127.0.0.1:32353']);
  assert.equal(coordinator['validator-committer'].endpoints, ['127.0.0.1:32352']);
  assert.is(configOf('sidecar', local).committer.endpoint, '127.0.0.1:32351');
});

test('on a cluster each service listens on every interface and calls the others at the cluster\'s node address, their NodePorts', () => {
  const onCluster = { hostId: 3, externalIp: '10.213.0.1' };
  for (const r of LEDGERX_COMMITTER_ROLES) {
    const doc = configOf(r, onCluster);
    assert.is(doc.server.endpoint, `0.0.0.0:${groupPorts[r]}`, `${r} listens for its NodePort`);
    assert.is(doc.monitoring.endpoint, `0.0.0.0:${groupPorts[r] + 100}`, `${r} monitoring`);
  }
  const coordinator = configOf('coordinator', onCluster);
  assert.equal(coordinator.verifier.endpoints, ['10.213.0.1:32353']);
  assert.equal(coordinator['validator-committer'].endpoints, ['10.213.0.1:32352']);
  const sidecar = configOf('sidecar', onCluster);
  assert.is(sidecar.committer.endpoint, '10.213.0.1:32351');
  assert.is(sidecar.ledger.path, '/data/nodes/node-11/ledger', 'the ledger on the node directory (the pod\'s claim)');
  assert.is(sidecar.orderer['latest-known-config-block-path'], '/data/nodes/node-11/bootstrap.block');
  for (const r of ['vc', 'query'] as const) {
    const db = configOf(r, onCluster).database;
    assert.equal(db.endpoints, ['10.213.0.1:5432'], `${r} reaches its database at the recorded address`);
    assert.is(db.password, 'pw-secret');
  }
});

test('a service\'s launch on a cluster: the committer image\'s `committer start <service>`, its two ports, the password only in a secret file', () => {
  for (const r of LEDGERX_COMMITTER_ROLES) {
    const spec = committerLaunchSpec(service(r, { hostId: 3, externalIp: '10.213.0.1' }), { block: new Uint8Array([1, 2]), databasePassword: 'pw-secret', clientMsp: [{ path: 'msp/keystore/priv_sk', content: 'KEY', secret: true }] }, { dataDir: '/data', committer: 'committer', nodeKey: 'node-11', displayName: `ledgerX ${r} c-${r}` });
    assert.is(spec.docker!.image, 'fabric-x-committer');
    assert.equal(spec.docker!.args, ['committer', 'start', r, '--config=/data/nodes/node-11/committer.yaml']);
    assert.equal(spec.ports, [groupPorts[r], groupPorts[r] + 100], `${r}: the gRPC port first (the pod's readiness probe)`);
    const withPassword = spec.files.filter((f) => String(f.content).includes('pw-secret'));
    assert.ok(withPassword.every((f) => f.secret), `${r}: the database password only in a Secret's file`);
    if (r === 'sidecar') assert.ok(spec.files.some((f) => f.path === 'bootstrap.block') && spec.files.some((f) => f.path === 'msp/keystore/priv_sk' && f.secret));
  }
});

test.run();
