// The catalog of outbound webhook event types (SPEC.md "Outbound webhook events"): name,
// category, default severity, description, the `data` shape delivered, and the domain event it
// comes from (null: a type the catalog lists for subscriptions but no subsystem of this release
// produces yet: backups, chaincode, plugins, sharing, block and transaction feeds).
// `events` of a webhook is validated against these names; the envelope's `data` is built by
// picking the listed fields from the domain event, so internal fields (hashes, key handles)
// never leave the service and the shape stays stable within a major version.
import { publicEvents, type Severity } from '../shared/publicEvents.ts';

export type FieldType = 'string' | 'integer' | 'boolean' | 'string|null' | 'integer|null' | 'string[]' | 'object' | 'object[]';

export interface CatalogEntry {
  name: string;
  category: string;
  severity: Severity;
  description: string;
  /** Domain event type it is produced from, or null when nothing in this release produces it. */
  source: string | null;
  /** Field of `data` -> JSON type. */
  data: Record<string, FieldType>;
}

/** Fields whose value may sit under another key in the domain event. */
const aliases: Record<string, string[]> = { nodeName: ['name'], networkName: ['name'], userName: ['username'], organizationName: ['mspId', 'name'], keyName: ['name'], reason: ['failure', 'error'] };

const nodeRef = { nodeId: 'integer', nodeName: 'string', at: 'string' } as const;
const keyRef = { keyId: 'integer', at: 'string' } as const;

// [name, source domain event or null, data shape]; category, severity and description come from
// publicEvents for sourced types, from `extra` otherwise.
const sourced: Array<[string, Record<string, FieldType>]> = [
  ['NodeCreated', { ...nodeRef, networkId: 'integer|null', nodeType: 'string|null' }],
  ['NodeStarted', { ...nodeRef, startedAt: 'string' }],
  ['NodeStopped', nodeRef],
  ['NodeStartFailed', { ...nodeRef, reason: 'string' }],
  ['NodeDeleted', { ...nodeRef, networkId: 'integer|null' }],
  ['NodeDowntime', { nodeId: 'integer', nodeName: 'string', nodeType: 'string', lastHealthyAt: 'string|null', consecutiveFailures: 'integer', reason: 'string', at: 'string' }],
  ['NodeRecovered', { nodeId: 'integer', nodeName: 'string', nodeType: 'string', downSince: 'string|null', at: 'string' }],
  ['NodeConfigChanged', { ...nodeRef, before: 'object', after: 'object' }],
  ['NetworkCreated', { networkId: 'integer', networkName: 'string', at: 'string' }],
  ['NetworkUpdated', { networkId: 'integer', networkName: 'string|null', channelName: 'string|null', configSequence: 'integer|null', at: 'string' }],
  ['ChannelCreated', { networkId: 'integer', channelName: 'string', at: 'string' }],
  ['NetworkOrganizationJoined', { networkId: 'integer', organizationId: 'integer', mspId: 'string', channelName: 'string', at: 'string' }],
  ['AnchorPeersUpdated', { networkId: 'integer', mspId: 'string', anchorPeers: 'object[]', configSequence: 'integer', blockNumber: 'integer', at: 'string' }],
  ['NetworkDeleted', { networkId: 'integer', networkName: 'string', at: 'string' }],
  ['OrganizationCreated', { organizationId: 'integer', organizationName: 'string', at: 'string' }],
  ['OrganizationUpdated', { organizationId: 'integer', at: 'string' }],
  ['OrganizationDeleted', { organizationId: 'integer', at: 'string' }],
  ['CertificateExpiring', { ...keyRef, keyName: 'string', serialNumber: 'string', notAfter: 'string' }],
  ['CertificateExpired', { ...keyRef, keyName: 'string', serialNumber: 'string', notAfter: 'string' }],
  ['CertificateRenewed', { ...keyRef, serialNumber: 'string', previousSerialNumber: 'string|null', notAfter: 'string' }],
  ['CertificateAutoRenewed', { ...keyRef, serialNumber: 'string', previousSerialNumber: 'string|null', notAfter: 'string' }],
  ['CertificateRenewalFailed', { ...keyRef, keyName: 'string', reason: 'string' }],
  ['CertificateRevoked', { caKeyId: 'integer', keyId: 'integer|null', serialNumber: 'string', reason: 'string', at: 'string' }],
  ['KeyCreated', { ...keyRef, keyName: 'string', algorithm: 'string', providerId: 'integer', organizationId: 'integer|null' }],
  ['KeyRotated', keyRef],
  ['KeyDeleted', { ...keyRef, keyName: 'string' }],
  ['UnauthorizedAccessDetected', { userName: 'string|null', ip: 'string|null', failures: 'integer', lockedUntil: 'string|null', at: 'string' }],
  ['ApiKeyCreated', { apiKeyId: 'integer', userId: 'integer', name: 'string', scopes: 'string[]', expiresAt: 'string|null', at: 'string' }],
  ['ApiKeyRevoked', { apiKeyId: 'integer', userId: 'integer', name: 'string', reason: 'string', at: 'string' }],
  ['ApiKeyExpired', { apiKeyId: 'integer', userId: 'integer', name: 'string', at: 'string' }],
  ['UserCreated', { userId: 'integer', userName: 'string', role: 'string', at: 'string' }],
  ['UserDeleted', { userId: 'integer', userName: 'string', role: 'string', at: 'string' }],
  ['UserRoleChanged', { userId: 'integer', userName: 'string', from: 'string', to: 'string', at: 'string' }],
  ['OidcSignInSucceeded', { userId: 'integer', userName: 'string', issuer: 'string', subject: 'string', role: 'string', created: 'boolean', at: 'string' }],
  ['OidcSignInFailed', { stage: 'string', reason: 'string', message: 'string', issuer: 'string', at: 'string' }],
  ['DiskSpaceWarningRaised', { path: 'string', usedPercent: 'integer', thresholdPercent: 'integer', freeBytes: 'integer', totalBytes: 'integer', at: 'string' }],
  ['CpuHighDetected', { usedPercent: 'integer', thresholdPercent: 'integer', at: 'string' }],
  ['MemoryHighDetected', { usedPercent: 'integer', thresholdPercent: 'integer', at: 'string' }],
  ['SlowQueryDetected', { durationMs: 'integer', budgetMs: 'integer', query: 'string', at: 'string' }],
  ['BlockObserved', { networkId: 'integer', blockNumber: 'integer', blockHash: 'string', transactionCount: 'integer', at: 'string' }],
  ['TransactionCommitted', { networkId: 'integer', blockNumber: 'integer', transactionHash: 'string', at: 'string' }],
  ['BackupRequested', { backupId: 'integer', backupName: 'string', targetId: 'integer', targetName: 'string', nodeId: 'integer|null', scheduleId: 'integer|null', at: 'string' }],
  ['BackupCompleted', { backupId: 'integer', backupName: 'string', targetId: 'integer', targetName: 'string', startedAt: 'string|null', completedAt: 'string', durationMs: 'integer', snapshotId: 'string', dataAdded: 'integer', totalSize: 'integer', files: 'integer', at: 'string' }],
  ['BackupFailed', { backupId: 'integer', backupName: 'string', targetId: 'integer', targetName: 'string', startedAt: 'string|null', completedAt: 'string', durationMs: 'integer|null', error: 'string', at: 'string' }],
  ['BackupTargetConnectionFailed', { targetId: 'integer', name: 'string', reason: 'string', at: 'string' }],
  ['ChaincodeDeployed', { chaincodeId: 'integer', networkId: 'integer', name: 'string', version: 'string', sequence: 'integer', packageId: 'string', txId: 'string|null', blockNumber: 'integer|null', at: 'string' }],
  ['ChaincodeUpgraded', { chaincodeId: 'integer', networkId: 'integer', name: 'string', version: 'string', sequence: 'integer', packageId: 'string', txId: 'string|null', blockNumber: 'integer|null', at: 'string' }],
  ['PluginInstalled', { name: 'string', at: 'string' }],
  ['PluginEnabled', { name: 'string', at: 'string' }],
  ['PluginDisabled', { name: 'string', at: 'string' }],
  ['ChaincodeInvoked', { chaincodeId: 'integer', networkId: 'integer', name: 'string', version: 'string', function: 'string', mspId: 'string', txId: 'string', validationCode: 'string|null', blockNumber: 'integer|null', at: 'string' }],
  ['ProposalShared', { peerId: 'string', resourceType: 'string', resourceId: 'string', at: 'string' }],
  ['ProposalReceived', { peerId: 'string', resourceType: 'string', resourceId: 'string', at: 'string' }],
  ['SignatureShared', { peerId: 'string', resourceType: 'string', resourceId: 'string', at: 'string' }],
  ['SignatureReceived', { peerId: 'string', resourceType: 'string', resourceId: 'string', at: 'string' }],
  ['NetworkShared', { peerId: 'string', resourceType: 'string', resourceId: 'string', at: 'string' }],
  ['SharedNetworkReceived', { peerId: 'string', resourceType: 'string', resourceId: 'string', at: 'string' }],
  ['ChaincodeShared', { peerId: 'string', resourceType: 'string', resourceId: 'string', at: 'string' }],
  ['SharedChaincodeReceived', { peerId: 'string', resourceType: 'string', resourceId: 'string', at: 'string' }],
];

/** Types no subsystem of this release produces from a domain event (they are still subscribable). */
const unsourced: CatalogEntry[] = [];

export const eventCatalog: readonly CatalogEntry[] = [
  ...sourced.map(([source, data]): CatalogEntry => {
    const p = publicEvents[source];
    if (!p) throw new Error(`publicEvents has no entry for ${source}`);
    return { ...p, source, data };
  }),
  ...unsourced,
].sort((a, b) => a.category.localeCompare(b.category) || a.name.localeCompare(b.name));

const byName = new Map(eventCatalog.map((e) => [e.name, e]));
const bySource = new Map(eventCatalog.filter((e) => e.source).map((e) => [e.source!, e]));

export const catalogEntry = (name: string): CatalogEntry | null => byName.get(name) ?? null;
export const catalogEntryOfDomainEvent = (domainType: string): CatalogEntry | null => bySource.get(domainType) ?? null;
/** Domain event types that produce a webhook event. */
export const deliverableDomainEvents: readonly string[] = [...bySource.keys()];

/** The envelope's `data`: the catalog's fields picked from the domain event (missing ones are null). */
export function publicData(entry: CatalogEntry, data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of Object.keys(entry.data)) {
    const keys = [field, ...(aliases[field] ?? [])];
    const k = keys.find((key) => data[key] !== undefined);
    out[field] = k === undefined ? null : data[k];
  }
  return out;
}
