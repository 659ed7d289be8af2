// The create record's undo (issue 35 item 4): only a failed create is undone; an undo that left
// something can be run again (for what is left), one that removed everything cannot; a create in
// progress or completed is refused (409), so nothing is removed twice or from a live create.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { creations, type CreationCommand, type CreationEvent, type CreationState } from '../../../domain/creations/creation.ts';
import { ConflictError } from '../../../domain/shared/errors.ts';

const at = '2030-01-01T00:00:00.000Z';

function record() {
  let state: CreationState = creations.initialState();
  const run = (c: CreationCommand): CreationEvent[] => {
    const events = creations.decide(c, state);
    state = events.reduce((s, e) => creations.evolve(s, e), state);
    return events;
  };
  return { run, state: () => state };
}

const refused = (f: () => unknown, code: string) => {
  try {
    f();
  } catch (e) {
    assert.instance(e, ConflictError);
    assert.is((e as ConflictError).code, code);
    return;
  }
  assert.unreachable(`not refused (${code})`);
};

test('a failed create is undone; what an undo left can be undone again; then nothing more', () => {
  const r = record();
  r.run({ type: 'StartCreation', creationId: 7, kind: 'consortium-quickstart', name: 'qs', instance: 'i1', at });
  refused(() => r.run({ type: 'UndoCreation', creationId: 7, removed: [], left: [], at }), 'CREATION_NOT_FAILED');
  r.run({ type: 'RecordMade', creationId: 7, step: 'organization', made: { resource: 'organization', id: 3 }, at });
  r.run({ type: 'RecordMade', creationId: 7, step: 'node', made: { resource: 'node', id: 9 }, at });
  const [failed] = r.run({ type: 'FailCreation', creationId: 7, step: 'Orderer qs-orderer0 started', message: 'exited', interrupted: false, removed: [], left: [], at });
  assert.equal((failed.data as { made: unknown }).made, [{ resource: 'organization', id: 3 }, { resource: 'node', id: 9 }]);
  const [first] = r.run({ type: 'UndoCreation', creationId: 7, removed: [{ resource: 'node', id: 9 }], left: [{ resource: 'organization', id: 3, reason: 'still used' }], at });
  assert.equal(first.type, 'CreationUndone');
  assert.equal(first.data, { creationId: 7, kind: 'consortium-quickstart', name: 'qs', removed: [{ resource: 'node', id: 9 }], left: [{ resource: 'organization', id: 3, reason: 'still used' }], at });
  assert.equal(r.state().failed[7].removed, [{ resource: 'node', id: 9 }], 'what is removed is remembered for the retry');
  r.run({ type: 'UndoCreation', creationId: 7, removed: [{ resource: 'organization', id: 3 }], left: [], at });
  refused(() => r.run({ type: 'UndoCreation', creationId: 7, removed: [], left: [], at }), 'CREATION_NOT_FAILED');
});

test('a completed create is not undone, and a new create of the name may start after a failed one', () => {
  const r = record();
  r.run({ type: 'StartCreation', creationId: 1, kind: 'consortium-quickstart', name: 'qs', instance: 'i1', at });
  r.run({ type: 'FailCreation', creationId: 1, step: 'checks', message: 'x', interrupted: false, removed: [], left: [], at });
  r.run({ type: 'StartCreation', creationId: 2, kind: 'consortium-quickstart', name: 'qs', instance: 'i1', at });
  r.run({ type: 'CompleteCreation', creationId: 2, resourceId: 5, at });
  refused(() => r.run({ type: 'UndoCreation', creationId: 2, removed: [], left: [], at }), 'CREATION_NOT_FAILED');
  assert.is(r.run({ type: 'UndoCreation', creationId: 1, removed: [], left: [], at })[0].type, 'CreationUndone', 'the earlier failed attempt is still undoable');
});

test.run();
