// The check of a registered Kubernetes cluster (issue 39), run at registration and periodically:
// reachable, its version, its nodes Ready, the namespace there, the storage class there, and a
// SelfSubjectAccessReview per verb the kubernetes engine uses (kubernetesEngine.ts), naming what
// is missing. Nothing here carries the credentials into a message.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as k8s from '@kubernetes/client-node';
import type { NodeHostCheck, NodeHostConnection, NodeHostProbe } from '../../domain/hosts/hostPorts.ts';
import { connectionPemIssues } from './remoteDockerHost.ts';
import { kubeConfigOf, reasonOf, statusOf, withTimeout, type KubernetesClusterConnection } from './kubernetesEngine.ts';

/** What the engine does in the nodes' namespace: the Role of docs/kubernetes.md grants exactly this. */
export const ENGINE_PERMISSIONS: readonly { group: string; resource: string; subresource?: string; verbs: readonly string[] }[] = [
  { group: 'apps', resource: 'statefulsets', verbs: ['get', 'list', 'create', 'update', 'delete'] },
  // create: the helper pod that copies a node's claim for backups and restores (kubernetesVolumeCopy.ts),
  // reached through pods/exec (a WebSocket: get on 1.20, create on current releases).
  { group: '', resource: 'pods', verbs: ['get', 'list', 'create', 'delete'] },
  { group: '', resource: 'pods', subresource: 'log', verbs: ['get'] },
  { group: '', resource: 'pods', subresource: 'exec', verbs: ['get', 'create'] },
  { group: '', resource: 'services', verbs: ['get', 'list', 'create', 'update', 'delete'] },
  { group: '', resource: 'configmaps', verbs: ['get', 'list', 'create', 'update', 'delete'] },
  { group: '', resource: 'secrets', verbs: ['get', 'list', 'create', 'update', 'delete'] },
  { group: '', resource: 'persistentvolumeclaims', verbs: ['get', 'list', 'create', 'update', 'delete'] },
];

export interface KubernetesClusterObservation {
  reachable: boolean;
  /** gitVersion, v1.20.2 */
  version: string | null;
  nodes: { ready: number; total: number } | null;
  /** "create apps/statefulsets", "get pods/log", ... the credentials may not do in the namespace. */
  missingPermissions: string[];
  /** Problems that make the cluster unusable for nodes, each naming its field (namespace, storageClass, credentials, server). */
  problems: { field: string; message: string }[];
  /** Things worth knowing that do not stop nodes from running (cluster-wide reads not granted). */
  warnings: string[];
  reason: string | null;
}

const PROBE_TIMEOUT_MS = 5000;

export async function probeKubernetesCluster(c: KubernetesClusterConnection): Promise<KubernetesClusterObservation> {
  const kc = kubeConfigOf(c);
  const t = <T>(p: Promise<T>) => withTimeout(p, PROBE_TIMEOUT_MS);
  const out: KubernetesClusterObservation = { reachable: false, version: null, nodes: null, missingPermissions: [], problems: [], warnings: [], reason: null };
  try {
    out.version = (await t(kc.makeApiClient(k8s.VersionApi).getCode())).gitVersion ?? null;
  } catch (err) {
    // A token the API server does not accept is refused (401) before even /version answers.
    if (statusOf(err) === 401) {
      out.reachable = true;
      out.reason = `cluster ${c.name} does not accept the credentials (401)`;
      out.problems.push({ field: 'credentials', message: out.reason });
      return out;
    }
    out.reason = `cluster ${c.name} does not answer: ${reasonOf(err, c.server)}`;
    out.problems.push({ field: 'server', message: out.reason });
    return out;
  }
  out.reachable = true;
  const authz = kc.makeApiClient(k8s.AuthorizationV1Api);
  try {
    const reviews = ENGINE_PERMISSIONS.flatMap((p) => p.verbs.map((verb) => ({ ...p, verb })));
    const answers = await Promise.all(
      reviews.map((r) =>
        t(authz.createSelfSubjectAccessReview({ body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { namespace: c.namespace, verb: r.verb, group: r.group, resource: r.resource, ...(r.subresource ? { subresource: r.subresource } : {}) } } } })),
      ),
    );
    reviews.forEach((r, i) => {
      if (!answers[i]!.status?.allowed) out.missingPermissions.push(`${r.verb} ${r.group ? `${r.group}/` : ''}${r.resource}${r.subresource ? `/${r.subresource}` : ''}`);
    });
  } catch (err) {
    // 401: the token or certificate is not accepted at all.
    const reason = statusOf(err) === 401 ? `cluster ${c.name} does not accept the credentials (401)` : `cluster ${c.name} refused the access review: ${reasonOf(err, c.server)}`;
    out.problems.push({ field: 'credentials', message: reason });
    out.reason = reason;
    return out;
  }
  if (out.missingPermissions.length) out.problems.push({ field: 'credentials', message: `the credentials may not, in namespace ${c.namespace}: ${out.missingPermissions.join(', ')}` });

  // The namespace: a dry-run create answers 404 when it does not exist (a list in a missing namespace is merely empty).
  const core = kc.makeApiClient(k8s.CoreV1Api);
  try {
    await t(core.createNamespacedConfigMap({ namespace: c.namespace, dryRun: 'All', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'lnm-probe-' } } }));
  } catch (err) {
    if (statusOf(err) === 404) out.problems.unshift({ field: 'namespace', message: `the namespace ${c.namespace} does not exist on cluster ${c.name}` });
    // RBAC answers before the namespace is looked up: credentials granted nothing there cannot tell a missing namespace.
    else if (statusOf(err) === 403 && out.missingPermissions.length === ENGINE_PERMISSIONS.reduce((n, p) => n + p.verbs.length, 0)) {
      out.problems.unshift({ field: 'namespace', message: `the namespace ${c.namespace} does not exist on cluster ${c.name}, or the credentials may do nothing in it` });
    } else if (statusOf(err) !== 403) out.warnings.push(`the namespace check failed: ${reasonOf(err, c.server)}`);
  }

  try {
    await t(kc.makeApiClient(k8s.StorageV1Api).readStorageClass({ name: c.storageClass }));
  } catch (err) {
    if (statusOf(err) === 404) out.problems.push({ field: 'storageClass', message: `the storage class ${c.storageClass} does not exist on cluster ${c.name}` });
    else out.warnings.push(`the storage class ${c.storageClass} could not be checked: ${reasonOf(err, c.server)}`);
  }

  try {
    const nodes = await t(core.listNode());
    const ready = nodes.items.filter((n) => n.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True')).length;
    out.nodes = { ready, total: nodes.items.length };
    if (ready === 0) out.problems.push({ field: 'server', message: `cluster ${c.name} has no Ready node (${nodes.items.length} in all)` });
  } catch (err) {
    out.warnings.push(`the cluster's nodes could not be listed: ${reasonOf(err, c.server)}`);
  }
  out.reason = out.problems.length ? out.problems.map((p) => p.message).join('; ') : null;
  return out;
}

/** Where Kubernetes mounts a pod's service account token and the cluster's CA. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The pod's service account credentials (in-cluster hosts), read afresh each time: Kubernetes rotates projected tokens. */
export function inClusterCredentials(dir = SERVICE_ACCOUNT_DIR): { token: string; caCertificate: string } {
  let token: string;
  let caCertificate: string;
  try {
    token = readFileSync(path.join(dir, 'token'), 'utf8').trim();
    caCertificate = readFileSync(path.join(dir, 'ca.crt'), 'utf8');
  } catch {
    throw new InClusterCredentialsMissing(`no service account token and CA in ${dir}: the service does not run in a pod of the cluster with a service account token mounted`);
  }
  if (!token || !/-----BEGIN CERTIFICATE-----/.test(caCertificate)) throw new InClusterCredentialsMissing(`the service account token or CA in ${dir} is empty or not a certificate`);
  return { token, caCertificate };
}

export class InClusterCredentialsMissing extends Error {}

/**
 * A kubernetes host's connection (hostPorts.ts) as the engine's: the bearer token is the sealed
 * secret, or, in-cluster, the pod's service account token and CA (`serviceAccountDir`).
 */
export function clusterConnectionOf(c: NodeHostConnection, serviceAccountDir = SERVICE_ACCOUNT_DIR): KubernetesClusterConnection {
  const k = c.kubernetes!;
  // The sealed secret is the bearer token, or the key of the client certificate when one is registered.
  const credentials = k.inCluster
    ? inClusterCredentials(serviceAccountDir)
    : c.clientCertificate ? { clientCertificate: c.clientCertificate, clientKey: c.clientKey, caCertificate: c.caCertificate } : { token: c.clientKey, caCertificate: c.caCertificate };
  return {
    name: c.name ?? 'cluster', server: c.url, ...credentials, namespace: k.namespace, storageClass: k.storageClass, nodeAddress: c.externalIp ?? new URL(c.url).hostname,
    ...(k.volumeSize ? { volumeSize: k.volumeSize } : {}), ...(k.imagePullPolicy ? { imagePullPolicy: k.imagePullPolicy } : {}), ...(k.imagePullSecret ? { imagePullSecret: k.imagePullSecret } : {}),
    ...(k.exposure ? { exposure: k.exposure } : {}), ...(k.loadBalancerAddress ? { loadBalancerAddress: k.loadBalancerAddress } : {}),
    ...(k.loadBalancerTimeoutSeconds ? { loadBalancerTimeoutMs: k.loadBalancerTimeoutSeconds * 1000 } : {}),
  };
}

/**
 * The node host probe for both kinds: a docker host goes to `docker`, a kubernetes host to the
 * cluster check; the cluster is usable (reachable) only when the check found no problem.
 */
export function createHostProbe(docker: NodeHostProbe, serviceAccountDir = SERVICE_ACCOUNT_DIR): NodeHostProbe {
  return {
    async probe(c): Promise<NodeHostCheck> {
      if (c.kind !== 'kubernetes') return docker.probe(c);
      const inCluster = c.kubernetes?.inCluster === true;
      const withCertificate = !inCluster && !!c.clientCertificate;
      // A client certificate and key are parsed, and the key matched to the certificate, before any call (never echoed).
      if (withCertificate) {
        const issues = connectionPemIssues({ ...c, caCertificate: c.caCertificate }).filter((i) => i.field !== 'tls.caCertificate').map((i) => ({ field: i.field.replace(/^tls\./, 'kubernetes.'), message: `kubernetes.${i.field.slice(4)} ${i.message}` }));
        if (issues.length) return { reachable: false, engineVersion: null, runningNodes: null, reason: issues.map((i) => i.message).join('; '), problems: issues };
      }
      let seen: KubernetesClusterObservation;
      try {
        seen = await probeKubernetesCluster(clusterConnectionOf(c, serviceAccountDir));
      } catch (err) {
        if (err instanceof InClusterCredentialsMissing) return { reachable: false, engineVersion: null, runningNodes: null, reason: err.message, problems: [{ field: 'kubernetes.inCluster', message: err.message }] };
        const reason = `the cluster cannot be checked: ${reasonOf(err, c.url)}`;
        return { reachable: false, engineVersion: null, runningNodes: null, reason, problems: [{ field: 'url', message: reason }] };
      }
      // In-cluster, the CA and the token are the pod's: a problem with them names kubernetes.inCluster.
      const fieldOf = (p: { field: string; message: string }) =>
        p.field === 'server'
          ? /TLS handshake|certificate/.test(p.message) ? (inCluster ? 'kubernetes.inCluster' : 'kubernetes.caCertificate') : 'url'
          : p.field === 'credentials' ? (inCluster ? 'kubernetes.inCluster' : withCertificate ? 'kubernetes.clientCertificate' : 'kubernetes.token') : `kubernetes.${p.field}`;
      const problems = seen.problems.map((p) => ({ field: fieldOf(p), message: p.message }));
      // The findings are recorded on the host (its view's status.kubernetes) once the cluster answered.
      const kubernetes = seen.reachable
        ? { version: seen.version, nodes: seen.nodes, missingPermissions: seen.missingPermissions.map((m) => ({ verb: m.slice(0, m.indexOf(' ')), resource: m.slice(m.indexOf(' ') + 1) })) }
        : null;
      return { reachable: seen.reachable && problems.length === 0, engineVersion: seen.version, runningNodes: null, reason: seen.reason, problems, ...(kubernetes ? { kubernetes } : {}) };
    },
  };
}
