// What a consortium node (a Fabric 2.5 peer or orderer of one organization) is, as recorded in
// its NodeCreated event (stream node-<id>, the same stream and lifecycle events as every node).
// Its identity and TLS keys are ordinary keys of the organization's key provider (/keys,
// purposes IDENTITY and TLS), issued by the organization's signing CA and TLS CA.

export type ConsortiumNodeType = 'CONSORTIUM_PEER' | 'CONSORTIUM_ORDERER';
export type ConsortiumNodeRole = 'peer' | 'orderer';

export interface ConsortiumPeerConfig {
  /** Address the node binds to (0.0.0.0 or 127.0.0.1). */
  listenAddress: string;
  /** Host name others reach it by; the certificates' CN and a SAN. */
  hostname: string;
  /** host:port advertised to clients and gossip (peer.gossip.externalEndpoint). */
  externalEndpoint: string;
  /** Extra SANs of its TLS certificate (DNS names and IP addresses). */
  domainNames: string[];
  /** gRPC (endorser, deliver, gateway, gossip). */
  port: number;
  /** Chaincode server callbacks (peer.chaincodeListenAddress). */
  chaincodePort: number;
  /** Operations: /healthz and Prometheus /metrics over plain HTTP. */
  operationsPort: number;
  /** The node host it runs on (docs/hosts.md); absent: the service's own machine. */
  hostId?: number;
  /** Where this service reaches its ports: its host's external address; absent: 127.0.0.1. */
  externalIp?: string;
  /** The Fabric release it runs (process engine: the programs of that release, adapters/consortium/fabricReleases.ts); absent on nodes made before releases were recorded and on docker nodes (the image's). */
  fabricVersion?: string;
}

export interface ConsortiumOrdererConfig {
  listenAddress: string;
  hostname: string;
  externalEndpoint: string;
  domainNames: string[];
  /** gRPC (broadcast, deliver, cluster). */
  port: number;
  /** Channel participation API (osnadmin), mutual TLS. */
  adminPort: number;
  operationsPort: number;
  hostId?: number;
  externalIp?: string;
  fabricVersion?: string;
}

export type ConsortiumNodeConfig = ConsortiumPeerConfig | ConsortiumOrdererConfig;

export interface ConsortiumNodeCreatedData {
  nodeId: number;
  name: string;
  platform: 'CONSORTIUM';
  nodeType: ConsortiumNodeType;
  role: ConsortiumNodeRole;
  organizationId: number;
  mspId: string;
  /** Networks a node joins later; a consortium node is created outside any network. */
  networkId: null;
  client: 'fabric';
  engine: 'process' | 'docker';
  config: ConsortiumNodeConfig;
  /** Keys of the organization's key provider: signing identity (OU peer/orderer) and TLS. */
  identityKeyId: number;
  tlsKeyId: number;
  resources: { cpu?: string; memory?: string } | null;
  at: string;
}

/**
 * A chaincode server (chaincode as a service): the Node.js program of one chaincode package,
 * started in server mode with its package id and address; the peers reach it through the ccaas
 * external builder (connection.json of the package names `address`). A node of its own, started
 * by the lifecycle saga and watched by the health monitor like peers and orderers.
 */
export interface ConsortiumChaincodeServerConfig {
  listenAddress: string;
  /** host:port the peers dial (connection.json). */
  address: string;
  port: number;
  chaincodeId: number;
  chaincodeName: string;
  version: string;
  packageId: string;
  /** A Kubernetes cluster the server runs on (its Deployment-like StatefulSet and Service there, docs/kubernetes.md); absent: this machine. */
  hostId?: number;
  /** host:port where this service reaches a server on a cluster (its NodePort at the cluster's address). */
  externalAddress?: string;
  /** The peers dial it over mutual TLS (its keys: tlsKeyId, clientTlsKeyId of the node); absent: plain text. */
  tls?: boolean;
}

export interface ConsortiumChaincodeNodeCreatedData {
  nodeId: number;
  name: string;
  platform: 'CONSORTIUM';
  nodeType: 'CONSORTIUM_CHAINCODE';
  role: 'chaincode';
  /** The organization the server runs for (the first of the network's organizations the service holds). */
  organizationId: number;
  mspId: string;
  /** The network whose channel has the chaincode. */
  networkId: number;
  client: 'fabric';
  /** docker for an image source; for files, the engine the service runs nodes on. */
  engine: 'process' | 'docker';
  config: ConsortiumChaincodeServerConfig;
  /**
   * With config.tls: keys of the owner organization's provider, issued by its TLS CA: the
   * server's TLS certificate (its addresses in the SANs) and the client certificate the peers
   * present to it (in the ccaas package's connection.json, as Fabric reads it).
   */
  tlsKeyId?: number;
  clientTlsKeyId?: number;
  resources: null;
  at: string;
}

export const isChaincodeServer = (n: { role: string }): n is ConsortiumChaincodeNodeCreatedData => n.role === 'chaincode';

export const isOrdererConfig = (c: ConsortiumNodeConfig): c is ConsortiumOrdererConfig => 'adminPort' in c;

/** The node engine's key of a consortium node (directory, container name): node-<id>, the scheme of every node (evmNodeKey), one id space. */
export const consortiumNodeKey = (nodeId: number) => `node-${nodeId}`;
