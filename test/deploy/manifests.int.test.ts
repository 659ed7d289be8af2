// deploy/'s manifests for running the service on Kubernetes, created with a server-side dry run on
// the test cluster (test/k8s/cluster.sh, Kubernetes 1.20.2): the API server validates every object
// (schemas, the Deployment's probes and Secret references, the Role's rules) without keeping it.
// Not a run of the service there: no image of the service is built here (docs/kubernetes.md).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { kubernetesSkipReason } from '../helpers/kubernetes.ts';
import { requires } from '../helpers/requirements.ts';

const deployDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../deploy');
const skipReason = await kubernetesSkipReason();
const test = suite('deploy/ manifests on a real cluster');
const live = requires(test, 'kubernetes', skipReason);

function adminConfig(): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(process.env.LNM_TEST_K8S_KUBECONFIG ?? `${process.env.LNM_K8S_STATE ?? '/tmp/lnm-k8s'}/admin.kubeconfig`);
  return kc;
}

const objectsOf = (file: string) => (k8s.loadAllYaml(readFileSync(path.join(deployDir, file), 'utf8')) as (k8s.KubernetesObject | null)[]).filter((o): o is k8s.KubernetesObject => o !== null);

test('service.yaml: a Secret, a service account, the engine Role and its binding, a Deployment of 2 replicas with /health probes, a Service', () => {
  const objects = objectsOf('service.yaml');
  assert.equal(objects.map((o) => o.kind), ['Secret', 'ServiceAccount', 'Role', 'RoleBinding', 'Deployment', 'Service']);
  const deployment = objects.find((o) => o.kind === 'Deployment') as k8s.V1Deployment;
  assert.is(deployment.spec?.replicas, 2);
  const container = deployment.spec!.template.spec!.containers[0]!;
  assert.is(container.readinessProbe?.httpGet?.path, '/api/v1/health');
  assert.is(container.livenessProbe?.httpGet?.path, '/api/v1/health');
  const ref = container.env?.find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef;
  assert.equal([ref?.name, ref?.key], ['lnm-service', 'DATABASE_URL']);
  assert.equal(objectsOf('pdb.yaml').map((o) => o.apiVersion), ['policy/v1']);
});

live('every object of service.yaml and pdb-1.20.yaml passes the API server (dry run)', async () => {
  const kc = adminConfig();
  const api = k8s.KubernetesObjectApi.makeApiClient(kc);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'ledger' } } }).catch((err: { code?: number }) => {
    if (err.code !== 409) throw err;
  });
  for (const object of [...objectsOf('service.yaml'), ...objectsOf('pdb-1.20.yaml')]) {
    try {
      await api.create(object, undefined, 'All');
    } catch (err) {
      assert.unreachable(`${object.kind} ${object.metadata?.name} refused: ${(err as Error).message.split('\n').slice(0, 3).join(' ')}`);
    }
  }
  // A dry run keeps nothing.
  const deployments = await kc.makeApiClient(k8s.AppsV1Api).listNamespacedDeployment({ namespace: 'ledger' });
  assert.is(deployments.items.length, 0);
});

test.run();
