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

/**
 * A SmartBFT channel's options when the request leaves them out: the SmartBFT section of Fabric
 * 3.1's sample configtx.yaml, and configtxgen's defaults (the SmartBFT library's) for the fields
 * the sample does not name. docs/consortium.md lists them.
 */
export const SMARTBFT_DEFAULTS = {
  requestBatchMaxCount: 100,
  requestBatchMaxBytes: 10 * 1024 * 1024,
  requestBatchMaxInterval: '200ms',
  incomingMessageBufferSize: 200,
  requestPoolSize: 100_000,
  requestForwardTimeout: '5s',
  requestComplainTimeout: '20s',
  requestAutoRemoveTimeout: '3m0s',
  // Fabric takes 0 as requestBatchMaxBytes (configtxgen writes 0); 10 KiB, the library's own default, refuses a 34 KB config update.
  requestMaxBytes: 10 * 1024 * 1024,
  viewChangeResendInterval: '5s',
  viewChangeTimeout: '20s',
  leaderHeartbeatTimeout: '1m0s',
  leaderHeartbeatCount: 10,
  collectTimeout: '1s',
  syncOnStart: false,
  speedUpViewChange: false,
} as const;

/** SmartBFT with n consenters tolerates f = floor((n - 1) / 3) faulty ones: 4 are needed for one. */
export const MIN_BFT_CONSENTERS = 4;
export const bftFaultsTolerated = (n: number) => Math.floor((n - 1) / 3);
/** The signatures a BFT block needs (Fabric's ComputeBFTQuorum): ceil((n + f + 1) / 2). */
export const bftQuorum = (n: number) => Math.ceil((n + bftFaultsTolerated(n) + 1) / 2);
/** The first Fabric release line whose orderers run SmartBFT. */
export const SMARTBFT_MIN_RELEASE = '3.0';
