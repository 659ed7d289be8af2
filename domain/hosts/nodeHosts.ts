// Node hosts: Docker Engines reached over TCP with mutual TLS, or Kubernetes clusters (kind
// kubernetes, a bearer token or a client certificate), where nodes can run besides the service's local engine. One stream per host. The client key arrives here already sealed
// under KEY_ENCRYPTION_KEY (sealedSecrets), so no event holds it in clear; the CA and the client
// certificate are public. Reachability is recorded when it changes (and the engine version or
// the count of running nodes with it), not at every periodic check.
import type { Decider } from '../shared/decider.ts';
import { assertNever } from '../shared/decider.ts';
import { ConflictError, NotFoundError } from '../shared/errors.ts';

export const nodeHostStream = (id: number) => `node-host-${id}`;

/** The context a host's client key is sealed under (SecretBox). */
export const hostSecretContext = (hostId: number) => `node-host-${hostId}`;

const LABEL_KEY = /^[A-Za-z0-9][A-Za-z0-9._\/-]{0,62}$/;

/** Label keys that are not 1-63 letters, digits, ".", "_", "/" or "-" (starting with a letter or digit). */
export function labelIssues(labels: Record<string, string>): { field: string; message: string }[] {
  return Object.keys(labels).filter((k) => !LABEL_KEY.test(k)).map((k) => ({ field: `labels.${k.slice(0, 64)}`, message: 'a label key is 1-63 letters, digits, ".", "_", "/" or "-"' }));
}

export interface NodeHostAddress {
  /** tcp://host:port as given (https:// is accepted as the same thing). */
  url: string;
  /** The address nodes on this host are reached at by other nodes and the service (the URL's host). */
  externalIp: string;
  caCertificate: string;
  clientCertificate: string;
  /** Left out: docker. kubernetes: url is the API server, externalIp the address of its node ports, the sealed secret its bearer token (clientCertificate empty) or the key of clientCertificate. */
  kind?: NodeHostKind;
  kubernetes?: KubernetesHostSettings;
}

export type NodeHostKind = 'docker' | 'kubernetes';

/** Where nodes are asked to go: a host by id, or the placement rule by labels (docs/hosts.md). */
export interface NodePlacement {
  hostId?: number;
  hostLabels?: Record<string, string>;
}

/** The ports of a node on a Kubernetes cluster are NodePorts: the cluster's default --service-node-port-range. */
export const NODE_PORT_RANGE = { min: 30000, max: 32767 } as const;

export type KubernetesExposure = 'NodePort' | 'LoadBalancer' | 'hostPort';

/**
 * The ports a node on a cluster may take: NodePort and LoadBalancer expose them as node ports (the
 * cluster's NodePort range); hostPort binds them on the node itself (any port).
 */
export function clusterPortRange(settings: Pick<KubernetesHostSettings, 'exposure'> | null | undefined): { min: number; max: number } | null {
  return settings?.exposure === 'hostPort' ? null : NODE_PORT_RANGE;
}

/** Where a kubernetes host's nodes go and how their images are pulled (nothing secret). */
export interface KubernetesHostSettings {
  namespace: string;
  storageClass: string;
  volumeSize?: string;
  imagePullPolicy?: 'Never' | 'IfNotPresent' | 'Always';
  imagePullSecret?: string;
  /**
   * How the nodes' ports are exposed (default NodePort): NodePort (a Service of type NodePort, node
   * port = the node's port, reached at the host's externalIp), LoadBalancer (a Service of type
   * LoadBalancer with the same node ports; reached at loadBalancerAddress, else at the address the
   * cluster's load balancer writes into the Service's status.loadBalancer.ingress, waited for at
   * start), or hostPort (the pod's container ports bound on the cluster node it runs on, reached
   * at the host's externalIp; any port).
   */
  exposure?: KubernetesExposure;
  /** LoadBalancer only: the address clients reach the nodes' balanced Services at (no wait for the ingress). */
  loadBalancerAddress?: string;
  /** LoadBalancer only: how long a start waits for the Service's ingress address; default 120. */
  loadBalancerTimeoutSeconds?: number;
  /** Per-cluster image references by software name (anvil, fabric-peer, ...), over the service's own table. */
  images?: Record<string, string>;
  /**
   * The service's own pod's service account instead of a given token and CA: read at each use from
   * /var/run/secrets/kubernetes.io/serviceaccount (the service runs in the cluster, deploy/).
   */
  inCluster?: boolean;
}

export interface NodeHostCapacity {
  /** Most nodes this host takes; null: no limit. */
  maxNodes: number | null;
}

export interface NodeHostObservation {
  reachable: boolean;
  engineVersion: string | null;
  runningNodes: number | null;
  reason: string | null;
  /** A kubernetes host: what the cluster check found (absent for a docker host, and when the check did not get that far). */
  kubernetes?: KubernetesClusterFindings | null;
}

/** The cluster check's findings (adapters/engines/kubernetesCluster.ts): version, nodes Ready, the engine's verbs the credentials lack. */
export interface KubernetesClusterFindings {
  version: string | null;
  nodes: { total: number; ready: number } | null;
  missingPermissions: { verb: string; resource: string }[];
}

/**
 * A cluster object this deployment left there, removed by the cluster check (docs/kubernetes.md,
 * "Orphans"): of a node never recorded, or (kind Pod) a copy-helper pod of a backup or restore,
 * or a one-off node-command pod (runWhileStopped), that ended.
 */
export interface ClusterOrphanObject {
  kind: 'Service' | 'StatefulSet' | 'Secret' | 'ConfigMap' | 'Pod';
  name: string;
  nodeKey: string;
  createdAt: string | null;
}

/**
 * A cluster object of a node this deployment records, made before the deployment id (no
 * lnm.deployment label at all), that the cluster check labelled with this deployment's id
 * (docs/kubernetes.md, "Two deployments on one cluster"): the same object (uid), only its labels changed.
 */
export interface ClusterLabelledObject {
  kind: 'StatefulSet' | 'Service' | 'Secret' | 'ConfigMap' | 'PersistentVolumeClaim';
  name: string;
  nodeKey: string;
  uid: string;
}

export interface NodeHostState {
  status: 'none' | 'active' | 'deleted';
  hostId?: number;
  name?: string;
  observation?: NodeHostObservation;
}

export type NodeHostEvent =
  | { type: 'NodeHostRegistered'; data: { hostId: number; name: string; address: NodeHostAddress; labels: Record<string, string>; capacity: NodeHostCapacity; sealedSecrets: string; observation: NodeHostObservation; at: string } }
  | { type: 'NodeHostUpdated'; data: { hostId: number; name: string; labels: Record<string, string>; capacity: NodeHostCapacity; at: string } }
  | { type: 'NodeHostDeleted'; data: { hostId: number; name: string; at: string } }
  | { type: 'NodeHostObserved'; data: { hostId: number; name: string; observation: NodeHostObservation; at: string } }
  /** Objects of never-recorded nodes removed from a cluster (docs/kubernetes.md, "Orphans"). */
  | { type: 'NodeHostOrphansRemoved'; data: { hostId: number; name: string; objects: ClusterOrphanObject[]; graceSeconds: number; at: string } }
  /** Objects of recorded nodes made before the deployment id, labelled with it by the cluster check. */
  | { type: 'NodeHostObjectsLabelled'; data: { hostId: number; name: string; objects: ClusterLabelledObject[]; deployment: string; at: string } };

export type NodeHostCommand =
  | { type: 'RegisterNodeHost'; hostId: number; name: string; address: NodeHostAddress; labels: Record<string, string>; capacity: NodeHostCapacity; sealedSecrets: string; observation: NodeHostObservation; at: string }
  | { type: 'UpdateNodeHost'; hostId: number; name: string; labels: Record<string, string>; capacity: NodeHostCapacity; at: string }
  /** nodesOnHost: nodes placed on the host (a host in use is kept). */
  | { type: 'DeleteNodeHost'; hostId: number; nodesOnHost: number; at: string }
  | { type: 'RecordNodeHostCheck'; hostId: number; observation: NodeHostObservation; at: string }
  | { type: 'RecordClusterOrphansRemoved'; hostId: number; objects: ClusterOrphanObject[]; graceSeconds: number; at: string }
  | { type: 'RecordClusterObjectsLabelled'; hostId: number; objects: ClusterLabelledObject[]; deployment: string; at: string };

const sameObservation = (a: NodeHostObservation | undefined, b: NodeHostObservation) =>
  a !== undefined && a.reachable === b.reachable && a.engineVersion === b.engineVersion && a.runningNodes === b.runningNodes
  && sameFindings(a.kubernetes ?? null, b.kubernetes ?? null);

/** Field by field: events come back from jsonb with their keys in another order. */
const sameFindings = (a: KubernetesClusterFindings | null, b: KubernetesClusterFindings | null) =>
  a === null || b === null
    ? a === b
    : a.version === b.version && a.nodes?.total === b.nodes?.total && a.nodes?.ready === b.nodes?.ready && (a.nodes === null) === (b.nodes === null)
      && a.missingPermissions.map((m) => `${m.verb} ${m.resource}`).join() === b.missingPermissions.map((m) => `${m.verb} ${m.resource}`).join();

export const nodeHosts: Decider<NodeHostState, NodeHostCommand, NodeHostEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(s, e) {
    switch (e.type) {
      case 'NodeHostRegistered':
        return { status: 'active', hostId: e.data.hostId, name: e.data.name, observation: e.data.observation };
      case 'NodeHostUpdated':
        return { ...s, name: e.data.name };
      case 'NodeHostDeleted':
        return { ...s, status: 'deleted' };
      case 'NodeHostObserved':
        return { ...s, observation: e.data.observation };
      case 'NodeHostOrphansRemoved':
      case 'NodeHostObjectsLabelled':
        return s;
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'RegisterNodeHost':
        if (s.status !== 'none') throw new ConflictError(`Node host ${c.hostId} exists already.`);
        return [{ type: 'NodeHostRegistered', data: { hostId: c.hostId, name: c.name, address: c.address, labels: c.labels, capacity: c.capacity, sealedSecrets: c.sealedSecrets, observation: c.observation, at: c.at } }];
      case 'UpdateNodeHost':
        if (s.status !== 'active') throw new NotFoundError('Host', c.hostId);
        return [{ type: 'NodeHostUpdated', data: { hostId: c.hostId, name: c.name, labels: c.labels, capacity: c.capacity, at: c.at } }];
      case 'DeleteNodeHost':
        if (s.status !== 'active') throw new NotFoundError('Host', c.hostId);
        if (c.nodesOnHost > 0) throw new ConflictError(`Host ${s.name} still has ${c.nodesOnHost} node(s); delete them first.`);
        return [{ type: 'NodeHostDeleted', data: { hostId: c.hostId, name: s.name!, at: c.at } }];
      case 'RecordNodeHostCheck':
        if (s.status !== 'active' || sameObservation(s.observation, c.observation)) return [];
        return [{ type: 'NodeHostObserved', data: { hostId: c.hostId, name: s.name!, observation: c.observation, at: c.at } }];
      case 'RecordClusterOrphansRemoved':
        // Removed already: recorded even for a host deleted since (the audit says what went).
        if (s.status === 'none' || c.objects.length === 0) return [];
        return [{ type: 'NodeHostOrphansRemoved', data: { hostId: c.hostId, name: s.name!, objects: c.objects, graceSeconds: c.graceSeconds, at: c.at } }];
      case 'RecordClusterObjectsLabelled':
        // Labelled already: recorded as the removals are.
        if (s.status === 'none' || c.objects.length === 0) return [];
        return [{ type: 'NodeHostObjectsLabelled', data: { hostId: c.hostId, name: s.name!, objects: c.objects, deployment: c.deployment, at: c.at } }];
      default:
        return assertNever(c);
    }
  },
};
