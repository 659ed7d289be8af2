// How a create's record reads in the audit log: its start, each thing it made, its end; a failed
// one says at which step, why, and what it made, removed and left (ids only, never key material).
import { registerAuditDescriber } from '../audit/auditEntry.ts';
import type { RecordedEvent } from '../shared/eventStore.ts';

const d = (e: RecordedEvent) => e.data as Record<string, any>;
const base = (e: RecordedEvent) => ({ resourceType: 'creation', resourceId: String(d(e).creationId), resourceName: `${d(e).kind} ${d(e).name}` });

export function registerCreationAuditDescribers(): void {
  registerAuditDescriber('CreationStarted', (e) => ({ ...base(e), action: 'CREATE', details: { event: 'creation.started', kind: d(e).kind, name: d(e).name } }));
  registerAuditDescriber('CreationResourceMade', (e) => ({ ...base(e), action: 'UPDATE', details: { event: 'creation.made', step: d(e).step, resource: d(e).resource, id: d(e).id } }));
  registerAuditDescriber('CreationCompleted', (e) => ({ ...base(e), action: 'EXECUTE', details: { event: 'creation.completed', resourceId: d(e).resourceId } }));
  registerAuditDescriber('CreationFailed', (e) => ({
    ...base(e), action: 'EXECUTE', status: 'failed', errorMessage: String(d(e).message),
    details: { event: 'creation.failed', step: d(e).step, interrupted: d(e).interrupted, made: d(e).made, removed: d(e).removed, left: d(e).left },
  }));
  registerAuditDescriber('CreationUndone', (e) => ({
    ...base(e), action: 'DELETE', ...(d(e).left.length ? { status: 'failed', errorMessage: `${d(e).left.length} thing(s) could not be removed` } : {}),
    details: { event: 'creation.undone', removed: d(e).removed, left: d(e).left },
  }));
}
