// A Kubernetes cluster's credentials and exposure settings, without a cluster (issue 39 item 1):
// - a client certificate and key are checked before any call: a PEM that does not parse, or a
//   key that is not the certificate's, is a problem naming kubernetes.clientCertificate or
//   kubernetes.clientKey, and the key is in no message;
// - the engine's connection carries the certificate and key (not the key as a bearer token);
// - loadBalancerAddress/loadBalancerTimeoutSeconds only with LoadBalancer; hostPort takes any port.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clusterConnectionOf, createHostProbe } from '../../../adapters/engines/kubernetesCluster.ts';
import type { NodeHostConnection } from '../../../domain/hosts/hostPorts.ts';
import { clusterPortRange, NODE_PORT_RANGE } from '../../../domain/hosts/nodeHosts.ts';
import { exposureSettingIssues } from '../../../application/hosts/hostRegister.ts';
import { selfSignedCertificate } from '../../helpers/mail.ts';

const one = selfSignedCertificate('127.0.0.1');
const other = selfSignedCertificate('127.0.0.1');
const docker = { probe: async () => { throw new Error('not a docker host'); } };
// Nothing listens on port 1: a check that got past the PEMs would name `url`.
const connection = (over: Partial<NodeHostConnection>): NodeHostConnection => ({
  name: 'c', kind: 'kubernetes', url: 'https://127.0.0.1:1', externalIp: '127.0.0.1', caCertificate: one.cert, clientCertificate: one.cert, clientKey: one.key,
  kubernetes: { namespace: 'ns', storageClass: 'local' }, ...over,
});

test('a client certificate that does not parse, a key that does not parse or does not fit: named, never echoed', async () => {
  const cases: Array<[Partial<NodeHostConnection>, string, RegExp]> = [
    [{ clientCertificate: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' }, 'kubernetes.clientCertificate', /clientCertificate is not a PEM certificate/],
    [{ clientKey: '-----BEGIN PRIVATE KEY-----\nnot-a-key\n-----END PRIVATE KEY-----\n' }, 'kubernetes.clientKey', /clientKey is not a PEM private key/],
    [{ clientKey: other.key }, 'kubernetes.clientKey', /clientKey does not belong to the client certificate/],
  ];
  for (const [over, field, reason] of cases) {
    const seen = await createHostProbe(docker).probe(connection(over));
    assert.is(seen.reachable, false);
    assert.equal(seen.problems?.map((p) => p.field), [field], JSON.stringify(seen.problems));
    assert.match(seen.reason ?? '', reason);
    const text = JSON.stringify(seen);
    for (const key of [one.key, other.key]) assert.not.ok(text.includes(key.split('\n')[1]!), 'no key material in the check');
  }
  // Good PEMs pass on to the cluster, here nothing listening: the URL is named.
  const good = await createHostProbe(docker).probe(connection({}));
  assert.equal(good.problems?.map((p) => p.field), ['url'], JSON.stringify(good.problems));
});

test('the engine connects with the certificate and key, not with the key as a bearer token', () => {
  const c = clusterConnectionOf(connection({}));
  assert.is(c.token, undefined);
  assert.is(c.clientCertificate, one.cert);
  assert.is(c.clientKey, one.key);
  const withToken = clusterConnectionOf(connection({ clientCertificate: '', clientKey: 'a-token' }));
  assert.is(withToken.token, 'a-token');
  assert.is(withToken.clientCertificate, undefined);
});

test('exposure settings: the balancer\'s address and timeout only with LoadBalancer; hostPort takes any port', () => {
  assert.equal(exposureSettingIssues({ exposure: 'LoadBalancer', loadBalancerAddress: '10.0.0.9', loadBalancerTimeoutSeconds: 30 }), []);
  assert.equal(exposureSettingIssues({ loadBalancerAddress: '10.0.0.9' }).map((i) => i.field), ['kubernetes.loadBalancerAddress']);
  assert.equal(exposureSettingIssues({ exposure: 'hostPort', loadBalancerTimeoutSeconds: 30 }).map((i) => i.field), ['kubernetes.loadBalancerTimeoutSeconds']);
  assert.equal(clusterPortRange({}), NODE_PORT_RANGE);
  assert.equal(clusterPortRange({ exposure: 'LoadBalancer' }), NODE_PORT_RANGE);
  assert.is(clusterPortRange({ exposure: 'hostPort' }), null);
  const lb = clusterConnectionOf(connection({ kubernetes: { namespace: 'ns', storageClass: 'local', exposure: 'LoadBalancer', loadBalancerAddress: '10.0.0.9', loadBalancerTimeoutSeconds: 30 } }));
  assert.is(lb.exposure, 'LoadBalancer');
  assert.is(lb.loadBalancerAddress, '10.0.0.9');
  assert.is(lb.loadBalancerTimeoutMs, 30_000);
});

test.run();
