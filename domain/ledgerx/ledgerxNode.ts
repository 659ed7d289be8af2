// The ledgerX platform's nodes (Hyperledger Fabric-X): an orderer group is one orderer party of
// one organization, made of four role nodes (router, batcher, consenter, assembler), each its own
// node record and process (`arma <role>`). The group record holds the ports of all four and the
// ids of its roles; a start, stop or restart of the group acts on its roles, in Fabric-X's start
// order (consenter, batcher, assembler, router).
//
// Ports: each role has a gRPC port and a monitoring port (plain HTTP: /metrics, /healthz). SPEC's
// layout: monitoring = gRPC base + 100 + role offset (router 0, batcher 1, consenter 2, assembler 3),
// the first free port from there, skipping the group's own gRPC ports.

export const LEDGERX_ORDERER_ROLES = ['router', 'batcher', 'consenter', 'assembler'] as const;
export type LedgerXOrdererRole = (typeof LEDGERX_ORDERER_ROLES)[number];
/** Fabric-X's start order: consensus first, the router (what clients reach) last. */
export const LEDGERX_ORDERER_START_ORDER: readonly LedgerXOrdererRole[] = ['consenter', 'batcher', 'assembler', 'router'];

export type LedgerXRoleNodeType = 'LEDGERX_ORDERER_ROUTER' | 'LEDGERX_ORDERER_BATCHER' | 'LEDGERX_ORDERER_CONSENTER' | 'LEDGERX_ORDERER_ASSEMBLER';
export type LedgerXNodeType = 'LEDGERX_ORDERER_GROUP' | LedgerXRoleNodeType;

export const roleNodeType = (role: LedgerXOrdererRole): LedgerXRoleNodeType => `LEDGERX_ORDERER_${role.toUpperCase()}` as LedgerXRoleNodeType;

/** Default gRPC base of an orderer group (Fabric-X's samples: router 7050 .. assembler 7053). */
export const LEDGERX_ORDERER_GRPC_BASE = 7050;
/** The same on a Kubernetes cluster, where the ports are NodePorts (30000-32767): router 32050 .. assembler 32053, monitoring 32150..32153. */
export const LEDGERX_ORDERER_CLUSTER_GRPC_BASE = 32050;
/** Monitoring port offset from the gRPC base, per role (SPEC "Monitoring port layout"). */
export const LEDGERX_ORDERER_MONITORING_OFFSET: Record<LedgerXOrdererRole, number> = { router: 100, batcher: 101, consenter: 102, assembler: 103 };

export interface LedgerXOrdererGroupConfig {
  /** The address other parties and clients reach the roles at (also in the genesis block). */
  externalIp: string;
  routerPort: number;
  batcherPort: number;
  consenterPort: number;
  assemblerPort: number;
  routerMonitoringPort: number;
  batcherMonitoringPort: number;
  consenterMonitoringPort: number;
  assemblerMonitoringPort: number;
  /** Node ids of the roles. */
  roleNodeIds: Record<LedgerXOrdererRole, number>;
  /** The registered Kubernetes cluster its roles run on (docs/kubernetes.md); externalIp is then the cluster's node address. */
  hostId?: number;
}

export interface LedgerXRoleConfig {
  groupId: number;
  role: LedgerXOrdererRole;
  externalIp: string;
  grpcPort: number;
  monitoringPort: number;
  /** The cluster the role's pod runs on (its group's hostId): the ports are NodePorts there. */
  hostId?: number;
}

interface LedgerXNodeCommon {
  nodeId: number;
  name: string;
  platform: 'LEDGERX';
  organizationId: number;
  mspId: string;
  /** Networks are joined later (POST /networks/ledgerx/{id}/orderer-groups/{nodeId}/join). */
  networkId: null;
  client: 'fabric-x';
  /** process (local programs) or docker (images fabric-x-arma, fabric-x-committer on the host network; on a cluster, config.hostId: the same images in pods). */
  engine: 'process' | 'docker';
  resources: null;
  at: string;
}

export interface LedgerXOrdererGroupCreatedData extends LedgerXNodeCommon {
  nodeType: 'LEDGERX_ORDERER_GROUP';
  role: 'orderer-group';
  config: LedgerXOrdererGroupConfig;
}

export interface LedgerXRoleNodeCreatedData extends LedgerXNodeCommon {
  nodeType: LedgerXRoleNodeType;
  role: LedgerXOrdererRole;
  config: LedgerXRoleConfig;
  /** Keys of the organization's key provider, issued by its signing and TLS CAs. */
  identityKeyId: number;
  tlsKeyId: number;
}

export type LedgerXNodeCreatedData = LedgerXOrdererGroupCreatedData | LedgerXRoleNodeCreatedData | LedgerXCommitterGroupCreatedData | LedgerXCommitterRoleNodeCreatedData;

export const isLedgerXGroup = (n: { nodeType: string }): boolean => n.nodeType === 'LEDGERX_ORDERER_GROUP';

/** SPEC: http://<externalIp>:<monitoringPort>/metrics, none when either is zero/empty. */
export function metricsUrl(externalIp: string | null | undefined, port: number | null | undefined): string | undefined {
  if (!externalIp || externalIp === '0.0.0.0' || !port) return undefined;
  return `http://${externalIp}:${port}/metrics`;
}

/** The roles' ports of a group config. */
export function rolePorts(c: LedgerXOrdererGroupConfig, role: LedgerXOrdererRole): { grpcPort: number; monitoringPort: number } {
  return { grpcPort: c[`${role}Port`], monitoringPort: c[`${role}MonitoringPort`] };
}

// The committer group (LEDGERX_COMMITTER): one Fabric-X committer of one organization, five role
// nodes (`committer start <service>`): sidecar, coordinator, validator-committer (vc), verifier,
// query-service; monitoring = gRPC base + 100..104 (SPEC). Its vc and query services keep state in
// PostgreSQL: a database and user the service made in its own PostgreSQL (the password is derived
// from the service's key encryption key, never stored or shown).
export const LEDGERX_COMMITTER_ROLES = ['sidecar', 'coordinator', 'vc', 'verifier', 'query'] as const;
export type LedgerXCommitterRole = (typeof LEDGERX_COMMITTER_ROLES)[number];
/** Start order: the services the coordinator calls first, the sidecar (which pulls blocks) last. */
export const LEDGERX_COMMITTER_START_ORDER: readonly LedgerXCommitterRole[] = ['vc', 'verifier', 'query', 'coordinator', 'sidecar'];
export const LEDGERX_COMMITTER_GRPC_BASE = 7350;
/** The same on a Kubernetes cluster, where the ports are NodePorts: sidecar 32350 .. query 32354, monitoring 32450..32454. */
export const LEDGERX_COMMITTER_CLUSTER_GRPC_BASE = 32350;
export const LEDGERX_COMMITTER_MONITORING_OFFSET: Record<LedgerXCommitterRole, number> = { sidecar: 100, coordinator: 101, vc: 102, verifier: 103, query: 104 };
export type LedgerXCommitterRoleNodeType = 'LEDGERX_COMMITTER_SIDECAR' | 'LEDGERX_COMMITTER_COORDINATOR' | 'LEDGERX_COMMITTER_VC' | 'LEDGERX_COMMITTER_VERIFIER' | 'LEDGERX_COMMITTER_QUERY';
export const committerRoleNodeType = (role: LedgerXCommitterRole): LedgerXCommitterRoleNodeType => `LEDGERX_COMMITTER_${role.toUpperCase()}` as LedgerXCommitterRoleNodeType;

export interface LedgerXCommitterDatabase {
  host: string;
  port: number;
  name: string;
  user: string;
  /** Given at creation as a connection string: the service neither made nor drops it. */
  external?: boolean;
  /** external: its password sealed with the key encryption key (context ledgerXDatabasePasswordContext); never shown. */
  sealedPassword?: string;
}

export const ledgerXDatabasePasswordContext = (groupId: number) => `ledgerx-committer-database-${groupId}`;

export interface LedgerXCommitterGroupConfig {
  externalIp: string;
  sidecarPort: number; coordinatorPort: number; vcPort: number; verifierPort: number; queryPort: number;
  sidecarMonitoringPort: number; coordinatorMonitoringPort: number; vcMonitoringPort: number; verifierMonitoringPort: number; queryMonitoringPort: number;
  database: LedgerXCommitterDatabase;
  roleNodeIds: Record<LedgerXCommitterRole, number>;
  /** The registered Kubernetes cluster its services run on (docs/kubernetes.md); externalIp is then the cluster's node address. */
  hostId?: number;
}

export interface LedgerXCommitterRoleConfig {
  groupId: number;
  role: LedgerXCommitterRole;
  externalIp: string;
  grpcPort: number;
  monitoringPort: number;
  /** The group's gRPC ports, for the services that call one another. */
  groupPorts: Record<LedgerXCommitterRole, number>;
  database: LedgerXCommitterDatabase;
  /** The organization's admin key: the sidecar's client identity towards the orderers. */
  clientKeyId: number;
  /** The cluster the service's pod runs on (its group's hostId): the ports are NodePorts there, and the services reach one another at externalIp. */
  hostId?: number;
}

/**
 * Where a ledgerX node's ports answer, for the service and for the node's own group: this machine's
 * loopback, or for a node placed on a Kubernetes cluster (hostId) the cluster's node address, where
 * its ports are NodePorts (no cluster DNS).
 */
export const ledgerXNodeHost = (c: { hostId?: number; externalIp?: string }): string => (c.hostId && c.externalIp ? c.externalIp : '127.0.0.1');

/** Loopback names and addresses: a pod of a cluster reaches its own loopback there, never this machine's. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || /^127\./.test(h) || h === '::1' || h === '0:0:0:0:0:0:0:1' || h === '0.0.0.0' || h === '::' || h.startsWith('/');
}

export interface LedgerXCommitterGroupCreatedData extends LedgerXNodeCommon {
  nodeType: 'LEDGERX_COMMITTER';
  role: 'committer';
  config: LedgerXCommitterGroupConfig;
}

export interface LedgerXCommitterRoleNodeCreatedData extends LedgerXNodeCommon {
  nodeType: LedgerXCommitterRoleNodeType;
  role: LedgerXCommitterRole;
  config: LedgerXCommitterRoleConfig;
}
