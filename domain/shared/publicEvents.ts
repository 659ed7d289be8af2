// The public names of domain events: the catalog of SPEC.md's "Outbound webhook events" (name,
// category, default severity). Audit entries carry the name; webhooks and notifications (a later
// issue) deliver under it. Domain event types stay past-tense PascalCase inside the service.
export type Severity = 'info' | 'success' | 'warning' | 'critical';

export interface PublicEvent {
  name: string;
  category: string;
  severity: Severity;
  description: string;
}

const e = (name: string, category: string, severity: Severity, description: string): PublicEvent => ({ name, category, severity, description });

/** Domain event type -> public event. */
export const publicEvents: Readonly<Record<string, PublicEvent>> = {
  NodeCreated: e('node.created', 'Node', 'info', 'a node is registered'),
  NodeStarted: e('node.started', 'Node', 'success', 'a node becomes RUNNING'),
  NodeStopped: e('node.stopped', 'Node', 'warning', 'a node is intentionally stopped'),
  NodeDeleted: e('node.deleted', 'Node', 'info', 'a node row is removed'),
  NodeDowntime: e('node.downtime', 'Node', 'critical', 'a running node fails its heartbeat'),
  NodeRecovered: e('node.recovery', 'Node', 'success', 'a downed node recovers'),
  NodeConfigChanged: e('node.config_changed', 'Node', 'info', 'node configuration edited'),
  NetworkCreated: e('network.created', 'Network', 'info', 'network created'),
  NetworkUpdated: e('network.updated', 'Network', 'info', 'network config changes'),
  NetworkDeleted: e('network.deleted', 'Network', 'warning', 'network removed'),
  ChannelCreated: e('network.channel.created', 'Network', 'info', 'channel created'),
  NetworkOrganizationJoined: e('network.organization.joined', 'Network', 'info', 'organization joins a channel'),
  AnchorPeersUpdated: e('network.anchor_peer.updated', 'Network', 'info', 'anchor peers changed'),
  ChaincodeDeployed: e('blockchain.chaincode.deployed', 'Blockchain', 'success', 'chaincode commit succeeds'),
  ChaincodeUpgraded: e('blockchain.chaincode.upgraded', 'Blockchain', 'info', 'chaincode upgraded'),
  ChaincodeInvoked: e('blockchain.chaincode.invoked', 'Blockchain', 'info', 'invocation completes'),
  PluginInstalled: e('plugin.installed', 'Plugin', 'info', 'plugin installed'),
  PluginEnabled: e('plugin.enabled', 'Plugin', 'info', 'plugin enabled'),
  PluginDisabled: e('plugin.disabled', 'Plugin', 'warning', 'plugin disabled'),
  CertificateExpiring: e('certificate.expiring', 'Certificate', 'warning', 'certificate expires within 30 days'),
  CertificateExpired: e('certificate.expired', 'Certificate', 'critical', 'certificate past its end of validity'),
  CertificateRenewed: e('certificate.renewed', 'Certificate', 'success', 'manual renewal completed'),
  CertificateAutoRenewed: e('certificate.auto_renewed', 'Certificate', 'success', 'automatic renewal completed'),
  CertificateRenewalFailed: e('certificate.renewal_failed', 'Certificate', 'critical', 'renewal attempt errored'),
  UnauthorizedAccessDetected: e('security.unauthorized_access', 'Security', 'critical', 'failed authentication with a brute-force pattern'),
  ApiKeyCreated: e('security.api_key.created', 'Security', 'info', 'API key created'),
  ApiKeyRevoked: e('security.api_key.revoked', 'Security', 'warning', 'API key revoked'),
  UserRoleChanged: e('security.user.role_changed', 'Security', 'info', 'role assignment changed'),
  // Beyond SPEC's table (it says the catalog endpoint is the authoritative list):
  NodeStartFailed: e('node.start_failed', 'Node', 'critical', 'a node could not be started'),
  OrganizationCreated: e('network.organization.created', 'Network', 'info', 'organization created'),
  OrganizationUpdated: e('network.organization.updated', 'Network', 'info', 'organization changed'),
  OrganizationDeleted: e('network.organization.deleted', 'Network', 'warning', 'organization removed'),
  CertificateRevoked: e('certificate.revoked', 'Certificate', 'warning', 'a certificate was revoked by its CA'),
  KeyCreated: e('security.key.created', 'Security', 'info', 'a key was created or imported'),
  KeyRotated: e('security.key.rotated', 'Security', 'info', 'a key was rotated'),
  KeyDeleted: e('security.key.deleted', 'Security', 'warning', 'a key was deleted'),
  ApiKeyExpired: e('security.api_key.expired', 'Security', 'warning', 'an API key reached its expiry'),
  UserCreated: e('security.user.created', 'Security', 'info', 'user account created'),
  UserDeleted: e('security.user.deleted', 'Security', 'warning', 'user account deleted'),
  OidcSignInSucceeded: e('security.oidc.sign_in', 'Security', 'info', 'a user signed in through the OpenID provider'),
  OidcSignInFailed: e('security.oidc.sign_in_failed', 'Security', 'warning', 'an OpenID Connect sign-in or bearer token was refused, with the reason'),
  DiskSpaceWarningRaised: e('system.disk_space.warning', 'System', 'warning', 'disk usage crosses the configured threshold'),
  CpuHighDetected: e('performance.cpu.high', 'Performance', 'warning', 'CPU sustained above threshold'),
  MemoryHighDetected: e('performance.memory.high', 'Performance', 'warning', 'memory sustained above threshold'),
  SlowQueryDetected: e('performance.query.slow', 'Performance', 'warning', 'a query exceeds the slow-query budget'),
  BlockObserved: e('blockchain.block.received', 'Blockchain', 'info', 'a block is observed (high volume)'),
  ProposalShared: e('sharing.proposal.shared', 'P2P sharing', 'info', 'configuration proposal sent to a peer'),
  ProposalReceived: e('sharing.proposal.received', 'P2P sharing', 'info', 'configuration proposal received from a peer'),
  SignatureShared: e('sharing.signature.shared', 'P2P sharing', 'info', 'endorsement signature sent to a peer'),
  SignatureReceived: e('sharing.signature.received', 'P2P sharing', 'info', 'endorsement signature received from a peer'),
  NetworkShared: e('sharing.network.shared', 'P2P sharing', 'info', 'network share sent to a peer'),
  SharedNetworkReceived: e('sharing.network.received', 'P2P sharing', 'info', 'network share received from a peer'),
  ChaincodeShared: e('sharing.chaincode.shared', 'P2P sharing', 'info', 'chaincode share sent to a peer'),
  SharedChaincodeReceived: e('sharing.chaincode.received', 'P2P sharing', 'info', 'chaincode share received from a peer'),
  TransactionCommitted: e('blockchain.transaction.committed', 'Blockchain', 'info', 'a transaction is committed (high volume)'),
  BackupRequested: e('backup.scheduled', 'Backup', 'info', 'a backup is queued'),
  BackupCompleted: e('backup.success', 'Backup', 'success', 'a scheduled or on-demand backup completes'),
  BackupFailed: e('backup.failure', 'Backup', 'critical', 'a backup job errors'),
  BackupTargetConnectionFailed: e('system.s3.connection_issue', 'System', 'critical', 'an S3-backed backup target fails its connectivity check'),
};

export function publicEventOf(domainType: string): PublicEvent | null {
  return publicEvents[domainType] ?? null;
}
