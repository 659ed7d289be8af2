// Which NodePorts an API server's 422 names as taken (adapters/engines/kubernetesEngine.ts
// allocatedPorts): the ports a node's create moves up or refuses (application/hosts/clusterNodePorts.ts).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allocatedPorts } from '../../../adapters/engines/kubernetesEngine.ts';

test('one port named by the 422 (as kube-apiserver 1.20 words it)', () => {
  const reason = 'the API server answered 422: Service "lnm-b-node-1" is invalid: spec.ports[0].nodePort: Invalid value: 31545: provided port is already allocated';
  assert.equal(allocatedPorts(reason, [31545, 30303]), [31545]);
});

test('several ports named: each of the asked ones, once', () => {
  const reason = 'Service "x" is invalid: [spec.ports[1].nodePort: Invalid value: 31052: provided port is already allocated, spec.ports[2].nodePort: Invalid value: 31444: provided port is already allocated, spec.ports[3].nodePort: Invalid value: 31052: provided port is already allocated]';
  assert.equal(allocatedPorts(reason, [31051, 31052, 31444]), [31052, 31444]);
});

test('a port not asked for, or no port named: all the asked ones', () => {
  assert.equal(allocatedPorts('spec.ports[0].nodePort: Invalid value: 30001: provided port is already allocated', [31545]), [31545]);
  assert.equal(allocatedPorts('provided port is already allocated', [31545, 30303]), [31545, 30303]);
});

test.run();
