// How an event reads in the audit log. The audit log is a view of the event store: every
// state change is an entry through its own event; denied requests, failed logins and
// sensitive reads are recorded as events of their own (AccessDenied, LoginFailed, ...).
import type { RecordedEvent, JsonValue } from '../shared/eventStore.ts';
import { WITHHELD_EVENT_TYPE } from '../shared/eventChain.ts';
import { maskHeaders } from '../shared/secretHeaders.ts';

export type AuditStatus = 'success' | 'failed' | 'denied';

export interface AuditFields {
  action: string;
  resourceType: string;
  resourceId: string | null;
  resourceName: string | null;
  status: AuditStatus;
  errorMessage: string | null;
  reason: string | null;
  before: JsonValue | null;
  after: JsonValue | null;
  details: JsonValue | null;
}

export type AuditDescriber = (e: RecordedEvent) => Partial<AuditFields> | null;
type Describer = AuditDescriber;

const SECRET_KEY = /password|secret|token|private|keyhash|passphrase|unseal|credential/i;

/** Drops every field whose name looks secret, at any depth; custom header values are masked (events saved before they were sealed hold them in clear). */
export function redactSecrets(value: unknown): JsonValue {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value && typeof value === 'object') {
    // fromEntries defines own properties: a key named __proto__ stays a key, it does not set the prototype.
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !SECRET_KEY.test(k))
        .map(([k, v]) => [k, k === 'customHeaders' && v && typeof v === 'object' && !Array.isArray(v) ? maskHeaders(v as Record<string, string>) : redactSecrets(v)]),
    ) as JsonValue;
  }
  return (value ?? null) as JsonValue;
}

const str = (v: unknown) => (v === undefined || v === null ? null : String(v));
/** What a cluster sweep removed: objects of nodes never recorded, copy-helper or node-command pods that ended (kind Pod), or both. */
const orphanWhat = (objects: unknown) => {
  const kinds = new Set((Array.isArray(objects) ? objects : []).map((o) => ((o as { kind?: string }).kind === 'Pod' ? 'pod' : 'node')));
  const said = [kinds.has('node') || kinds.size === 0 ? 'objects of nodes never recorded' : '', kinds.has('pod') ? 'copy-helper pods of backups or restores, or one-off node-command pods, that ended' : ''].filter(Boolean);
  return said.join(' and ');
};

/** Events that are bookkeeping, not actions anyone took (and withheld stubs, which have no content). */
const internal = new Set<string>(['NameClaimed', 'NameReleased', 'BlockObserved', 'TransactionCommitted', WITHHELD_EVENT_TYPE]);

/**
 * Events that exist only for the audit log: they record who did, tried or read what, and change
 * no state. They are what a backup leaves out when the audit setting include_in_backups is false
 * (as hash-only stubs, see RecordedEvent.withheld), less any type a read model is rebuilt from
 * (auditOnlyTypesToWithhold): LoginSucceeded and OidcSignInSucceeded give users their last_login_at, so they are kept.
 */
export const AUDIT_ONLY_EVENT_TYPES = ['AccessDenied', 'RequestFailed', 'RequestSucceeded', 'SensitiveRead', 'LoginFailed', 'UnauthorizedAccessDetected', 'LoginSucceeded', 'LoggedOut', 'OidcSignInSucceeded', 'OidcSignInFailed'] as const;

/** The audit-only types no read model needs, given the types the read models handle ('*' = every type but these). */
export function auditOnlyTypesToWithhold(handled: Iterable<string>): string[] {
  const needed = new Set(handled);
  return AUDIT_ONLY_EVENT_TYPES.filter((t) => !needed.has(t));
}

const describers: Record<string, Describer> = {
  UserCreated: (e) => ({ action: 'CREATE', resourceType: 'user', resourceId: str(e.data.userId), resourceName: str(e.data.username), after: { username: e.data.username, role: e.data.role, email: e.data.email } }),
  UserUpdated: (e) => ({ action: 'UPDATE', resourceType: 'user', resourceId: str(e.data.userId), resourceName: str((e.data.after as { username?: string })?.username) }),
  UserPasswordChanged: (e) => ({ action: 'UPDATE', resourceType: 'user', resourceId: str(e.data.userId), details: { change: 'password' } }),
  UserRoleChanged: (e) => ({ action: 'permission_changed', resourceType: 'user', resourceId: str(e.data.userId), resourceName: str(e.data.username), before: { role: e.data.from }, after: { role: e.data.to } }),
  UserDeleted: (e) => ({ action: 'DELETE', resourceType: 'user', resourceId: str(e.data.userId), resourceName: str(e.data.username), before: { username: e.data.username, role: e.data.role } }),
  ApiKeyCreated: (e) => ({ action: 'CREATE', resourceType: 'api_key', resourceId: str(e.data.apiKeyId), resourceName: str(e.data.name), after: { userId: e.data.userId, scopes: e.data.scopes, expiresAt: e.data.expiresAt, displayPrefix: e.data.displayPrefix } }),
  ApiKeyRevoked: (e) => ({ action: 'API_KEY_REVOKE', resourceType: 'api_key', resourceId: str(e.data.apiKeyId), resourceName: str(e.data.name), reason: str(e.data.reason) }),
  ApiKeyExpired: (e) => ({ action: 'UPDATE', resourceType: 'api_key', resourceId: str(e.data.apiKeyId), resourceName: str(e.data.name), details: { change: 'expired' } }),
  SettingsUpdated: () => ({ action: 'UPDATE', resourceType: 'settings', resourceId: 'general', resourceName: 'settings' }),
  AuditSettingsUpdated: () => ({ action: 'UPDATE', resourceType: 'settings', resourceId: 'audit', resourceName: 'audit settings' }),
  LoginSucceeded: (e) => ({ action: 'LOGIN', resourceType: 'session', resourceId: null, resourceName: str(e.data.username) }),
  LoginFailed: (e) => ({ action: 'LOGIN', resourceType: 'session', resourceId: null, resourceName: str(e.data.username), status: 'failed', errorMessage: str(e.data.reason) }),
  OidcSignInSucceeded: (e) => ({ action: 'LOGIN', resourceType: 'session', resourceId: str(e.data.userId), resourceName: str(e.data.username), details: { method: 'oidc', issuer: e.data.issuer, subject: e.data.subject, role: e.data.role, created: e.data.created } }),
  OidcSignInFailed: (e) => ({ action: 'LOGIN', resourceType: 'session', resourceId: null, resourceName: str(e.data.username), status: 'failed', errorMessage: str(e.data.message), reason: str(e.data.reason), details: { method: 'oidc', stage: e.data.stage, reason: e.data.reason, issuer: e.data.issuer, ...(e.data.repeated ? { repeated: e.data.repeated } : {}) } }),
  LoggedOut: (e) => ({ action: 'LOGOUT', resourceType: 'session', resourceId: null, resourceName: str(e.data.username) }),
  UnauthorizedAccessDetected: (e) => ({ action: 'LOGIN', resourceType: 'session', resourceName: str(e.data.username), status: 'denied', errorMessage: `locked out after ${e.data.failures} failed attempts`, details: { ip: e.data.ip, lockedUntil: e.data.lockedUntil } }),
  AccessDenied: (e) => ({ action: str(e.data.action) ?? 'READ', resourceType: str(e.data.resourceType) ?? 'unknown', resourceId: str(e.data.resourceId), status: 'denied', errorMessage: str(e.data.message), details: { permission: e.data.permission, ...(e.data.code ? { code: e.data.code } : {}) } }),
  RequestFailed: (e) => ({ action: str(e.data.action) ?? 'UPDATE', resourceType: str(e.data.resourceType) ?? 'unknown', resourceId: str(e.data.resourceId), status: 'failed', errorMessage: str(e.data.message), details: { code: e.data.code } }),
  RequestSucceeded: (e) => ({ action: str(e.data.action) ?? 'UPDATE', resourceType: str(e.data.resourceType) ?? 'unknown', resourceId: str(e.data.resourceId), details: e.data.transactionId ? { transactionId: e.data.transactionId } : null }),
  AuditCheckpointSigned: (e) => ({ action: 'SIGN', resourceType: 'audit_checkpoint', resourceId: str(e.data.height), resourceName: `checkpoint at entry ${e.data.height}`, details: { height: e.data.height, headHash: e.data.headHash, signer: e.data.signer, ...(e.data.witness ? { witness: e.data.witness } : {}) } }),
  SensitiveRead: (e) => ({ action: str(e.data.action) ?? 'READ', resourceType: str(e.data.resourceType) ?? 'key', resourceId: str(e.data.resourceId), resourceName: str(e.data.resourceName), details: (e.data.details as JsonValue) ?? null }),
  // Every platform has its own network directory stream and describes its networks itself
  // (registerStreamAuditDescriber); a network event of any other stream is not an entry.
  NetworkCreated: () => null,
  NetworkDeleted: () => null,
  // A whole network stopped or restarted (domain/networks/networkOperation.ts): the nodes in start order.
  NetworkStopped: (e) => ({ action: 'STOP', resourceType: 'network', resourceId: str(e.data.networkId), resourceName: str(e.data.name), details: { platform: e.data.platform as JsonValue, nodeIds: e.data.nodeIds as JsonValue } }),
  NetworkRestarted: (e) => ({ action: 'RESTART', resourceType: 'network', resourceId: str(e.data.networkId), resourceName: str(e.data.name), details: { platform: e.data.platform as JsonValue, nodeIds: e.data.nodeIds as JsonValue } }),
  NodeCreated: (e) => ({ action: 'CREATE', resourceType: 'node', resourceId: str(e.data.nodeId), resourceName: str(e.data.name), after: { networkId: e.data.networkId, role: e.data.role, client: e.data.client, engine: e.data.engine, config: e.data.config as JsonValue } }),
  NodeStartRequested: (e) => ({ action: e.data.restart ? 'RESTART' : 'START', resourceType: 'node', resourceId: str(e.data.nodeId), resourceName: str(e.data.name) }),
  NodeStarted: (e) => ({ action: 'STARTED', resourceType: 'node', resourceId: str(e.data.nodeId), resourceName: str(e.data.name), details: { pid: e.data.pid, containerId: e.data.containerId } }),
  NodeStartFailed: (e) => ({ action: 'STARTED', resourceType: 'node', resourceId: str(e.data.nodeId), resourceName: str(e.data.name), status: 'failed', errorMessage: str(e.data.reason), details: { failure: e.data.failure } }),
  NodeStopRequested: (e) => ({ action: 'STOP', resourceType: 'node', resourceId: str(e.data.nodeId), resourceName: str(e.data.name) }),
  NodeStopped: (e) => ({ action: 'STOPPED', resourceType: 'node', resourceId: str(e.data.nodeId), resourceName: str(e.data.name) }),
  NodeConfigChanged: (e) => ({ action: 'UPDATE', resourceType: 'node', resourceId: str(e.data.nodeId), resourceName: str(e.data.name), before: e.data.before as JsonValue, after: e.data.after as JsonValue }),
  NodeDeleted: (e) => ({ action: 'DELETE', resourceType: 'node', resourceId: str(e.data.nodeId), resourceName: str(e.data.name), ...(e.data.volume ? { details: { volume: e.data.volume } } : {}) }),
  NodeDowntime: (e) => ({ action: 'DOWNTIME', resourceType: 'node', resourceId: str(e.data.nodeId), resourceName: str(e.data.nodeName), status: 'failed', errorMessage: str(e.data.reason), details: { lastHealthyAt: e.data.lastHealthyAt, consecutiveFailures: e.data.consecutiveFailures } }),
  EventStoreRestored: (e) => ({ action: 'RESTORE', resourceType: 'backup', resourceId: str(e.data.backupId), resourceName: str(e.data.snapshotId), details: { eventPosition: e.data.eventPosition, withheld: e.data.withheld, auditIncluded: e.data.auditIncluded } }),
  // Cluster objects of nodes never recorded, and copy-helper pods that ended, removed by the periodic cluster check (docs/kubernetes.md, "Orphans").
  NodeHostOrphansRemoved: (e) => ({ action: 'DELETE', resourceType: 'node_host', resourceId: str(e.data.hostId), resourceName: str(e.data.name), reason: `${orphanWhat(e.data.objects)}, older than ${e.data.graceSeconds} s, removed from the cluster`, details: { objects: e.data.objects as JsonValue, graceSeconds: e.data.graceSeconds as JsonValue } }),
  // Cluster objects of recorded nodes made before the deployment id, labelled with it by the periodic cluster check (docs/kubernetes.md, "Two deployments on one cluster").
  NodeHostObjectsLabelled: (e) => ({ action: 'UPDATE', resourceType: 'node_host', resourceId: str(e.data.hostId), resourceName: str(e.data.name), reason: `objects of recorded nodes made before the deployment id labelled lnm.deployment=${str(e.data.deployment)} on the cluster`, details: { objects: e.data.objects as JsonValue, deployment: e.data.deployment as JsonValue } }),
  NodeRecovered: (e) => ({ action: 'RECOVERY', resourceType: 'node', resourceId: str(e.data.nodeId), resourceName: str(e.data.nodeName), details: { downSince: e.data.downSince } }),
};

/** Other contexts add their describers here at start-up (organizations, keys, networks, nodes, ...). */
export function registerAuditDescriber(eventType: string, d: Describer): void {
  describers[eventType] = d;
}

/** Describers for one event type of one stream, ahead of the type's own: how each platform
 * describes the events of its directory stream (NetworkCreated is every platform's type). */
const streamDescribers = new Map<string, Describer>();
export function registerStreamAuditDescriber(streamId: string, eventType: string, d: Describer): void {
  streamDescribers.set(`${streamId}\n${eventType}`, d);
}

const verbs: Array<[RegExp, string]> = [
  [/Created$|Added$|Imported$|Registered$|Installed$/, 'CREATE'],
  [/Deleted$|Removed$/, 'DELETE'],
  [/Started$|Stopped$|Restarted$|Deployed$|Rotated$|Renewed$|Revoked$|Executed$|Proposed$|Completed$|Failed$/, 'EXECUTE'],
  [/Signed$/, 'SIGN'],
];

/** The audit fields of an event, or null for internal bookkeeping events. */
export function describeForAudit(e: RecordedEvent): AuditFields | null {
  if (internal.has(e.type)) return null;
  const describer = streamDescribers.get(`${e.streamId}\n${e.type}`) ?? (describers[e.type] as Describer | undefined);
  const d = describer?.(e);
  if (describer && d === null) return null;
  const prefix = e.streamId.replace(/-\d+$/, '').replace(/-[0-9a-f-]{36}$/, '');
  const base: AuditFields = {
    action: verbs.find(([re]) => re.test(e.type))?.[1] ?? 'UPDATE',
    resourceType: prefix.replace(/-/g, '_'),
    resourceId: /-(\d+)$/.exec(e.streamId)?.[1] ?? null,
    resourceName: str(e.data.name),
    status: 'success',
    errorMessage: null,
    reason: null,
    before: e.data.before === undefined ? null : redactSecrets(e.data.before),
    after: e.data.after === undefined ? null : redactSecrets(e.data.after),
    details: null,
  };
  const merged = { ...base, ...(d ?? {}) } as AuditFields;
  merged.before = merged.before === null ? null : redactSecrets(merged.before);
  merged.after = merged.after === null ? null : redactSecrets(merged.after);
  merged.details = merged.details === null ? null : redactSecrets(merged.details);
  return merged;
}
