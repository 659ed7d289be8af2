// A create that makes several things (an evm network's validator keys, then the network; an
// organization's CA and admin keys, then the organization; a consortium node's identity and TLS
// keys, then the node) is
// recorded as it goes, so that nothing it made is left unaccounted for: one stream per name it
// creates (`creation-<kind>-<name>`) holds, for each attempt, CreationStarted (written first: it
// claims the name, so a second create of that name is refused before it makes anything),
// CreationResourceMade for each thing made on the way (a key, ...), then CreationCompleted (written
// last) or CreationFailed (which step, why, what was made and what of it was removed). A create cut
// off by a stop of the service (kill -9) has a CreationStarted without an end: at the next start
// of the instance that ran it, it is failed as interrupted and what it made is removed.
// A create the console drives call by call (the consortium quick start) is recorded the same way:
// its calls carry the create's id, each use case records what it makes; the console ends it, and
// a failed one is undone by one call (CreationUndone: what was removed, what was left and why).
import { ConflictError } from '../shared/errors.ts';
import { assertNever, type Decider } from '../shared/decider.ts';

export type CreationKind = 'evm-network' | 'organization' | 'consortium-node' | 'consortium-quickstart' | 'ledgerx-quickstart';

/**
 * Kinds whose steps run call by call outside one request (the console drives the consortium quick
 * start; the ledgerX quick start runs after its answer): started and ended apart, their failure
 * keeps what they made, listed, for the undo. The others run inside one request.
 */
export const CLIENT_DRIVEN_KINDS: readonly CreationKind[] = ['consortium-quickstart', 'ledgerx-quickstart'];

/** What a create of each kind makes, as its 409 names it. */
const KIND_LABEL: Record<CreationKind, string> = { 'evm-network': 'A network named', organization: 'An organization with mspId', 'consortium-node': 'A node named', 'consortium-quickstart': 'A consortium quick start named', 'ledgerx-quickstart': 'A ledgerX quick start named' };

export const creationStream = (kind: CreationKind, name: string) => `creation-${kind}-${encodeURIComponent(name)}`;

export interface MadeResource {
  resource: 'key' | 'organization' | 'node' | 'network';
  id: number;
}

/** A thing an undo could not remove, and why. */
export interface LeftResource extends MadeResource {
  reason?: string;
}

export interface OpenCreation {
  creationId: number;
  kind: CreationKind;
  name: string;
  /** The service instance running it: the only one that may declare it interrupted. */
  instance: string;
  made: MadeResource[];
  /** The step of the last thing made ('checks' before any). */
  step: string;
  startedAt: string;
}

export interface CreationState {
  open: OpenCreation | null;
  /** Failed creates of this name, not yet undone: what they made and what of it is already removed. */
  failed: Record<number, { kind: CreationKind; name: string; made: MadeResource[]; removed: MadeResource[] }>;
}

type At = { at: string };
export type CreationEvent =
  | { type: 'CreationStarted'; data: At & { creationId: number; kind: CreationKind; name: string; instance: string } }
  | { type: 'CreationResourceMade'; data: At & { creationId: number; kind: CreationKind; name: string; step: string } & MadeResource }
  | { type: 'CreationCompleted'; data: At & { creationId: number; kind: CreationKind; name: string; resourceId: number } }
  | {
      type: 'CreationFailed';
      data: At & { creationId: number; kind: CreationKind; name: string; step: string; message: string; interrupted: boolean; made: MadeResource[]; removed: MadeResource[]; left: MadeResource[] };
    }
  | { type: 'CreationUndone'; data: At & { creationId: number; kind: CreationKind; name: string; removed: MadeResource[]; left: LeftResource[] } };

export type CreationCommand =
  | { type: 'StartCreation'; creationId: number; kind: CreationKind; name: string; instance: string; at: string }
  | { type: 'RecordMade'; creationId: number; step: string; made: MadeResource; at: string }
  | { type: 'CompleteCreation'; creationId: number; resourceId: number; at: string }
  | { type: 'FailCreation'; creationId: number; step: string; message: string; interrupted: boolean; removed: MadeResource[]; left: MadeResource[]; at: string }
  | { type: 'UndoCreation'; creationId: number; removed: MadeResource[]; left: LeftResource[]; at: string };

function openOne(s: CreationState, creationId: number): OpenCreation {
  if (!s.open || s.open.creationId !== creationId) throw new ConflictError(`Create ${creationId} is not in progress.`, { creationId }, 'CREATION_NOT_OPEN');
  return s.open;
}

export const creations: Decider<CreationState, CreationCommand, CreationEvent> = {
  initialState: () => ({ open: null, failed: {} }),
  evolve(s, e) {
    const failed = s.failed ?? {};
    switch (e.type) {
      case 'CreationStarted':
        return { failed, open: { creationId: e.data.creationId, kind: e.data.kind, name: e.data.name, instance: e.data.instance, made: [], step: 'checks', startedAt: e.data.at } };
      case 'CreationResourceMade':
        return s.open ? { failed, open: { ...s.open, step: e.data.step, made: [...s.open.made, { resource: e.data.resource, id: e.data.id }] } } : s;
      case 'CreationCompleted':
        return { failed, open: null };
      case 'CreationFailed':
        return { open: null, failed: { ...failed, [e.data.creationId]: { kind: e.data.kind, name: e.data.name, made: e.data.made, removed: e.data.removed } } };
      case 'CreationUndone': {
        const rest = { ...failed };
        const f = rest[e.data.creationId];
        delete rest[e.data.creationId];
        // What could not be removed can be tried again.
        if (f && e.data.left.length) rest[e.data.creationId] = { ...f, removed: [...f.removed, ...e.data.removed] };
        return { open: s.open, failed: rest };
      }
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'StartCreation':
        if (s.open) throw new ConflictError(`${KIND_LABEL[c.kind]} ${c.name} is being created (create ${s.open.creationId}, started ${s.open.startedAt}).`, { field: c.kind === 'organization' ? 'mspId' : 'name' }, 'NAME_TAKEN');
        return [{ type: 'CreationStarted', data: { creationId: c.creationId, kind: c.kind, name: c.name, instance: c.instance, at: c.at } }];
      case 'RecordMade': {
        const o = openOne(s, c.creationId);
        return [{ type: 'CreationResourceMade', data: { creationId: o.creationId, kind: o.kind, name: o.name, step: c.step, ...c.made, at: c.at } }];
      }
      case 'CompleteCreation': {
        const o = openOne(s, c.creationId);
        return [{ type: 'CreationCompleted', data: { creationId: o.creationId, kind: o.kind, name: o.name, resourceId: c.resourceId, at: c.at } }];
      }
      case 'FailCreation': {
        const o = openOne(s, c.creationId);
        return [{ type: 'CreationFailed', data: { creationId: o.creationId, kind: o.kind, name: o.name, step: c.step, message: c.message, interrupted: c.interrupted, made: o.made, removed: c.removed, left: c.left, at: c.at } }];
      }
      case 'UndoCreation': {
        const f = (s.failed ?? {})[c.creationId];
        if (!f) throw new ConflictError(`Create ${c.creationId} did not fail, or what it made was already removed: there is nothing to undo.`, { creationId: c.creationId }, 'CREATION_NOT_FAILED');
        return [{ type: 'CreationUndone', data: { creationId: c.creationId, kind: f.kind, name: f.name, removed: c.removed, left: c.left, at: c.at } }];
      }
      default:
        return assertNever(c);
    }
  },
};
