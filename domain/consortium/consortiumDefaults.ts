// Defaults of a new consortium node: Fabric's documented ports (core.yaml, orderer.yaml) as the
// start of the search for free ones, and its names derived from its organization's domain.

export const PEER_DEFAULT_PORTS = { port: 7051, chaincodePort: 7052, operationsPort: 9443 } as const;
export const ORDERER_DEFAULT_PORTS = { port: 7050, adminPort: 7053, operationsPort: 8443 } as const;

export type PeerPortField = keyof typeof PEER_DEFAULT_PORTS;
export type OrdererPortField = keyof typeof ORDERER_DEFAULT_PORTS;

/** A name Fabric and DNS accept as a host label: the node name, lower case. */
export function nodeHostname(nodeName: string, domain: string): string {
  const label = nodeName.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '') || 'node';
  return `${label}.${domain}`;
}

/** The organization's domain from its signing CA's common name ("ca.<domain>"). */
export function domainOfSigningCa(commonName: string | null | undefined): string | null {
  return commonName && commonName.startsWith('ca.') ? commonName.slice(3) : null;
}
