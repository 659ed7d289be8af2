// The one-off pod of the kubernetes engine's runWhileStopped (adapters/engines/kubernetesEngine.ts
// nodeCommandPod), made from a node's StatefulSet pod template: what it keeps (image, env, files,
// claim, securityContext, no service account token, the readiness probe) and what it replaces
// (command, restart policy, labels, init container, ports, deadline).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type * as k8s from '@kubernetes/client-node';
import { nodeCommandPod } from '../../../adapters/engines/kubernetesEngine.ts';

const dir = '/data/nodes/node-7';
const sts: k8s.V1StatefulSet = {
  metadata: { name: 'lnm-node-7', labels: { 'lnm.node': 'node-7', 'lnm.prefix': 'lnm' } },
  spec: {
    replicas: 0,
    serviceName: 'lnm-node-7',
    selector: { matchLabels: { 'lnm.node': 'node-7', 'lnm.prefix': 'lnm' } },
    template: {
      metadata: { labels: { 'lnm.node': 'node-7', 'lnm.prefix': 'lnm' }, annotations: { 'lnm/restartedAt': '2026-11-30T10:00:00Z' } },
      spec: {
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        terminationGracePeriodSeconds: 10,
        securityContext: { runAsUser: 1000, fsGroup: 1000 },
        imagePullSecrets: [{ name: 'pull' }],
        initContainers: [{ name: 'init', image: 'lnm-anvil:local', command: ['seed'] }],
        containers: [
          {
            name: 'node',
            image: 'lnm-fabric-peer:2.5.12',
            imagePullPolicy: 'Never',
            args: ['peer', 'node', 'start'],
            env: [{ name: 'FABRIC_CFG_PATH', value: dir }, { name: 'FABRIC_LOGGING_SPEC', value: 'INFO' }],
            workingDir: dir,
            securityContext: { readOnlyRootFilesystem: true },
            ports: [{ containerPort: 30751, hostPort: 30751, protocol: 'TCP' }],
            readinessProbe: { tcpSocket: { port: 30751 as unknown as k8s.IntOrString }, periodSeconds: 2 },
            livenessProbe: { tcpSocket: { port: 30751 as unknown as k8s.IntOrString } },
            volumeMounts: [{ name: 'data', mountPath: dir }, { name: 'keys', mountPath: `${dir}/tls/server.key`, subPath: 'f0', readOnly: true }],
          },
        ],
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'lnm-node-7-data' } },
          { name: 'keys', secret: { secretName: 'lnm-node-7-keys' } },
          { name: 'config', configMap: { name: 'lnm-node-7-config' } },
        ],
      },
    },
  },
};
const labels = { 'lnm.node': 'node-7', 'lnm.prefix': 'lnm', 'lnm.role': 'node-command' };
const pod = nodeCommandPod(sts, { name: 'lnm-node-7-once', labels, args: ['peer', 'node', 'unjoin', '-c', 'ch1'], env: { FABRIC_LOGGING_SPEC: 'WARNING' }, deadlineSeconds: 90 });
const node = pod.spec!.containers[0]!;

test('kept from the template: image, pull policy and secrets, working dir, mounts, volumes (claim, Secret, ConfigMap), securityContext, no token, the readiness probe', () => {
  const c = sts.spec!.template.spec!.containers[0]!;
  assert.is(pod.spec!.containers.length, 1);
  assert.is(node.name, 'node');
  assert.is(node.image, 'lnm-fabric-peer:2.5.12');
  assert.is(node.imagePullPolicy, 'Never');
  assert.is(node.workingDir, dir);
  assert.equal(node.volumeMounts, c.volumeMounts);
  assert.equal(pod.spec!.volumes, sts.spec!.template.spec!.volumes);
  assert.equal(pod.spec!.securityContext, { runAsUser: 1000, fsGroup: 1000 });
  assert.equal(node.securityContext, { readOnlyRootFilesystem: true });
  assert.equal(pod.spec!.imagePullSecrets, [{ name: 'pull' }]);
  assert.is(pod.spec!.automountServiceAccountToken, false);
  assert.is(pod.spec!.enableServiceLinks, false);
  // Never Ready (the command listens on nothing): the node's Service sends it no client.
  assert.equal(node.readinessProbe, c.readinessProbe);
});

test('replaced: the command is the args (no image entrypoint, no node args), env added over the template\'s, restart Never, the labels given, no init container, ports or liveness probe, a deadline', () => {
  assert.equal(node.command, ['peer', 'node', 'unjoin', '-c', 'ch1']);
  assert.is(node.args, undefined);
  assert.equal(node.env, [{ name: 'FABRIC_CFG_PATH', value: dir }, { name: 'FABRIC_LOGGING_SPEC', value: 'WARNING' }]);
  assert.is(pod.spec!.restartPolicy, 'Never');
  assert.is(pod.spec!.activeDeadlineSeconds, 90);
  assert.is(pod.spec!.terminationGracePeriodSeconds, 0);
  assert.equal(pod.metadata, { name: 'lnm-node-7-once', labels });
  assert.is(pod.spec!.initContainers, undefined);
  assert.is(node.ports, undefined);
  assert.is(node.livenessProbe, undefined);
  // The template itself is left as it was.
  assert.equal(sts.spec!.template.spec!.containers[0]!.args, ['peer', 'node', 'start']);
  assert.is(sts.spec!.template.spec!.initContainers!.length, 1);
});

test('a StatefulSet without a pod template is refused', () => {
  assert.throws(() => nodeCommandPod({ metadata: { name: 'x' } }, { name: 'x-once', labels, args: ['true'], deadlineSeconds: 10 }), /no pod template/);
});

test.run();
