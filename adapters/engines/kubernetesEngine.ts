// The kubernetes engine (issue 39): each node is placed on a registered Kubernetes cluster and
// scheduled there by the cluster itself, through @kubernetes/client-node (apps/v1 and core/v1 only,
// served alike by 1.20 and current releases; no kubectl). Per node, in the cluster's namespace,
// all named <prefix><nodeKey> (made a DNS label) and labelled lnm.node=<nodeKey>, lnm.prefix=<prefix>,
// lnm.deployment=<the deployment id> (one per database: another deployment sharing the namespace and
// prefix is told apart by it; its objects are never swept, adopted or changed, see nodeObjects):
//   - a StatefulSet of one replica: the node's container, its directory at the same path as the
//     other engines give it ({nodeDir}), a readiness probe on its first port;
//   - a PersistentVolumeClaim <name>-data (the cluster's storage class) mounted at that directory:
//     the ledger outlives the pod, a stop (scale to 0) and a delete unless asked otherwise;
//   - a Secret <name>-keys with the spec's secret files and a ConfigMap <name>-config with the
//     others, each file mounted at its path in the directory (written afresh at every start);
//   - a Service <name> of type NodePort: node port = the node's port, reached by clients at the
//     cluster's node address (so the ports must lie in the cluster's NodePort range); made when
//     the node is recorded (reservePorts), so that another deployment sharing the cluster cannot
//     take its NodePorts before its first start.
// start scales to 1 and waits for the pod to be Ready and the port to answer at the node address;
// stop scales to 0 and waits for the pod to go; a pod Kubernetes restarts is the same node (no new
// start). A start that fails on a node the cluster did not have before removes what it made.
// Credentials (a bearer token or a client key) are only handed to the client; no message built
// here carries them.
import { createHash } from 'node:crypto';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import * as k8s from '@kubernetes/client-node';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import {
  failureLine,
  maskSecrets,
  NodeStartFailedError,
  redactLogLine,
  type EngineAvailability,
  type LogFollower,
  type NodeEngine,
  type NodeLaunchSpec,
  type NodeStarted,
  type NodeStatus,
} from '../../domain/nodes/nodeEngine.ts';
import { NODE_PORT_RANGE } from '../../domain/hosts/nodeHosts.ts';
import type { ClusterLabelledObject, ClusterOrphanObject as OrphanObject } from '../../domain/hosts/hostPorts.ts';
import { keyedMutex } from './keyedMutex.ts';
import { assertLaunchSpec, envWithNodeDir, nodeDirectory, withNodeDir, writeNodeFiles } from './nodeDirectory.ts';
import { awaitStartup } from './hostPorts.ts';
import { lineSink } from './dockerLogs.ts';
import { HOSTED_RESTORE_DIR } from './dockerEngine.ts';
import { emptyDir, frameWriter, HELPER_SCRIPT, READ_SCRIPT, WRITE_SCRIPT, writeFailure, writeFrames, writtenAsSent, type CopyCounts } from './kubernetesVolumeCopy.ts';

/** How to reach a registered cluster and where its nodes go. */
export interface KubernetesClusterConnection {
  name: string;
  /** The API server, https://host:port. */
  server: string;
  /** PEM of the CA that signed the API server's certificate. */
  caCertificate: string;
  /** A bearer token, or a client certificate and key (PEM). Never echoed. */
  token?: string;
  clientCertificate?: string;
  clientKey?: string;
  namespace: string;
  /** The storage class of the nodes' claims (pre-created volumes of that class serve as well). */
  storageClass: string;
  /** Size of each node's claim; default 1Gi. */
  volumeSize?: string;
  /** The address peers and clients use to reach the node ports (a node's IP or a balancer's). */
  nodeAddress: string;
  /**
   * How the node's ports are exposed (default NodePort): a Service of type NodePort (node port =
   * the node's port, at nodeAddress), of type LoadBalancer (the same node ports; clients at
   * loadBalancerAddress, else at the Service's status.loadBalancer.ingress, waited for at start),
   * or hostPort (the container ports bound on the cluster node the pod runs on, at nodeAddress;
   * the Service is then a ClusterIP one).
   */
  exposure?: 'NodePort' | 'LoadBalancer' | 'hostPort';
  /** LoadBalancer: the address clients use, given by the operator (no wait for the ingress). */
  loadBalancerAddress?: string;
  /** LoadBalancer: how long a start waits for the Service's ingress; default 120 s. */
  loadBalancerTimeoutMs?: number;
  /** Default Never: images are loaded into the cluster's nodes, as no registry is assumed. */
  imagePullPolicy?: 'Never' | 'IfNotPresent' | 'Always';
  imagePullSecret?: string;
}

export interface KubernetesEngineOptions {
  cluster: KubernetesClusterConnection;
  /** Where the node directory is as the node sees it: <dataDir>/nodes/<nodeKey>, as in the other engines. */
  dataDir: string;
  /** The deployment's prefix (LNM_DOCKER_PREFIX, default lnm-): object names and the lnm.prefix label. */
  namePrefix?: string;
  /**
   * The deployment's id (adapters/postgres/deploymentIdentity.ts): the lnm.deployment label of every
   * object made. Without it (tools and tests that drive the engine alone) no object is labelled
   * with one and removeOrphans removes nothing.
   */
  deploymentId?: string;
  /** Software name -> image reference (nodeImages.ts), as the docker engine maps spec.docker.image. */
  images?: Record<string, string>;
  readyTimeoutMs?: number;
  /** Time allowed to each API call. */
  requestTimeoutMs?: number;
  /**
   * A claim copy (backup, restore) that moves no data for this long fails; default 120 s. The
   * helper pod ends itself 15 s after that without a copy running in it (HELPER_SCRIPT).
   */
  copyStallMs?: number;
}

export interface KubernetesNodeEngine extends NodeEngine {
  /**
   * Makes the node's Service ahead of its first start (kept when there) and returns its cluster
   * IP: an address other pods reach the node at that must be known before the node runs (the
   * connection.json of a chaincode server's package). A NodePort already taken on the cluster
   * (by another deployment) is a NodeStartFailedError 'port-in-use'. start() reuses the Service;
   * remove() deletes it.
   */
  expose(nodeKey: string, ports: number[]): Promise<{ clusterIp: string; nodeAddress: string }>;
  /**
   * Takes the NodePorts of a node not yet recorded: makes its Service (never one already there:
   * node ids are not reused, so a Service of that name is another deployment's) before the config
   * that names the ports is written. Ports the cluster gave to another Service (any deployment,
   * any namespace) are a NodeStartFailedError 'port-in-use' whose `ports` are the taken ones.
   */
  reservePorts(nodeKey: string, ports: number[]): Promise<void>;
  /**
   * Reads only: refuses (NodeStartFailedError 'already-running', 409, naming the object and the other
   * deployment) a node one of whose five objects carries another deployment's id, as start() would
   * before making anything; `what` names the operation asked (start, restart).
   */
  assertNotOthers(nodeKey: string, what: string): Promise<void>;
  /** The names of the objects the engine makes for `nodeKey`. */
  objectNames(nodeKey: string): { statefulSet: string; service: string; claim: string; secret: string; configMap: string };
  /**
   * Copies the files of the node's claim into `intoDir` (backups), through a short-lived helper
   * pod of the service's image mounting the claim read-only (kubernetesVolumeCopy.ts), whether the
   * node runs or is stopped. Regular files and directories; anything else is counted in
   * `skipped`. null when the node has no claim on the cluster (never started, or removed).
   */
  copyNodeDataOut(nodeKey: string, intoDir: string, opts?: { sub?: string }): Promise<CopyCounts | null>;
  /**
   * Writes the files of `fromDir` here into the directory `sub` of the stopped node's claim
   * (emptied first, made when missing; the rest of the claim is left as it is), through a helper
   * pod mounting the claim read-write: a consensus migration's restore of an orderer's data
   * directory. Only while the node's StatefulSet is at 0 replicas and its pod gone (ConflictError
   * otherwise, nothing written); the number of files written, checked against those sent.
   */
  copyNodeDataIn(nodeKey: string, fromDir: string, opts: { sub: string }): Promise<{ files: number }>;
  /**
   * Removes what this deployment made for a node that was never recorded (a server killed between
   * reservePorts/expose and the node's record): the Services, StatefulSets, Secrets and ConfigMaps
   * of the namespace labelled lnm.prefix=<this prefix> and lnm.deployment=<this deployment's id>
   * (objects of another deployment, or made before the label, are never taken) whose lnm.node
   * `recorded` answers false for,
   * made more than `olderThanMs` ago (a create in flight on another replica is younger). Claims
   * are never touched (a kept claim holds a ledger). Returns what it removed and, in words, what
   * it could not list or remove (tried again at the next sweep); `recorded` failing stops it.
   */
  removeOrphans(recorded: (nodeKey: string) => Promise<boolean>, olderThanMs: number): Promise<{ removed: OrphanObject[]; failed: string[] }>;
  /**
   * Labels with this deployment's id the StatefulSets, Services, Secrets, ConfigMaps and claims of
   * the namespace labelled lnm.prefix=<this prefix> that carry no lnm.deployment label at all
   * (made before it) and whose lnm.node `recorded` answers true for: each replaced with its labels
   * only changed, as listed (resourceVersion and uid: an object changed or made anew since is left
   * for the next check), its spec untouched (a StatefulSet's pod is not restarted). An object with
   * another deployment's id is never listed. Without a deployment id nothing is labelled. Returns
   * what it labelled and, in words, what it could not list or label; `recorded` failing stops it.
   */
  labelUnlabelled(recorded: (nodeKey: string) => Promise<boolean>): Promise<{ labelled: ClusterLabelledObject[]; deployment: string | null; failed: string[] }>;
}


/** A kubeconfig of one cluster and one user, from a registered connection. */
export function kubeConfigOf(c: KubernetesClusterConnection): k8s.KubeConfig {
  const kc = new k8s.KubeConfig();
  const user: Record<string, string> = { name: 'lnm' };
  if (c.token) user.token = c.token;
  else if (c.clientCertificate && c.clientKey) {
    user.certData = Buffer.from(c.clientCertificate).toString('base64');
    user.keyData = Buffer.from(c.clientKey).toString('base64');
  }
  kc.loadFromOptions({
    clusters: [{ name: 'cluster', server: c.server, caData: Buffer.from(c.caCertificate).toString('base64'), skipTLSVerify: false }],
    users: [user],
    contexts: [{ name: 'lnm', cluster: 'cluster', user: 'lnm', namespace: c.namespace }],
    currentContext: 'lnm',
  });
  return kc;
}

/** The HTTP status of a failed API call, or undefined when the call never got an answer. */
export function statusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'number' ? code : undefined;
}

/** Why an API call failed, in words, without anything of the request (never the credentials). */
export function reasonOf(err: unknown, server: string): string {
  const e = err as { code?: unknown; body?: unknown; message?: string; cause?: { code?: string; message?: string } };
  if (typeof e?.code === 'number') {
    let message = '';
    try {
      const body = typeof e.body === 'string' ? JSON.parse(e.body) : e.body;
      message = (body as { message?: string })?.message ?? '';
    } catch {
      message = '';
    }
    return `the API server answered ${e.code}${message ? `: ${maskSecrets(message)}` : ''}`;
  }
  const code = e?.cause?.code ?? (e as { code?: string })?.code ?? '';
  if (code === 'ECONNREFUSED') return `nothing listens at ${server} (connection refused)`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `${server} cannot be reached (${code})`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host name of ${server} does not resolve`;
  if (code === 'TIMEOUT' || e?.message === 'timeout') return `${server} did not answer in time`;
  const text = `${e?.message ?? ''} ${e?.cause?.message ?? ''}`;
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(String(code)) || /certificate|ssl|tls/i.test(text)) {
    return `the TLS handshake with ${server} failed: ${(e?.cause?.message ?? e?.message ?? String(code)).split('\n')[0]} (check the CA certificate)`;
  }
  return `${server} did not answer as a Kubernetes API server: ${maskSecrets((e?.cause?.message ?? e?.message ?? String(err)).split('\n')[0])}`;
}

export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })), ms);
      timer.unref();
    }),
  ]);
}

/** A DNS label (Service names are): lowercase letters, digits and "-", starting with a letter, at most `max`. */
export function dnsLabel(name: string, max = 52): string {
  let label = name.toLowerCase().replace(/[^a-z0-9-]/g, '-').replace(/^[^a-z]+/, '').replace(/-+$/, '');
  if (!label) label = 'n';
  if (label.length > max || label !== name) {
    // Distinct keys that map to one label (Node_1, node-1) keep distinct names.
    const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
    label = `${label.slice(0, max - 9).replace(/-+$/, '')}-${hash}`;
  }
  return label;
}

/**
 * The NodePorts an API server's 422 names as taken ("spec.ports[0].nodePort: Invalid value: 31545:
 * provided port is already allocated"), among `asked`; all of `asked` when it names none.
 */
export function allocatedPorts(reason: string, asked: number[]): number[] {
  const named = [...reason.matchAll(/Invalid value: (\d+): provided port is already allocated/gi)].map((m) => Number(m[1])).filter((p) => asked.includes(p));
  return named.length ? [...new Set(named)] : asked;
}

/** The label of the deployment that made an object (lnm.deployment); absent on objects made before it. */
export const DEPLOYMENT_LABEL = 'lnm.deployment';

/**
 * The deployment another than `deploymentId` whose label an object carries, if any: such an object
 * is never adopted, changed, swept or deleted. An object without the label (made before it
 * existed) is nobody else's by this test: this deployment labels its recorded nodes' objects at
 * the next cluster check (labelUnlabelled) or their node's next start, whichever comes first.
 */
export function otherDeployment(meta: { labels?: Record<string, string> } | undefined, deploymentId: string | undefined): string | undefined {
  const theirs = meta?.labels?.[DEPLOYMENT_LABEL];
  return deploymentId && theirs && theirs !== deploymentId ? theirs : undefined;
}

/** The label selector of this prefix's node objects made before the deployment id (no lnm.deployment label at all). */
export function unlabelledSelector(prefixLabel: string): string {
  return `lnm.prefix=${prefixLabel},!${DEPLOYMENT_LABEL},lnm.node`;
}

/**
 * The label selectors of the orphan sweep: this prefix's node objects and ended helper pods made
 * by this deployment only (null without a deployment id: nothing is judged then).
 */
export function orphanSelectors(prefixLabel: string, deploymentId: string | undefined): { objects: string; helpers: string } | null {
  if (!deploymentId) return null;
  return {
    objects: `lnm.prefix=${prefixLabel},${DEPLOYMENT_LABEL}=${deploymentId},lnm.node`,
    helpers: `lnm.prefix=${prefixLabel},${DEPLOYMENT_LABEL}=${deploymentId},lnm.role in (volume-copy,node-command)`,
  };
}

/**
 * The one-off pod of runWhileStopped, made from the node's StatefulSet's own pod template: kept are
 * the image, env (with `env` added over it), working directory, volume mounts and volumes (the
 * claim, the Secret and ConfigMap of its files), securityContext (pod and container), pull policy
 * and secrets, no service account token and the readiness probe (the command listens on nothing,
 * so the pod is never Ready and the node's Service never sends it a client). Replaced: the command
 * (the image's entrypoint and the node's args give way to `args`), restartPolicy Never, the labels
 * (`labels`), no init container (it prepared a first start), no ports (a hostPort is not taken),
 * no liveness or startup probe, and an activeDeadlineSeconds after which the cluster ends it.
 */
export function nodeCommandPod(sts: k8s.V1StatefulSet, o: { name: string; labels: Record<string, string>; args: string[]; env?: Record<string, string>; deadlineSeconds: number }): k8s.V1Pod {
  const template = sts.spec?.template?.spec;
  const node = template?.containers?.find((x) => x.name === 'node') ?? template?.containers?.[0];
  if (!template || !node) throw new Error(`the StatefulSet ${sts.metadata?.name ?? ''} has no pod template with the node's container`);
  const added = o.env ?? {};
  const env = [...(node.env ?? []).filter((e) => !Object.hasOwn(added, e.name)), ...Object.entries(added).map(([name, value]) => ({ name, value }))];
  const { initContainers: _init, containers: _containers, restartPolicy: _restart, activeDeadlineSeconds: _deadline, ...podSpec } = template;
  const { args: _args, command: _command, ports: _ports, livenessProbe: _live, startupProbe: _startup, lifecycle: _lifecycle, ...container } = node;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: o.name, labels: o.labels },
    spec: { ...podSpec, restartPolicy: 'Never', terminationGracePeriodSeconds: 0, activeDeadlineSeconds: o.deadlineSeconds, containers: [{ ...container, command: [...o.args], env }] },
  };
}

const isNotFound = (err: unknown) => statusOf(err) === 404;

/**
 * The order a node's objects made before the deployment id are labelled in (by the cluster check,
 * labelUnlabelled): the StatefulSet first (or, without one, a kept claim), the one object whose
 * labelling decides which deployment a node key both record goes to.
 */
export const LABEL_ORDER = ['StatefulSet', 'PersistentVolumeClaim', 'Service', 'Secret', 'ConfigMap'] as const;

/** How long the reads of the API's check before a start (assertNotOthers) serve that start instead of reading again. */
export const CHECK_REUSE_MS = 5_000;
/** The node's five objects as one read found them (absent: undefined). */
interface NodeObjects { statefulSet?: k8s.V1StatefulSet; service?: k8s.V1Service; secret?: k8s.V1Secret; configMap?: k8s.V1ConfigMap; claim?: k8s.V1PersistentVolumeClaim }
/** A start from the check's reads that met an object changed since (a 409): it goes again from fresh reads. */
class StaleReads extends Error {}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createKubernetesEngine(options: KubernetesEngineOptions): KubernetesNodeEngine {
  const c = options.cluster;
  const ns = c.namespace;
  const kc = kubeConfigOf(c);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const prefix = options.namePrefix ?? 'lnm-';
  const prefixLabel = prefix.replace(/[^A-Za-z0-9]+$/, '') || 'lnm';
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000;
  const callMs = options.requestTimeoutMs ?? 15_000;
  const serial = keyedMutex();
  const exposure = c.exposure ?? 'NodePort';
  const call = <T>(p: Promise<T>) => withTimeout(p, callMs);

  const names = (nodeKey: string) => {
    const base = dnsLabel(`${prefix}${nodeKey}`);
    return { statefulSet: base, service: base, claim: `${base}-data`, secret: `${base}-keys`, configMap: `${base}-config` };
  };
  const deploymentId = options.deploymentId;
  const labels = (nodeKey: string): Record<string, string> => ({
    'lnm.node': nodeKey,
    'lnm.prefix': prefixLabel,
    ...(deploymentId ? { [DEPLOYMENT_LABEL]: deploymentId } : {}),
    'app.kubernetes.io/managed-by': 'ledger-network-manager',
  });
  const dirOf = (nodeKey: string) => nodeDirectory(options.dataDir, nodeKey);
  // This deployment's object of the node: its node and prefix labels, and not another deployment's
  // id (an object made before the label has none, and is taken as ours: labelled at the next
  // cluster check, labelUnlabelled, or its node's next start).
  const ours = (meta: k8s.V1ObjectMeta | undefined, nodeKey: string) => meta?.labels?.['lnm.node'] === nodeKey && meta?.labels?.['lnm.prefix'] === prefixLabel && !otherDeployment(meta, deploymentId);

  async function read<T>(p: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call(p());
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
  async function gone(p: () => Promise<unknown>): Promise<void> {
    try {
      await call(p());
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  const statefulSet = (nodeKey: string) => read(() => apps.readNamespacedStatefulSet({ name: names(nodeKey).statefulSet, namespace: ns }));

  /** The node's StatefulSet when this deployment made it; another's is never scaled or deleted. */
  async function ownStatefulSet(nodeKey: string): Promise<k8s.V1StatefulSet | undefined> {
    const sts = await statefulSet(nodeKey);
    return sts && ours(sts.metadata, nodeKey) ? sts : undefined;
  }

  async function podOf(nodeKey: string): Promise<k8s.V1Pod | undefined> {
    return read(() => core.readNamespacedPod({ name: `${names(nodeKey).statefulSet}-0`, namespace: ns }));
  }

  /**
   * The node's StatefulSet, Service and claim as the cluster has them (read at once, with its
   * Secret and ConfigMap), refusing a node whose names are taken by another deployment (same
   * namespace and prefix, another database: its node ids, hence names, overlap ours): the first of
   * the five carrying another deployment's id is a NodeStartFailedError 'already-running' (409)
   * naming the object and that deployment, before anything is made or changed. `what` says what
   * was asked (create, start, expose). The callers go on from these reads.
   */
  async function nodeObjects(nodeKey: string, what: string): Promise<NodeObjects> {
    const n = names(nodeKey);
    const [statefulSet, service, secret, configMap, claim] = await Promise.all([
      read(() => apps.readNamespacedStatefulSet({ name: n.statefulSet, namespace: ns })),
      read(() => core.readNamespacedService({ name: n.service, namespace: ns })),
      read(() => core.readNamespacedSecret({ name: n.secret, namespace: ns })),
      read(() => core.readNamespacedConfigMap({ name: n.configMap, namespace: ns })),
      read(() => core.readNamespacedPersistentVolumeClaim({ name: n.claim, namespace: ns })),
    ]);
    const objects = [
      { kind: 'StatefulSet', name: n.statefulSet, meta: statefulSet?.metadata },
      { kind: 'Service', name: n.service, meta: service?.metadata },
      { kind: 'Secret', name: n.secret, meta: secret?.metadata },
      { kind: 'ConfigMap', name: n.configMap, meta: configMap?.metadata },
      { kind: 'PersistentVolumeClaim', name: n.claim, meta: claim?.metadata },
    ];
    for (const o of objects) {
      const other = otherDeployment(o.meta, deploymentId);
      if (!other) continue;
      throw new NodeStartFailedError(
        'already-running',
        `Cannot ${what} ${nodeKey} on cluster ${c.name}: the ${o.kind} ${o.name} in namespace ${ns} belongs to another deployment (${DEPLOYMENT_LABEL}=${other}; this one is ${deploymentId}) that uses the same name prefix ${prefix}. ` +
          'Nothing was changed there. Give each deployment sharing this namespace a prefix of its own (LNM_DOCKER_PREFIX), or register the cluster with another namespace.',
        { nodeKey, object: { kind: o.kind, name: o.name, namespace: ns }, otherDeployment: other, deployment: deploymentId },
      );
    }
    return { statefulSet, service, secret, configMap, claim };
  }

  /**
   * The five objects as the API's check read them (assertNotOthers, before a start or restart is
   * recorded), kept for the start that follows on this engine within CHECK_REUSE_MS instead of
   * reading them again: taken once. Safe to start from: every write of an object that exists is a
   * replace with the resourceVersion read (an object changed since, by another deployment's label
   * included, is a 409 and the start reads afresh, startNode), a create of one that appeared
   * since is a 409 too, and the only delete (a Service whose ports changed) has the uid and
   * resourceVersion read as its precondition.
   */
  const checked = new Map<string, { at: number; seen: NodeObjects }>();
  function takeChecked(nodeKey: string): NodeObjects | undefined {
    const kept = checked.get(nodeKey);
    checked.delete(nodeKey);
    return kept && Date.now() - kept.at <= CHECK_REUSE_MS ? kept.seen : undefined;
  }

  /** Puts this deployment's id on an object of a recorded node made before the label (its Service, its claim); answers the object as it now is. */
  async function labelled<T extends { metadata?: k8s.V1ObjectMeta }>(obj: T, replace: (body: T) => Promise<T>): Promise<T> {
    if (!deploymentId || obj.metadata?.labels?.[DEPLOYMENT_LABEL]) return obj;
    return call(replace({ ...obj, metadata: { ...obj.metadata, labels: { ...obj.metadata?.labels, [DEPLOYMENT_LABEL]: deploymentId } } }));
  }

  function fileObjects(spec: NodeLaunchSpec) {
    const n = names(spec.nodeKey);
    const dir = dirOf(spec.nodeKey);
    const secretData: Record<string, string> = {};
    const configData: Record<string, string> = {};
    const configBinary: Record<string, string> = {};
    const mounts: k8s.V1VolumeMount[] = [];
    const secretItems: k8s.V1KeyToPath[] = [];
    const configItems: k8s.V1KeyToPath[] = [];
    spec.files.forEach((f, i) => {
      const key = `f${i}`;
      const mode = f.mode ?? (f.secret ? 0o600 : 0o644);
      if (f.secret) {
        secretData[key] = Buffer.from(f.content).toString('base64');
        secretItems.push({ key, path: key, mode });
        mounts.push({ name: 'keys', mountPath: `${dir}/${f.path}`, subPath: key, readOnly: true });
      } else {
        if (typeof f.content === 'string') configData[key] = f.content;
        else configBinary[key] = Buffer.from(f.content).toString('base64');
        configItems.push({ key, path: key, mode });
        mounts.push({ name: 'config', mountPath: `${dir}/${f.path}`, subPath: key, readOnly: true });
      }
    });
    const secret: k8s.V1Secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: n.secret, labels: labels(spec.nodeKey) }, type: 'Opaque', data: secretData };
    const configMap: k8s.V1ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n.configMap, labels: labels(spec.nodeKey) }, data: configData, binaryData: configBinary };
    return { secret, configMap, mounts, secretItems, configItems };
  }

  function statefulSetOf(spec: NodeLaunchSpec, image: string, files: ReturnType<typeof fileObjects>): k8s.V1StatefulSet {
    const n = names(spec.nodeKey);
    const dir = dirOf(spec.nodeKey);
    const run = spec.docker!;
    const selector = { 'lnm.node': spec.nodeKey, 'lnm.prefix': prefixLabel };
    return {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: n.statefulSet, labels: labels(spec.nodeKey) },
      spec: {
        replicas: 1,
        serviceName: n.service,
        selector: { matchLabels: selector },
        template: {
          metadata: { labels: labels(spec.nodeKey) },
          spec: {
            // No service account token in the node's pod: a node never talks to the API server.
            automountServiceAccountToken: false,
            enableServiceLinks: false,
            terminationGracePeriodSeconds: 10,
            ...(c.imagePullSecret ? { imagePullSecrets: [{ name: c.imagePullSecret }] } : {}),
            ...(spec.podInit
              ? {
                  initContainers: [
                    {
                      name: 'init',
                      image: options.images?.[spec.podInit.image] ?? spec.podInit.image,
                      imagePullPolicy: c.imagePullPolicy ?? 'Never',
                      command: withNodeDir(spec.podInit.command, dir),
                      workingDir: dir,
                      // Its last output becomes the termination message: the reason a failed step gives.
                      terminationMessagePolicy: 'FallbackToLogsOnError',
                      volumeMounts: [{ name: 'data', mountPath: dir }],
                    },
                  ],
                }
              : {}),
            containers: [
              {
                name: 'node',
                image,
                imagePullPolicy: c.imagePullPolicy ?? 'Never',
                args: withNodeDir(run.args, dir),
                env: Object.entries(envWithNodeDir(run.env, dir)).map(([name, value]) => ({ name, value })),
                workingDir: dir,
                // hostPort: the node's ports bound on the cluster node it runs on (CNI portmap).
                ports: spec.ports.map((p) => ({ containerPort: p, protocol: 'TCP', ...(exposure === 'hostPort' ? { hostPort: p } : {}) })),
                ...(spec.ports.length ? { readinessProbe: { tcpSocket: { port: spec.ports[0] as unknown as k8s.IntOrString }, periodSeconds: 2, failureThreshold: 2 } } : {}),
                volumeMounts: [{ name: 'data', mountPath: dir }, ...files.mounts],
              },
            ],
            volumes: [
              { name: 'data', persistentVolumeClaim: { claimName: n.claim } },
              { name: 'keys', secret: { secretName: n.secret, items: files.secretItems, defaultMode: 0o600 } },
              { name: 'config', configMap: { name: n.configMap, items: files.configItems, defaultMode: 0o644 } },
            ],
          },
        },
      },
    };
  }

  function serviceOf(spec: Pick<NodeLaunchSpec, 'nodeKey' | 'ports'>): k8s.V1Service {
    const n = names(spec.nodeKey);
    return {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: n.service, labels: labels(spec.nodeKey) },
      // NodePort and LoadBalancer: node port = the node's port; hostPort: the pod binds its ports
      // on its cluster node and the Service only serves the cluster's own network (ClusterIP).
      spec: {
        type: exposure === 'hostPort' ? 'ClusterIP' : exposure,
        selector: { 'lnm.node': spec.nodeKey, 'lnm.prefix': prefixLabel },
        ports: spec.ports.map((p) => ({ name: `p${p}`, port: p, targetPort: p as unknown as k8s.IntOrString, ...(exposure === 'hostPort' ? {} : { nodePort: p }), protocol: 'TCP' })),
      },
    };
  }

  const claimOf = (nodeKey: string): k8s.V1PersistentVolumeClaim => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: names(nodeKey).claim, labels: labels(nodeKey) },
    spec: { accessModes: ['ReadWriteOnce'], storageClassName: c.storageClass, resources: { requests: { storage: c.volumeSize ?? '1Gi' } } },
  });

  /**
   * Creates or replaces an object (Secret, ConfigMap): the start writes them afresh. `known`: the
   * object as the start read it a moment ago (its resourceVersion guards the replace), else read here.
   */
  async function put(kind: 'secret' | 'configMap', body: k8s.V1Secret | k8s.V1ConfigMap, known?: { object: k8s.V1Secret | k8s.V1ConfigMap | undefined }): Promise<void> {
    const name = body.metadata!.name!;
    if (kind === 'secret') {
      const old = known ? known.object : await read(() => core.readNamespacedSecret({ name, namespace: ns }));
      if (old) await call(core.replaceNamespacedSecret({ name, namespace: ns, body: { ...(body as k8s.V1Secret), metadata: { ...body.metadata, resourceVersion: old.metadata?.resourceVersion } } }));
      else await call(core.createNamespacedSecret({ namespace: ns, body: body as k8s.V1Secret }));
    } else {
      const old = known ? known.object : await read(() => core.readNamespacedConfigMap({ name, namespace: ns }));
      if (old) await call(core.replaceNamespacedConfigMap({ name, namespace: ns, body: { ...(body as k8s.V1ConfigMap), metadata: { ...body.metadata, resourceVersion: old.metadata?.resourceVersion } } }));
      else await call(core.createNamespacedConfigMap({ namespace: ns, body: body as k8s.V1ConfigMap }));
    }
  }

  /** Why the pod is not running, from its container's state; undefined while it may still come up. */
  function podFailure(pod: k8s.V1Pod | undefined): string | undefined {
    const init = pod?.status?.initContainerStatuses?.[0];
    const initWaiting = init?.state?.waiting;
    if (initWaiting?.reason && /ErrImageNeverPull|ImagePullBackOff|ErrImagePull|InvalidImageName|CreateContainerConfigError|CreateContainerError/.test(initWaiting.reason)) {
      return `its init step cannot run: ${initWaiting.reason}${initWaiting.message ? `: ${initWaiting.message}` : ''}`;
    }
    const initFailed = init?.state?.terminated ?? init?.lastState?.terminated;
    if (initFailed && initFailed.exitCode !== 0) return `its init step exited with code ${initFailed.exitCode}${initFailed.message ? `: ${initFailed.message}` : ''}`;
    const cs = pod?.status?.containerStatuses?.[0];
    const waiting = cs?.state?.waiting;
    if (waiting?.reason && /ErrImageNeverPull|ImagePullBackOff|ErrImagePull|InvalidImageName|CreateContainerConfigError|CreateContainerError|CrashLoopBackOff|RunContainerError/.test(waiting.reason)) {
      return `${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`;
    }
    const terminated = cs?.state?.terminated ?? cs?.lastState?.terminated;
    if (terminated && (cs?.restartCount ?? 0) >= 1) return `its container exited with code ${terminated.exitCode}${terminated.reason ? ` (${terminated.reason})` : ''}`;
    const unschedulable = pod?.status?.conditions?.find((x) => x.type === 'PodScheduled' && x.status === 'False' && x.reason === 'Unschedulable');
    if (unschedulable) return `the cluster cannot schedule it: ${unschedulable.message ?? 'unschedulable'}`;
    return undefined;
  }

  const isReady = (pod: k8s.V1Pod | undefined) => !!pod?.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True') && !pod?.metadata?.deletionTimestamp;

  async function tailOf(nodeKey: string, tail: number): Promise<string[]> {
    const pod = await podOf(nodeKey);
    if (!pod) return [];
    const text = await read(() => core.readNamespacedPodLog({ name: pod.metadata!.name!, namespace: ns, container: 'node', tailLines: tail }));
    return (text ?? '').split('\n').filter((l, i, all) => l !== '' || i < all.length - 1);
  }

  async function scale(nodeKey: string, replicas: number): Promise<k8s.V1StatefulSet | undefined> {
    const sts = await ownStatefulSet(nodeKey);
    if (!sts || sts.spec?.replicas === replicas) return sts;
    sts.spec!.replicas = replicas;
    return call(apps.replaceNamespacedStatefulSet({ name: sts.metadata!.name!, namespace: ns, body: sts }));
  }

  async function removeObjects(nodeKey: string, deleteVolume: boolean): Promise<void> {
    const n = names(nodeKey);
    if (await ownStatefulSet(nodeKey)) {
      // Scaled to 0 first: the StatefulSet controller removes the pod at once, where a cascading
      // delete waits for the garbage collector (over a minute on a loaded single-node cluster).
      await stopNode(nodeKey, { timeoutMs: 30_000 });
      await gone(() => apps.deleteNamespacedStatefulSet({ name: n.statefulSet, namespace: ns, propagationPolicy: 'Background' }));
    }
    const svc = await read(() => core.readNamespacedService({ name: n.service, namespace: ns }));
    if (svc && ours(svc.metadata, nodeKey)) await gone(() => core.deleteNamespacedService({ name: n.service, namespace: ns }));
    const secret = await read(() => core.readNamespacedSecret({ name: n.secret, namespace: ns }));
    if (secret && ours(secret.metadata, nodeKey)) await gone(() => core.deleteNamespacedSecret({ name: n.secret, namespace: ns }));
    const cm = await read(() => core.readNamespacedConfigMap({ name: n.configMap, namespace: ns }));
    if (cm && ours(cm.metadata, nodeKey)) await gone(() => core.deleteNamespacedConfigMap({ name: n.configMap, namespace: ns }));
    if (deleteVolume) {
      const claim = await read(() => core.readNamespacedPersistentVolumeClaim({ name: n.claim, namespace: ns }));
      if (claim && ours(claim.metadata, nodeKey)) await gone(() => core.deleteNamespacedPersistentVolumeClaim({ name: n.claim, namespace: ns }));
    }
    // A deleted claim stays (Terminating, kubernetes.io/pvc-protection) until no pod uses it.
    const claimThere = () => (deleteVolume ? read(() => core.readNamespacedPersistentVolumeClaim({ name: n.claim, namespace: ns })) : Promise.resolve(undefined));
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline && ((await statefulSet(nodeKey)) || (await podOf(nodeKey)) || (await claimThere()))) await sleep(500);
  }

  /**
   * Starts from the API check's reads when they are fresh (takeChecked); one of them stale (a 409
   * on a write guarded by it) and the start reads the node's objects afresh and goes again, once.
   */
  async function startNode(spec: NodeLaunchSpec): Promise<NodeStarted> {
    const reads = takeChecked(spec.nodeKey);
    if (reads) {
      try {
        return await startOnce(spec, reads);
      } catch (err) {
        if (!(err instanceof StaleReads)) throw err;
      }
    }
    return startOnce(spec);
  }

  async function startOnce(spec: NodeLaunchSpec, reads?: NodeObjects): Promise<NodeStarted> {
    assertLaunchSpec(spec, 'docker');
    const outside = exposure === 'hostPort' ? [] : spec.ports.filter((p) => p < NODE_PORT_RANGE.min || p > NODE_PORT_RANGE.max);
    if (outside.length) {
      throw new ValidationError(`Cannot start ${spec.displayName} on cluster ${c.name}: its ports are exposed as NodePorts, which must lie in ${NODE_PORT_RANGE.min}-${NODE_PORT_RANGE.max}.`, outside.map((p) => ({ field: 'ports', message: `${p} is outside the NodePort range ${NODE_PORT_RANGE.min}-${NODE_PORT_RANGE.max}` })));
    }
    const availability = await engine.available();
    if (!availability.ok) throw new NodeStartFailedError('engine-unavailable', `Cannot start ${spec.displayName}: ${availability.reason}.`, { nodeKey: spec.nodeKey });
    const n = names(spec.nodeKey);
    const image = options.images?.[spec.docker!.image] ?? spec.docker!.image;

    let firstStart = false;
    const made: { claim: boolean; restored?: boolean } = { claim: false };
    try {
      const seen = reads ?? (await nodeObjects(spec.nodeKey, 'start'));
      const existing = seen.statefulSet;
      if (existing && !ours(existing.metadata, spec.nodeKey)) {
        throw new NodeStartFailedError('already-running', `Cannot start ${spec.displayName}: a StatefulSet ${n.statefulSet} exists in namespace ${ns} that this deployment did not make.`, { nodeKey: spec.nodeKey });
      }
      if (existing && (existing.spec?.replicas ?? 0) > 0 && isReady(await podOf(spec.nodeKey))) {
        throw new NodeStartFailedError('already-running', `${spec.displayName} is already running (pod ${n.statefulSet}-0 on cluster ${c.name}).`, { nodeKey: spec.nodeKey });
      }
      if (!existing) {
        // A claim without its StatefulSet was kept by a delete (DELETE /nodes/{id} without
        // deleteVolume): node ids are never reused within a deployment, so it is another
        // deployment's (same prefix and namespace), and its ledger is never silently taken over.
        // One exception: `lnm restore` of this deployment's backup left the node's files here, and the
        // claim carries this deployment's labels for this node: the start reuses it, emptied and
        // written with the backup's files (restoreIntoClaim), which is what the restore asked for.
        const kept = seen.claim;
        const restoring = await stat(restoreDirOf(spec.nodeKey)).then((s) => s.isDirectory(), () => false);
        if (kept && !(restoring && ours(kept.metadata, spec.nodeKey))) throw new NodeStartFailedError('invalid-spec', `Cannot start ${spec.displayName}: a PersistentVolumeClaim ${n.claim} is already in namespace ${ns} of cluster ${c.name}, kept from a deleted node of a deployment with the same name prefix (${prefix}); delete it there, or give this deployment another LNM_DOCKER_PREFIX.`, { nodeKey: spec.nodeKey });
      }
      firstStart = !existing;
      // Made before the deployment label: the StatefulSet labelled first (LABEL_ORDER, as the
      // cluster check does), so that a node key another deployment's check labels at this moment
      // goes wholly to one of them; losing it (a 409) is that deployment's refusal, read again.
      const current = existing && (await labelled(existing, (body) => apps.replaceNamespacedStatefulSet({ name: n.statefulSet, namespace: ns, body })).catch(async (err: unknown) => {
        if (statusOf(err) === 409) await nodeObjects(spec.nodeKey, 'start');
        throw err;
      }));
      const started = await makeAndAwait(spec, image, current, made, seen);
      // Put back once: later starts keep what the node writes from here on.
      if (made.restored) await rm(restoreDirOf(spec.nodeKey), { recursive: true, force: true });
      return started;
    } catch (err) {
      // Nothing half-made stays in the cluster: a first start removes all it made (the claim
      // when this start made it: a claim kept from an earlier delete holds a ledger); a later
      // start leaves the node stopped with its volume.
      const refused = err instanceof NodeStartFailedError && err.failure === 'already-running';
      if (!refused && firstStart) await removeObjects(spec.nodeKey, made.claim).catch(() => undefined);
      else if (!refused) await scale(spec.nodeKey, 0).catch(() => undefined);
      if (err instanceof NodeStartFailedError || err instanceof ValidationError) throw err;
      const status = statusOf(err);
      if (reads && status === 409) throw new StaleReads();
      const reason = reasonOf(err, c.server);
      if (status === 404 && /namespaces? .*not found/i.test(reason)) {
        throw new ValidationError(`Cannot start ${spec.displayName}: the namespace ${ns} does not exist on cluster ${c.name}.`, [{ field: 'namespace', message: `${ns} does not exist` }], 'NAMESPACE_NOT_FOUND');
      }
      if (status === 403) throw new NodeStartFailedError('engine-unavailable', `Cannot start ${spec.displayName}: cluster ${c.name} refused a call (${reason}); the engine's Role lacks a permission (docs/kubernetes.md).`, { nodeKey: spec.nodeKey });
      if (status === undefined) throw new NodeStartFailedError('engine-unavailable', `Cannot start ${spec.displayName}: ${reason}.`, { nodeKey: spec.nodeKey });
      if (status === 422 || status === 400) throw new NodeStartFailedError('invalid-spec', `Cannot start ${spec.displayName}: cluster ${c.name} refused it: ${reason}.`, { nodeKey: spec.nodeKey });
      throw new NodeStartFailedError('exited', `Cannot start ${spec.displayName}: ${reason}.`, { nodeKey: spec.nodeKey });
    }
  }

  async function makeAndAwait(spec: NodeLaunchSpec, image: string, existing: k8s.V1StatefulSet | undefined, made: { claim: boolean; restored?: boolean }, seen: NodeObjects): Promise<NodeStarted> {
    const n = names(spec.nodeKey);
    const files = fileObjects(spec);
    // The claim and the Service before the Secret and ConfigMap (LABEL_ORDER): those two are written afresh with the label.
    // All five as nodeObjects read them a moment ago: each write below is guarded by its resourceVersion.
    const claim = seen.claim;
    if (!claim) {
      await call(core.createNamespacedPersistentVolumeClaim({ namespace: ns, body: claimOf(spec.nodeKey) }));
      made.claim = true;
    } else if (ours(claim.metadata, spec.nodeKey)) {
      // Made before the deployment label: labelled now (the Secret, ConfigMap and StatefulSet are written afresh below).
      await labelled(claim, (body) => core.replaceNamespacedPersistentVolumeClaim({ name: n.claim, namespace: ns, body }));
    }
    let svc = seen.service;
    if (svc && ours(svc.metadata, spec.nodeKey)) svc = await labelled(svc, (body) => core.replaceNamespacedService({ name: n.service, namespace: ns, body }));
    // The Service made when the node was recorded (reservePorts) or by an earlier start; the
    // node's ports changed since (PUT of a stopped node): made again with them.
    const servicePorts = (svc?.spec?.ports ?? []).map((p) => p.port).sort((a, b) => a - b).join(',');
    if (svc && ours(svc.metadata, spec.nodeKey) && servicePorts !== [...spec.ports].sort((a, b) => a - b).join(',')) {
      // As read: a Service changed or made anew since is left (a 409), not deleted.
      await gone(() => core.deleteNamespacedService({ name: n.service, namespace: ns, body: { preconditions: { uid: svc!.metadata?.uid, resourceVersion: svc!.metadata?.resourceVersion } } }));
      await call(core.createNamespacedService({ namespace: ns, body: serviceOf(spec) }));
    } else if (!svc) await call(core.createNamespacedService({ namespace: ns, body: serviceOf(spec) }));
    await put('secret', files.secret, { object: seen.secret });
    await put('configMap', files.configMap, { object: seen.configMap });
    // Restored from a backup (`lnm restore`): the claim starts again from the backup's files only,
    // which hold the node's own state (no seeding of a new volume then).
    made.restored = await restoreIntoClaim(spec);
    const desired = statefulSetOf(spec, image, files);
    if (!existing && made.claim && spec.seedArgs && !made.restored) {
      // A new volume to seed: the first pod runs the seed args until Ready and has written its
      // state (SIGTERM when the template changes), then the pod of the node's own args replaces it.
      const seeding = statefulSetOf({ ...spec, docker: { ...spec.docker!, args: spec.seedArgs } }, image, files);
      const created = await call(apps.createNamespacedStatefulSet({ namespace: ns, body: seeding }));
      const seedPod = await awaitReadyPod(spec);
      await sleep(2000);
      desired.metadata!.resourceVersion = (await statefulSet(spec.nodeKey))?.metadata?.resourceVersion ?? created.metadata?.resourceVersion;
      await call(apps.replaceNamespacedStatefulSet({ name: n.statefulSet, namespace: ns, body: desired }));
      const deadline = Date.now() + readyTimeoutMs;
      while ((await podOf(spec.nodeKey))?.metadata?.uid === seedPod.metadata?.uid) {
        if (Date.now() > deadline) throw new NodeStartFailedError('exited', `${spec.displayName}: the pod that seeded its volume on cluster ${c.name} was not replaced within ${Math.round(readyTimeoutMs / 1000)} s.`, { nodeKey: spec.nodeKey });
        await sleep(500);
      }
      return awaitPod(spec);
    }
    if (existing) {
      // The spec may have changed (image, args): the template is replaced, then scaled to 1.
      desired.metadata!.resourceVersion = existing.metadata?.resourceVersion;
      await call(apps.replaceNamespacedStatefulSet({ name: n.statefulSet, namespace: ns, body: desired }));
    } else {
      await call(apps.createNamespacedStatefulSet({ namespace: ns, body: desired }));
    }
    return awaitPod(spec);
  }

  async function awaitPod(spec: NodeLaunchSpec): Promise<NodeStarted> {
    const pod = await awaitReadyPod(spec);
    // Ready in the pod; clients reach it at the node address (NodePort, hostPort) or the balancer's.
    const address = await clientAddress(spec);
    const outcome = await awaitStartup({ ports: spec.ports, host: address, alive: async () => isReady(await podOf(spec.nodeKey)), graceMs: 0, readyTimeoutMs: 30_000 });
    if (outcome === 'exited') throw new NodeStartFailedError('exited', `${spec.displayName} stopped being Ready on cluster ${c.name} right after it started.`, { nodeKey: spec.nodeKey });
    const what = exposure === 'hostPort' ? 'host port' : exposure === 'LoadBalancer' ? 'balanced port' : 'NodePort';
    if (outcome === 'slow') throw new NodeStartFailedError('exited', `${spec.displayName} is Ready in its pod but its ${what} ${spec.ports.join(', ')} does not answer at ${address} (the cluster's address for clients).`, { nodeKey: spec.nodeKey });
    const started = pod.status?.containerStatuses?.[0]?.state?.running?.startedAt;
    return { containerId: pod.metadata?.uid, startedAt: new Date(started ?? Date.now()).toISOString() };
  }

  /**
   * Where clients reach the node: the cluster's node address (NodePort, hostPort), or with
   * LoadBalancer the operator's loadBalancerAddress, else the first address the cluster's load
   * balancer writes into the Service's status.loadBalancer.ingress, waited for.
   */
  async function clientAddress(spec: NodeLaunchSpec): Promise<string> {
    if (exposure !== 'LoadBalancer') return c.nodeAddress;
    if (c.loadBalancerAddress) return c.loadBalancerAddress;
    const n = names(spec.nodeKey);
    const timeoutMs = c.loadBalancerTimeoutMs ?? 120_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const ingress = (await read(() => core.readNamespacedService({ name: n.service, namespace: ns })))?.status?.loadBalancer?.ingress?.[0];
      const address = ingress?.ip ?? ingress?.hostname;
      if (address) return address;
      if (Date.now() > deadline) {
        throw new NodeStartFailedError('exited', `${spec.displayName}: no load balancer answered on cluster ${c.name}: the Service ${n.service} (type LoadBalancer) got no address in status.loadBalancer.ingress within ${Math.round(timeoutMs / 1000)} s (is a load-balancer controller running there? else register the cluster with kubernetes.loadBalancerAddress).`, { nodeKey: spec.nodeKey });
      }
      await sleep(1000);
    }
  }

  /** The node's pod once Ready; a NodeStartFailedError with its last log lines when it cannot be. */
  async function awaitReadyPod(spec: NodeLaunchSpec): Promise<k8s.V1Pod> {
    const deadline = Date.now() + readyTimeoutMs;
    let pod: k8s.V1Pod | undefined;
    for (;;) {
      pod = await podOf(spec.nodeKey);
      const failure = podFailure(pod);
      if (failure) {
        const last = (await tailOf(spec.nodeKey, 20).catch(() => [])).map((l) => maskSecrets(redactLogLine(l)));
        throw new NodeStartFailedError(
          /Image/.test(failure) ? 'image-missing' : 'exited',
          `${spec.displayName} did not start on cluster ${c.name}: ${maskSecrets(failure)}${last.length ? `: ${failureLine(last)}` : ''}`,
          { nodeKey: spec.nodeKey, lastLogLines: last },
        );
      }
      if (pod && isReady(pod)) return pod;
      if (Date.now() > deadline) {
        throw new NodeStartFailedError('exited', `${spec.displayName} was not Ready on cluster ${c.name} within ${Math.round(readyTimeoutMs / 1000)} s (pod phase ${pod?.status?.phase ?? 'not created'}).`, { nodeKey: spec.nodeKey });
      }
      await sleep(500);
    }
  }

  /**
   * A rolling restart, as `kubectl rollout restart` does: the pod template gets the annotation
   * lnm/restartedAt (a new template revision, with the spec's files written afresh), and the
   * StatefulSet controller replaces the pod; returns once a new pod (another UID) is Ready and
   * answers. The replicas stay 1 throughout; a node that is not running is started instead.
   */
  async function restartNode(spec: NodeLaunchSpec): Promise<NodeStarted> {
    assertLaunchSpec(spec, 'docker');
    const sts = await ownStatefulSet(spec.nodeKey);
    if (!sts || (sts.spec?.replicas ?? 0) === 0) return startNode(spec);
    // A rolling restart reads what it writes; the check's reads are not kept for a later start.
    checked.delete(spec.nodeKey);
    const before = (await podOf(spec.nodeKey))?.metadata?.uid;
    try {
      const files = fileObjects(spec);
      await put('secret', files.secret);
      await put('configMap', files.configMap);
      const desired = statefulSetOf(spec, options.images?.[spec.docker!.image] ?? spec.docker!.image, files);
      desired.spec!.template.metadata!.annotations = { ...desired.spec!.template.metadata!.annotations, 'lnm/restartedAt': new Date().toISOString() };
      desired.metadata!.resourceVersion = sts.metadata?.resourceVersion;
      await call(apps.replaceNamespacedStatefulSet({ name: names(spec.nodeKey).statefulSet, namespace: ns, body: desired }));
      const deadline = Date.now() + readyTimeoutMs;
      while ((await podOf(spec.nodeKey))?.metadata?.uid === before) {
        if (Date.now() > deadline) throw new NodeStartFailedError('exited', `${spec.displayName}: its pod on cluster ${c.name} was not replaced within ${Math.round(readyTimeoutMs / 1000)} s of the rolling restart.`, { nodeKey: spec.nodeKey });
        await sleep(500);
      }
      return await awaitPod(spec);
    } catch (err) {
      if (err instanceof NodeStartFailedError || err instanceof ValidationError) throw err;
      throw new NodeStartFailedError(statusOf(err) === undefined ? 'engine-unavailable' : 'exited', `Cannot restart ${spec.displayName} on cluster ${c.name}: ${reasonOf(err, c.server)}.`, { nodeKey: spec.nodeKey });
    }
  }

  async function stopNode(nodeKey: string, opts: { timeoutMs?: number } = {}): Promise<void> {
    const sts = await scale(nodeKey, 0);
    if (!sts) return;
    const deadline = Date.now() + (opts.timeoutMs ?? 30_000) + 15_000;
    while (Date.now() < deadline && (await podOf(nodeKey))) await sleep(500);
  }

  async function exposeNode(nodeKey: string, ports: number[], fresh = false): Promise<{ clusterIp: string; nodeAddress: string }> {
    const outside = ports.filter((p) => p < NODE_PORT_RANGE.min || p > NODE_PORT_RANGE.max);
    if (outside.length) throw new ValidationError(`Cannot expose ${nodeKey} on cluster ${c.name}: its ports must lie in the NodePort range ${NODE_PORT_RANGE.min}-${NODE_PORT_RANGE.max}.`, outside.map((p) => ({ field: 'ports', message: `${p} is outside the NodePort range` })));
    const n = names(nodeKey);
    try {
      let svc = (await nodeObjects(nodeKey, fresh ? 'create' : 'expose')).service;
      if (svc && (fresh || !ours(svc.metadata, nodeKey))) throw new NodeStartFailedError('already-running', `A Service ${n.service} exists in namespace ${ns} of cluster ${c.name} that this deployment did not make${fresh ? ` (another deployment with the name prefix ${prefix}?)` : ''}.`, { nodeKey });
      svc ??= await call(core.createNamespacedService({ namespace: ns, body: serviceOf({ nodeKey, ports }) }));
      const clusterIp = svc.spec?.clusterIP;
      if (!clusterIp || clusterIp === 'None') throw new NodeStartFailedError('exited', `The Service ${n.service} on cluster ${c.name} has no cluster IP.`, { nodeKey });
      return { clusterIp, nodeAddress: c.nodeAddress };
    } catch (err) {
      if (err instanceof NodeStartFailedError) throw err;
      const reason = reasonOf(err, c.server);
      if (statusOf(err) === 422 && /already allocated/i.test(reason)) {
        const taken = allocatedPorts(reason, ports);
        throw new NodeStartFailedError('port-in-use', `Cannot expose ${nodeKey} on cluster ${c.name}: NodePort ${taken.join(', ')} ${taken.length > 1 ? 'are' : 'is'} taken there (${reason}).`, { nodeKey, ports: taken });
      }
      throw new NodeStartFailedError(statusOf(err) === undefined ? 'engine-unavailable' : 'exited', `Cannot expose ${nodeKey} on cluster ${c.name}: ${reason}.`, { nodeKey });
    }
  }

  // ---- The claim's files in and out (backups, `lnm restore`): a helper pod, kubernetesVolumeCopy.ts.
  const restoreDirOf = (nodeKey: string) => path.join(options.dataDir, HOSTED_RESTORE_DIR, path.basename(dirOf(nodeKey)));
  const helperImage = options.images?.service ?? 'service';
  const copyStallMs = options.copyStallMs ?? 120_000;

  /**
   * Runs `node -e <script> <dir>` in a helper pod of the service's image mounting the node's claim
   * at the node's directory (read-only unless `write`), on the cluster node of the node's pod when
   * it runs (a ReadWriteOnce claim is shared by pods of one cluster node). The pod is removed
   * whatever happens; it also ends itself after an hour (activeDeadlineSeconds) if this service
   * dies before removing it, and ends itself once no copy has run in it for copyStallMs + 15 s
   * (HELPER_SCRIPT: a service that died mid-copy); an ended helper is removed by the cluster
   * check's sweep (removeOrphans).
   */
  async function withHelperPod<T>(nodeKey: string, write: boolean, run: (podName: string) => Promise<T>): Promise<T> {
    const n = names(nodeKey);
    const podName = `${n.statefulSet.slice(0, 52)}-copy`;
    const nodeName = (await podOf(nodeKey))?.spec?.nodeName;
    const pod: k8s.V1Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: podName, labels: { ...labels(nodeKey), 'lnm.role': 'volume-copy' } },
      spec: {
        restartPolicy: 'Never',
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        terminationGracePeriodSeconds: 0,
        activeDeadlineSeconds: 3600,
        ...(nodeName ? { nodeName } : {}),
        ...(c.imagePullSecret ? { imagePullSecrets: [{ name: c.imagePullSecret }] } : {}),
        containers: [
          {
            name: 'copy',
            image: helperImage,
            imagePullPolicy: c.imagePullPolicy ?? 'Never',
            command: ['node', '-e', HELPER_SCRIPT, String(copyStallMs + 15_000)],
            volumeMounts: [{ name: 'data', mountPath: dirOf(nodeKey), readOnly: !write }],
          },
        ],
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: n.claim, readOnly: !write } }],
      },
    };
    return withPod(nodeKey, pod, async () => {
      await awaitPodState(podName, `the helper pod (image ${helperImage})`, 'running', readyTimeoutMs, (p) => p.status?.phase === 'Running');
      return run(podName);
    });
  }
  const podOf2 = (name: string) => read(() => core.readNamespacedPod({ name, namespace: ns }));

  /**
   * A short-lived pod of a node (a copy helper, a one-off command): one of the same name this
   * deployment left there (a service that died before removing it) is removed first; `run` gets
   * the pod as made, and the pod is removed after whatever happens (removePod: as made, by uid).
   */
  async function withPod<T>(nodeKey: string, pod: k8s.V1Pod, run: (made: k8s.V1Pod) => Promise<T>): Promise<T> {
    const name = pod.metadata!.name!;
    const old = await podOf2(name);
    if (old && ours(old.metadata, nodeKey)) await removePod(name, old.metadata?.uid);
    const made = await call(core.createNamespacedPod({ namespace: ns, body: pod }));
    try {
      return await run(made);
    } finally {
      await removePod(name, made.metadata?.uid).catch(() => undefined);
    }
  }

  /**
   * Deletes a pod as it was made or listed (its uid a precondition: a pod of that name made since
   * is another's and stays) and waits up to a minute for it to go.
   */
  async function removePod(name: string, uid: string | undefined): Promise<void> {
    try {
      await call(core.deleteNamespacedPod({ name, namespace: ns, gracePeriodSeconds: 0, ...(uid ? { body: { preconditions: { uid } } } : {}) }));
    } catch (err) {
      // 404: gone already; 409: the name is another pod's by now.
      if (isNotFound(err) || statusOf(err) === 409) return;
      throw err;
    }
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const p = await podOf2(name);
      if (!p || (uid && p.metadata?.uid !== uid)) return;
      await sleep(500);
    }
  }

  /**
   * Polls a short-lived pod until `reached`; fails saying why when its container cannot run (its
   * image, its config), when it ended before (waiting for it to run), or at the deadline (with the
   * scheduler's reason when it was never scheduled, else its phase).
   */
  async function awaitPodState(name: string, what: string, goal: 'running' | 'ended', timeoutMs: number, reached: (p: k8s.V1Pod) => boolean): Promise<k8s.V1Pod> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const p = await podOf2(name);
      if (p && reached(p)) return p;
      const waiting = p?.status?.containerStatuses?.[0]?.state?.waiting;
      if (waiting?.reason && /Image|CreateContainer|RunContainer/.test(waiting.reason)) throw new Error(`${what} cannot run: ${waiting.reason}${waiting.message ? `: ${maskSecrets(waiting.message)}` : ''}`);
      if (p?.status?.phase === 'Failed' || p?.status?.phase === 'Succeeded') throw new Error(`${what} ended (${p.status.phase}) before it was running`);
      if (Date.now() > deadline) {
        const unscheduled = p?.status?.conditions?.find((x) => x.type === 'PodScheduled' && x.status === 'False');
        const state = unscheduled ? `never scheduled: ${maskSecrets(unscheduled.message ?? unscheduled.reason ?? 'unschedulable')}` : `phase ${p?.status?.phase ?? 'not created'}`;
        throw new Error(`${what} was not ${goal} within ${Math.round(timeoutMs / 1000)} s (${state})`);
      }
      await sleep(500);
    }
  }

  /**
   * NodeEngine.runWhileStopped: with the node's StatefulSet at 0 replicas and its pod gone, a
   * one-off pod of its pod template (nodeCommandPod: image, env, files, claim, securityContext)
   * runs `args`, labelled lnm.role=node-command (an ended one a dead service left is removed by the
   * cluster check's sweep, as the copy helpers are); the output is its log, the exit code its
   * container's. A pod not ended within `timeoutMs` (never scheduled, never ending) is removed and
   * the call fails saying why; the pod is removed in every case.
   */
  async function runWhileStopped(nodeKey: string, args: string[], opts: { env?: Record<string, string>; timeoutMs?: number }): Promise<{ exitCode: number; output: string[] }> {
    const n = names(nodeKey);
    const command = args.join(' ');
    const timeoutMs = opts.timeoutMs ?? 60_000;
    const podName = `${n.statefulSet.slice(0, 52)}-once`;
    const what = `the one-off pod ${podName} of \`${command}\``;
    try {
      const sts = await ownStatefulSet(nodeKey);
      if (!sts) throw new ConflictError(`Node ${nodeKey} has no StatefulSet on cluster ${c.name}: there is nothing to run \`${command}\` against.`);
      if ((sts.spec?.replicas ?? 0) > 0 || (await podOf(nodeKey))) throw new ConflictError(`Node ${nodeKey} is running on cluster ${c.name} (or its pod is still going): \`${command}\` needs it stopped.`);
      const pod = nodeCommandPod(sts, { name: podName, labels: { ...labels(nodeKey), 'lnm.role': 'node-command' }, args, env: opts.env, deadlineSeconds: Math.ceil(timeoutMs / 1000) + 30 });
      return await withPod(nodeKey, pod, async () => {
        const terminated = (p: k8s.V1Pod) => p.status?.containerStatuses?.[0]?.state?.terminated;
        const ended = await awaitPodState(podName, what, 'ended', timeoutMs, (p) => !!terminated(p));
        const text = await read(() => core.readNamespacedPodLog({ name: podName, namespace: ns, container: 'node' }));
        const output = (text ?? '').split('\n').filter((l) => l.trim() !== '').map((l) => maskSecrets(redactLogLine(l)));
        return { exitCode: terminated(ended)!.exitCode, output };
      });
    } catch (err) {
      if (err instanceof ConflictError) throw err;
      const e = err as { code?: unknown; cause?: unknown; message?: string };
      const why = typeof e?.code === 'number' || e?.code === 'TIMEOUT' || e?.cause ? reasonOf(err, c.server) : String(e?.message ?? err);
      throw new ConflictError(`Cannot run \`${command}\` beside the stopped node ${nodeKey} on cluster ${c.name}: ${why}.`);
    }
  }

  /** Runs a script in the helper pod over the Exec WebSocket; resolves once it exited 0, with its stderr for a failure. */
  async function execScript(podName: string, args: string[], stdout: Writable, feed?: (send: (b: Buffer) => Promise<void>) => Promise<unknown>, stop?: Promise<never>): Promise<void> {
    let stderr = '';
    const errSink = new Writable({
      write(chunk: Buffer, _e, cb) {
        if (stderr.length < 2000) stderr += chunk.toString('utf8');
        cb();
      },
    });
    // Stdin is never ended: a Kubernetes 1.20 Exec WebSocket cannot half-close it (ending it would
    // close the connection); the frames carry their own end.
    const stdin = feed ? new PassThrough() : null;
    let settle!: (err?: Error) => void;
    const finished = new Promise<void>((resolve, reject) => {
      settle = (err) => (err ? reject(err) : resolve());
    });
    const ws = await call(
      new k8s.Exec(kc).exec(ns, podName, 'copy', ['node', '-e', ...args], stdout, errSink, stdin, false, (status) => {
        if (status.status === 'Success') settle();
        else settle(new Error(`the copy in the helper pod failed: ${maskSecrets((stderr.trim() || status.message || 'exit code ' + (status.details?.causes?.find((x) => x.reason === 'ExitCode')?.message ?? '?')).split('\n')[0]!)}`));
      }),
    );
    // The script said it failed (WRITE_SCRIPT's {"failed": ...}): over at once, whatever is still to send.
    stop?.catch((err: Error) => settle(err));
    ws.on('close', () => settle(new Error(`the Exec connection to the helper pod closed before the copy ended${stderr ? `: ${maskSecrets(stderr.trim().split('\n')[0]!)}` : ''}`)));
    // No hang: a copy that moves no byte either way for copyStallMs fails (and the pod is removed).
    let moved = Date.now();
    ws.on('message', () => (moved = Date.now()));
    const watch = setInterval(() => {
      if (Date.now() - moved > copyStallMs) settle(new Error(`the copy in the helper pod moved no data for ${Math.round(copyStallMs / 1000)} s`));
    }, 1000);
    watch.unref();
    ws.on('error', (err: Error) => settle(new Error(`the Exec connection to the helper pod failed: ${maskSecrets(err.message)}`)));
    let over = false;
    try {
      if (feed && stdin) {
        const send = async (b: Buffer) => {
          // A copy that failed meanwhile (its feed raced away): nothing more is sent.
          if (over) throw new Error('the copy is over');
          stdin.write(b);
          moved = Date.now();
          // The WebSocket has no flow control of its own: wait while much is still queued.
          while (ws.bufferedAmount > 8 << 20 && !over) await sleep(20);
        };
        const fed = feed(send);
        fed.catch(() => undefined);
        await Promise.race([fed, finished]);
      }
      await finished;
    } finally {
      over = true;
      clearInterval(watch);
      stdin?.destroy();
      ws.close();
    }
  }

  /** The node directory, or its directory `sub` (one name: `data`), as the claim is mounted in a pod. */
  function claimDir(nodeKey: string, sub?: string): string {
    if (sub === undefined) return dirOf(nodeKey);
    if (!/^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(sub)) throw new Error(`${sub} is not a directory name of the node directory`);
    return path.posix.join(dirOf(nodeKey), sub);
  }

  async function copyNodeDataOut(nodeKey: string, intoDir: string, opts: { sub?: string } = {}): Promise<CopyCounts | null> {
    const from = claimDir(nodeKey, opts.sub);
    const claim = await read(() => core.readNamespacedPersistentVolumeClaim({ name: names(nodeKey).claim, namespace: ns }));
    if (!claim || !ours(claim.metadata, nodeKey)) return null;
    await emptyDir(intoDir);
    const out = frameWriter(intoDir);
    await withHelperPod(nodeKey, false, async (podName) => {
      const written = new Promise<void>((resolve, reject) => {
        out.sink.on('finish', resolve);
        out.sink.on('error', reject);
      });
      await execScript(podName, [READ_SCRIPT, from], out.sink);
      await written;
    });
    return out.done(`the claim ${names(nodeKey).claim}`);
  }

  async function copyNodeDataIn(nodeKey: string, fromDir: string, opts: { sub: string }): Promise<{ files: number }> {
    const into = claimDir(nodeKey, opts.sub);
    const n = names(nodeKey);
    if (!(await stat(fromDir).then((s) => s.isDirectory(), () => false))) throw new Error(`${fromDir} is not a directory to write into the claim ${n.claim}`);
    const sts = await ownStatefulSet(nodeKey);
    if (!sts) throw new ConflictError(`Node ${nodeKey} has no StatefulSet on cluster ${c.name}: there is no claim to write its ${opts.sub} into.`);
    const claim = await read(() => core.readNamespacedPersistentVolumeClaim({ name: n.claim, namespace: ns }));
    if (!claim || !ours(claim.metadata, nodeKey)) throw new ConflictError(`Node ${nodeKey} has no claim ${n.claim} of this deployment on cluster ${c.name} to write its ${opts.sub} into.`);
    // Stopped: a pod going away (scaled to 0 a moment ago) is waited for, a running one refused.
    if ((sts.spec?.replicas ?? 0) > 0 || !(await podGone(nodeKey))) throw new ConflictError(`Node ${nodeKey} is running on cluster ${c.name} (or its pod is still going): its ${opts.sub} is written only while it is stopped.`);
    try {
      return await writeIntoClaim(nodeKey, fromDir, into, opts.sub);
    } catch (err) {
      // Named here: the caller (a migration's rollback) may hold several nodes.
      throw new Error(`Writing the ${opts.sub} of node ${nodeKey} into its claim ${n.claim} on cluster ${c.name} failed: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Waits up to 60 s for the node's pod to be gone (a StatefulSet scaled to 0 a moment ago); whether it is. */
  async function podGone(nodeKey: string): Promise<boolean> {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && (await podOf(nodeKey))) await sleep(500);
    return !(await podOf(nodeKey));
  }

  /**
   * The one way to write a directory here into a node's claim (copyNodeDataIn, restoreIntoClaim):
   * a helper pod mounting the claim read-write runs WRITE_SCRIPT at `into` (emptied first, made
   * when missing) fed the frames of `fromDir`; the files and bytes it says it wrote are checked
   * against those sent (writtenAsSent; `what` names `into` in that error). The caller has the
   * node's pod gone.
   */
  async function writeIntoClaim(nodeKey: string, fromDir: string, into: string, what: string): Promise<{ files: number }> {
    const said: string[] = [];
    let failed!: (err: Error) => void;
    const stop = new Promise<never>((_, reject) => (failed = reject));
    stop.catch(() => undefined);
    const out = new Writable({
      write(chunk: Buffer, _e, cb) {
        said.push(chunk.toString('utf8'));
        const why = writeFailure(said.join(''));
        if (why !== undefined) failed(new Error(`the copy in the helper pod failed: ${maskSecrets(why)}`));
        cb();
      },
    });
    let sent = { files: Number.NaN, bytes: Number.NaN };
    await withHelperPod(nodeKey, true, (podName) => execScript(podName, [WRITE_SCRIPT, into], out, async (send) => (sent = await writeFrames(fromDir, send)), stop));
    return { files: writtenAsSent(said.join(''), sent, `${what} of the claim ${names(nodeKey).claim}`).files };
  }

  /**
   * After `lnm restore` (files left in <dataDir>/hosted-restore/<nodeKey>/): empties the node's
   * claim and writes the backup's files into it, with the node's pod not running. Returns true
   * when it did; the caller removes the files here once the node started on them.
   */
  async function restoreIntoClaim(spec: NodeLaunchSpec): Promise<boolean> {
    const from = restoreDirOf(spec.nodeKey);
    if (!(await stat(from).then((s) => s.isDirectory(), () => false))) return false;
    await scale(spec.nodeKey, 0);
    await podGone(spec.nodeKey);
    try {
      await writeIntoClaim(spec.nodeKey, from, dirOf(spec.nodeKey), 'the node directory');
    } catch (err) {
      throw new NodeStartFailedError('exited', `Cannot start ${spec.displayName}: putting its restored files into the claim ${names(spec.nodeKey).claim} on cluster ${c.name} failed: ${(err as Error).message}`, { nodeKey: spec.nodeKey });
    }
    return true;
  }

  async function removeOrphans(recorded: (nodeKey: string) => Promise<boolean>, olderThanMs: number): Promise<{ removed: OrphanObject[]; failed: string[] }> {
    // Only what this deployment labelled as its own: another deployment's objects on the same
    // prefix are not in this one's records, and objects made before the label are left.
    const selectors = orphanSelectors(prefixLabel, deploymentId);
    if (!selectors) return { removed: [], failed: ['no deployment id: the sweep cannot tell this deployment\'s objects from another\'s'] };
    const labelSelector = selectors.objects;
    const cutoff = Date.now() - olderThanMs;
    type Meta = { metadata?: k8s.V1ObjectMeta };
    const kinds: { kind: OrphanObject['kind']; list: () => Promise<{ items: Meta[] }>; remove: (name: string) => Promise<unknown> }[] = [
      { kind: 'StatefulSet', list: () => apps.listNamespacedStatefulSet({ namespace: ns, labelSelector }), remove: (name) => apps.deleteNamespacedStatefulSet({ name, namespace: ns, propagationPolicy: 'Background' }) },
      { kind: 'Service', list: () => core.listNamespacedService({ namespace: ns, labelSelector }), remove: (name) => core.deleteNamespacedService({ name, namespace: ns }) },
      { kind: 'Secret', list: () => core.listNamespacedSecret({ namespace: ns, labelSelector }), remove: (name) => core.deleteNamespacedSecret({ name, namespace: ns }) },
      { kind: 'ConfigMap', list: () => core.listNamespacedConfigMap({ namespace: ns, labelSelector }), remove: (name) => core.deleteNamespacedConfigMap({ name, namespace: ns }) },
    ];
    const known = new Map<string, boolean>();
    const removed: OrphanObject[] = [];
    const failed: string[] = [];
    for (const k of kinds) {
      let items: Meta[];
      try {
        items = (await call(k.list())).items;
      } catch (err) {
        failed.push(`listing the ${k.kind}s: ${reasonOf(err, c.server)}`);
        continue;
      }
      for (const item of items) {
        const name = item.metadata?.name;
        const nodeKey = item.metadata?.labels?.['lnm.node'];
        const created = item.metadata?.creationTimestamp ? new Date(item.metadata.creationTimestamp as unknown as string) : null;
        // Younger than the grace period (or of unknown age): a create may be in flight.
        if (!name || !nodeKey || !created || !(created.getTime() < cutoff)) continue;
        if (!known.has(nodeKey)) known.set(nodeKey, await recorded(nodeKey));
        if (known.get(nodeKey)) continue;
        try {
          await serial(nodeKey, () => gone(() => k.remove(name)));
          removed.push({ kind: k.kind, name, nodeKey, createdAt: created.toISOString() });
        } catch (err) {
          failed.push(`removing ${k.kind} ${name}: ${reasonOf(err, c.server)}`);
        }
      }
    }
    // Copy-helper pods (backups, restores) and one-off node-command pods (runWhileStopped) that
    // ended: their work is over whatever it was (the helper ends itself once no copy runs in it, a
    // one-off pod at its activeDeadlineSeconds, a service that died meanwhile included), so nothing
    // uses them; of any node, recorded or not. A running one is never taken: a copy or command may
    // run in it on any instance. Deleted only as the pod listed (its uid): a new pod of the same
    // name is another's.
    try {
      const helpers = (await call(core.listNamespacedPod({ namespace: ns, labelSelector: selectors.helpers }))).items;
      for (const pod of helpers) {
        const name = pod.metadata?.name;
        const uid = pod.metadata?.uid;
        const nodeKey = pod.metadata?.labels?.['lnm.node'];
        const created = pod.metadata?.creationTimestamp ? new Date(pod.metadata.creationTimestamp as unknown as string) : null;
        if (!name || !uid || !nodeKey || !created || !(created.getTime() < cutoff)) continue;
        if (pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed') continue;
        try {
          await serial(nodeKey, () => gone(() => core.deleteNamespacedPod({ name, namespace: ns, gracePeriodSeconds: 0, body: { preconditions: { uid } } })));
          removed.push({ kind: 'Pod', name, nodeKey, createdAt: created.toISOString() });
        } catch (err) {
          // 409: the name is another pod's by now (a new copy), not the one listed.
          if (statusOf(err) !== 409) failed.push(`removing Pod ${name}: ${reasonOf(err, c.server)}`);
        }
      }
    } catch (err) {
      failed.push(`listing the copy-helper and node-command Pods: ${reasonOf(err, c.server)}`);
    }
    return { removed, failed };
  }

  async function labelUnlabelled(recorded: (nodeKey: string) => Promise<boolean>): Promise<{ labelled: ClusterLabelledObject[]; deployment: string | null; failed: string[] }> {
    if (!deploymentId) return { labelled: [], deployment: null, failed: [] };
    const labelSelector = unlabelledSelector(prefixLabel);
    type Obj = { metadata?: k8s.V1ObjectMeta };
    const kinds: { kind: ClusterLabelledObject['kind']; list: () => Promise<{ items: Obj[] }>; replace: (name: string, body: Obj) => Promise<Obj> }[] = [
      { kind: 'StatefulSet', list: () => apps.listNamespacedStatefulSet({ namespace: ns, labelSelector }), replace: (name, body) => apps.replaceNamespacedStatefulSet({ name, namespace: ns, body: body as k8s.V1StatefulSet }) },
      { kind: 'Service', list: () => core.listNamespacedService({ namespace: ns, labelSelector }), replace: (name, body) => core.replaceNamespacedService({ name, namespace: ns, body: body as k8s.V1Service }) },
      { kind: 'Secret', list: () => core.listNamespacedSecret({ namespace: ns, labelSelector }), replace: (name, body) => core.replaceNamespacedSecret({ name, namespace: ns, body: body as k8s.V1Secret }) },
      { kind: 'ConfigMap', list: () => core.listNamespacedConfigMap({ namespace: ns, labelSelector }), replace: (name, body) => core.replaceNamespacedConfigMap({ name, namespace: ns, body: body as k8s.V1ConfigMap }) },
      { kind: 'PersistentVolumeClaim', list: () => core.listNamespacedPersistentVolumeClaim({ namespace: ns, labelSelector }), replace: (name, body) => core.replaceNamespacedPersistentVolumeClaim({ name, namespace: ns, body: body as k8s.V1PersistentVolumeClaim }) },
    ];
    const known = new Map<string, boolean>();
    const done: ClusterLabelledObject[] = [];
    const failed: string[] = [];
    // Listed first, then labelled node by node: two deployments that both record a node key (both
    // made nodes of that id before the label existed) must not split its objects between them.
    const byNode = new Map<string, { kind: (typeof kinds)[number]; item: Obj }[]>();
    for (const k of kinds) {
      let items: Obj[];
      try {
        items = (await call(k.list())).items;
      } catch (err) {
        failed.push(`listing the unlabelled ${k.kind}s: ${reasonOf(err, c.server)}`);
        continue;
      }
      for (const item of items) {
        const meta = item.metadata;
        const nodeKey = meta?.labels?.['lnm.node'];
        // The selector asked for no deployment label; checked again, so that no other deployment's object is ever written.
        if (!meta?.name || !meta.uid || !nodeKey || meta.labels?.[DEPLOYMENT_LABEL] !== undefined || !meta.resourceVersion) continue;
        if (!known.has(nodeKey)) known.set(nodeKey, await recorded(nodeKey));
        if (!known.get(nodeKey)) continue;
        byNode.set(nodeKey, [...(byNode.get(nodeKey) ?? []), { kind: k, item }]);
      }
    }
    // A kind not listed: nothing labelled at this check (without it the order below does not hold).
    if (failed.length) return { labelled: done, deployment: deploymentId, failed };
    for (const [nodeKey, items] of byNode) {
      await serial(nodeKey, async () => {
        // A node one of whose objects carries another deployment's id is that deployment's: none of its objects is written.
        try {
          await nodeObjects(nodeKey, 'label');
        } catch (err) {
          failed.push(err instanceof NodeStartFailedError && err.failure === 'already-running' ? `left ${nodeKey}'s unlabelled objects: ${err.message}` : `reading ${nodeKey}'s objects: ${reasonOf(err, c.server)}`);
          return;
        }
        // In LABEL_ORDER, each a label-only replace as listed (its resourceVersion: a change made
        // since is a 409, tried again at the next check; its uid: an object made anew one too),
        // stopping at the first that fails: the first one is what two deployments' checks at
        // once both try, and only one of them gets it, and with it the rest.
        items.sort((x, y) => LABEL_ORDER.indexOf(x.kind.kind) - LABEL_ORDER.indexOf(y.kind.kind));
        for (const { kind, item } of items) {
          const name = item.metadata!.name!;
          try {
            await labelled(item, (body) => kind.replace(name, body));
            done.push({ kind: kind.kind, name, nodeKey, uid: item.metadata!.uid! });
          } catch (err) {
            failed.push(`labelling ${kind.kind} ${name}: ${reasonOf(err, c.server)}; ${nodeKey}'s other objects are left for the next check`);
            return;
          }
        }
      });
    }
    return { labelled: done, deployment: deploymentId, failed };
  }

  const engine: KubernetesNodeEngine = {
    kind: 'kubernetes',
    labelUnlabelled,
    runWhileStopped: (nodeKey, args, opts = {}) => serial(nodeKey, () => runWhileStopped(nodeKey, args, opts)),
    removeOrphans,
    copyNodeDataOut: (nodeKey, intoDir, opts) => serial(nodeKey, () => copyNodeDataOut(nodeKey, intoDir, opts)),
    copyNodeDataIn: (nodeKey, fromDir, opts) => serial(nodeKey, () => copyNodeDataIn(nodeKey, fromDir, opts)),
    objectNames: names,
    expose: (nodeKey, ports) => serial(nodeKey, () => exposeNode(nodeKey, ports)),
    reservePorts: (nodeKey, ports) => serial(nodeKey, async () => void (await exposeNode(nodeKey, ports, true))),
    // Not behind the node's start (serial): the API answers at once. Reads kept for the start that follows (takeChecked).
    assertNotOthers: async (nodeKey, what) => {
      checked.delete(nodeKey);
      const seen = await nodeObjects(nodeKey, what);
      checked.set(nodeKey, { at: Date.now(), seen });
    },

    async imageReferences(repositories) {
      // The images on the cluster's nodes, as their kubelets report them (status.images; the
      // runtime names them docker.io/library/lnm-fabric-peer:3.1.5 for lnm-fabric-peer:3.1.5).
      const nodes = await withTimeout(core.listNode(), callMs);
      const refs = new Set<string>();
      for (const n of nodes.items) {
        for (const image of n.status?.images ?? []) {
          for (const name of image.names ?? []) {
            const short = name.replace(/^docker\.io\/(library\/)?/, '');
            if (repositories.some((r) => short.startsWith(`${r}:`))) refs.add(short);
          }
        }
      }
      return [...refs];
    },

    async available(): Promise<EngineAvailability> {
      try {
        await withTimeout(kc.makeApiClient(k8s.VersionApi).getCode(), 5000);
        return { ok: true };
      } catch (err) {
        return { ok: false, reason: `cluster ${c.name} does not answer: ${reasonOf(err, c.server)}` };
      }
    },

    async prepare(spec) {
      // The files go to the cluster at start (Secret, ConfigMap); here they are written into the
      // node directory of this machine, a staging copy the runtime's own steps read (anvil's
      // genesis bootstrap), as the docker engine does for a remote host.
      assertLaunchSpec(spec, 'docker');
      await writeNodeFiles(dirOf(spec.nodeKey), spec);
    },
    start: (spec) => serial(spec.nodeKey, () => startNode(spec)),
    stop: (nodeKey, opts = {}) => serial(nodeKey, () => stopNode(nodeKey, opts)),
    restart: (spec) => serial(spec.nodeKey, () => restartNode(spec)),
    remove: (nodeKey, opts = {}) =>
      serial(nodeKey, async () => {
        dirOf(nodeKey);
        checked.delete(nodeKey);
        await stopNode(nodeKey, opts);
        await removeObjects(nodeKey, opts.deleteVolume === true);
        await rm(dirOf(nodeKey), { recursive: true, force: true });
        await rm(restoreDirOf(nodeKey), { recursive: true, force: true });
      }),

    async status(nodeKey): Promise<NodeStatus> {
      dirOf(nodeKey);
      let sts: k8s.V1StatefulSet | undefined;
      let pod: k8s.V1Pod | undefined;
      try {
        sts = await statefulSet(nodeKey);
        pod = sts ? await podOf(nodeKey) : undefined;
      } catch (err) {
        return { state: 'unknown', reason: `cluster ${c.name} did not answer: ${reasonOf(err, c.server)}` };
      }
      if (!sts) return { state: 'unknown', reason: `node ${nodeKey} is not on cluster ${c.name} (no StatefulSet ${names(nodeKey).statefulSet} in namespace ${ns})` };
      if (!ours(sts.metadata, nodeKey)) return { state: 'unknown', reason: `the StatefulSet ${names(nodeKey).statefulSet} in namespace ${ns} was not made by this deployment` };
      if ((sts.spec?.replicas ?? 0) === 0) return { state: 'stopped' };
      const cs = pod?.status?.containerStatuses?.[0];
      const base = { containerId: pod?.metadata?.uid, ...(cs?.state?.running?.startedAt ? { startedAt: new Date(cs.state.running.startedAt).toISOString() } : {}) };
      if (isReady(pod)) return { state: 'running', ...base };
      const terminated = cs?.state?.terminated ?? cs?.lastState?.terminated;
      const why = podFailure(pod) ?? (pod ? `pod ${pod.metadata?.name} is not Ready (phase ${pod.status?.phase ?? 'unknown'})` : `its pod is not there (Kubernetes is making it again)`);
      return { state: 'exited', ...(terminated ? { exitCode: terminated.exitCode } : {}), reason: maskSecrets(why), ...base };
    },

    async logs(nodeKey, opts = {}) {
      if (!(await ownStatefulSet(nodeKey))) throw new NotFoundError('Node', nodeKey);
      return (await tailOf(nodeKey, opts.tail ?? 100)).map(redactLogLine);
    },

    async followLogs(nodeKey, onLine, opts = {}): Promise<LogFollower> {
      if (!(await ownStatefulSet(nodeKey))) throw new NotFoundError('Node', nodeKey);
      const pod = await podOf(nodeKey);
      if (!pod) throw new NotFoundError('Node', nodeKey);
      const out = lineSink((line: string) => onLine(redactLogLine(line)));
      const abort = await new k8s.Log(kc).log(ns, pod.metadata!.name!, 'node', out, { follow: true, tailLines: opts.tail ?? 0 });
      return { close: () => abort.abort() };
    },
  };
  return engine;
}
