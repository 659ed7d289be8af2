// What the hosts registry needs from the outside: a probe of a Docker Engine over mutual TLS.
// The adapter is adapters/engines/remoteDockerHost.ts.
import type { ClusterLabelledObject, ClusterOrphanObject, KubernetesHostSettings, NodeHostKind, NodeHostObservation } from './nodeHosts.ts';
export type { ClusterLabelledObject, ClusterOrphanObject } from './nodeHosts.ts';

/**
 * How to reach a host's engine; clientKey is the secret (opened from the sealed text only here):
 * the Docker client key, or a kubernetes host's bearer token (url: its API server).
 */
export interface NodeHostConnection {
  url: string;
  caCertificate: string;
  clientCertificate: string;
  clientKey: string;
  name?: string;
  kind?: NodeHostKind;
  kubernetes?: KubernetesHostSettings;
  /** kubernetes: the address of its NodePorts. */
  externalIp?: string;
}

/** An observation, with the problems a kubernetes check names by field (namespace, storageClass, credentials, server); not recorded. */
/** The observation recorded (without the problems list). */
export const observationOf = (c: NodeHostCheck): NodeHostObservation => ({ reachable: c.reachable, engineVersion: c.engineVersion, runningNodes: c.runningNodes, reason: c.reason, ...(c.kubernetes ? { kubernetes: c.kubernetes } : {}) });

export type NodeHostCheck = NodeHostObservation & { problems?: { field: string; message: string }[] };

export interface NodeHostProbe {
  /** Ping, version and the count of running lnm nodes (a cluster: its check of kubernetesCluster.ts); never throws: an unreachable host is an observation with its reason. */
  probe(connection: NodeHostConnection): Promise<NodeHostCheck>;
}

/** The placement of a node: on the local engine (null) or a registered host. */
export interface NodeHostDirectory {
  connection(hostId: number): Promise<(NodeHostConnection & { externalIp: string; name: string }) | null>;
}

/**
 * The NodePorts of a node placed on a Kubernetes cluster, taken there before the node is recorded
 * (docs/kubernetes.md, "Default ports across deployments"): the node's Service is made with them,
 * so no other deployment sharing the cluster can take them between the create and the start.
 */
export interface ClusterNodePorts {
  /**
   * Makes node `nodeKey`'s Service on cluster `hostId` with `ports`. Ports the cluster has given to
   * another Service are a NodeStartFailedError 'port-in-use' whose details name them (`ports`);
   * release() removes the Service (a node that could not be recorded).
   */
  reserve(hostId: number, nodeKey: string, ports: number[]): Promise<{ release(): Promise<void> }>;
  /**
   * Removes from cluster `hostId` the objects this deployment made for nodes never recorded (a
   * service killed between reserve() and the record): those whose node key `recorded` answers
   * false for, made more than `olderThanMs` ago; never a claim. Returns what it removed, and what
   * it could not list or remove, in words.
   */
  removeOrphans(hostId: number, recorded: (nodeKey: string) => Promise<boolean>, olderThanMs: number): Promise<{ removed: ClusterOrphanObject[]; failed: string[] }>;
  /**
   * Labels with this deployment's id the objects on cluster `hostId` of this prefix that carry no
   * deployment label at all (made before it) and whose node key `recorded` answers true for: a
   * label-only replace of each (its resourceVersion and uid as listed), never one with another
   * deployment's id. Returns what it labelled (and the id), and what it could not list or label, in words.
   */
  labelUnlabelled(hostId: number, recorded: (nodeKey: string) => Promise<boolean>): Promise<{ labelled: ClusterLabelledObject[]; deployment: string | null; failed: string[] }>;
  /**
   * Reads only: a NodeStartFailedError 'already-running' (409) when one of node `nodeKey`'s objects
   * on cluster `hostId` carries another deployment's id (`what`: the operation asked, for its message).
   */
  assertNotOthers(hostId: number, nodeKey: string, what: string): Promise<void>;
}
