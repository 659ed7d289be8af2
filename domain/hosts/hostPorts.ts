// What the hosts registry needs from the outside: a probe of a Docker Engine over mutual TLS.
// The adapter is adapters/engines/remoteDockerHost.ts.
import type { NodeHostObservation } from './nodeHosts.ts';

/** How to reach a host's engine; clientKey is the secret (opened from the sealed text only here). */
export interface NodeHostConnection {
  url: string;
  caCertificate: string;
  clientCertificate: string;
  clientKey: string;
}

export interface NodeHostProbe {
  /** Ping, version and the count of running lnm nodes; never throws: an unreachable host is an observation with its reason. */
  probe(connection: NodeHostConnection): Promise<NodeHostObservation>;
}

/** The placement of a node: on the local engine (null) or a registered host. */
export interface NodeHostDirectory {
  connection(hostId: number): Promise<(NodeHostConnection & { externalIp: string; name: string }) | null>;
}
