// In-cluster credentials of a kubernetes host (issue 39): the host check with `inCluster` reads
// the token and the CA from a pod's service account directory (here a directory written as
// Kubernetes mounts it, holding the test cluster's engine token and CA), at each check. Outside a
// pod (no such directory) the check says so, naming kubernetes.inCluster, without a network call.
// The same from inside a real pod: test/e2e/k8s/serviceOnCluster.e2e.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHostProbe } from '../../../adapters/engines/kubernetesCluster.ts';
import type { NodeHostConnection, NodeHostProbe } from '../../../domain/hosts/hostPorts.ts';
import { kubernetesSkipReason, testCluster } from '../../helpers/kubernetes.ts';
import { requires } from '../../helpers/requirements.ts';

const skipReason = await kubernetesSkipReason();
const cluster = testCluster();
const test = suite('kubernetes hosts: in-cluster credentials');
const live = requires(test, 'kubernetes', skipReason);
const noDocker: NodeHostProbe = { probe: async () => assert.unreachable('not a docker host') as never };

const host = (over: Partial<NodeHostConnection['kubernetes']> = {}): NodeHostConnection => ({
  name: 'in-cluster', kind: 'kubernetes', url: cluster?.connection.server ?? 'https://10.255.255.1:6443', externalIp: '10.255.255.1',
  caCertificate: '', clientCertificate: '', clientKey: '',
  kubernetes: { namespace: cluster?.connection.namespace ?? 'lnm-test', storageClass: cluster?.connection.storageClass ?? 'lnm-local', inCluster: true, ...over },
});

function serviceAccountDir(token: string, ca: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-sa-'));
  writeFileSync(path.join(dir, 'token'), token);
  writeFileSync(path.join(dir, 'ca.crt'), ca);
  return dir;
}

test('outside a pod: the check names kubernetes.inCluster and asks nothing of any server', async () => {
  const missing = path.join(tmpdir(), `lnm-no-sa-${process.pid}`);
  const check = await createHostProbe(noDocker, missing).probe(host());
  assert.is(check.reachable, false);
  assert.equal(check.problems?.map((p) => p.field), ['kubernetes.inCluster']);
  assert.match(check.reason ?? '', /does not run in a pod/);
});

live('the pod\'s token and CA: reachable, its version, every permission granted; a token without the Role names kubernetes.inCluster, never the token', async () => {
  const c = cluster!;
  const dir = serviceAccountDir(`${c.connection.token}\n`, c.connection.caCertificate);
  try {
    const probe = createHostProbe(noDocker, dir);
    const ok = await probe.probe(host());
    assert.is(ok.reachable, true, ok.reason ?? '');
    assert.match(ok.engineVersion ?? '', /^v1\.\d+/);
    assert.equal(ok.problems, []);
    // Read at each check: the token rotated to one without the Role is seen at the next.
    writeFileSync(path.join(dir, 'token'), c.tokenWithoutRole);
    const refused = await probe.probe(host());
    assert.is(refused.reachable, false);
    assert.ok(refused.problems?.some((p) => p.field === 'kubernetes.inCluster' && /create apps\/statefulsets/.test(p.message)), JSON.stringify(refused.problems));
    assert.not.ok(JSON.stringify(refused).includes(c.tokenWithoutRole));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
