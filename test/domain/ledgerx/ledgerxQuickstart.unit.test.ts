// The quick start's record: steps move PENDING -> RUNNING -> DONE, the last one done completes it,
// a failed step ends it FAILED with the role and log tail, and nothing moves after the end.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ledgerXQuickstarts, type LedgerXQuickstartCommand, type LedgerXQuickstartState } from '../../../domain/ledgerx/ledgerxQuickstart.ts';

const at = '2026-11-26T00:00:00.000Z';
function apply(s: LedgerXQuickstartState, c: LedgerXQuickstartCommand): LedgerXQuickstartState {
  return ledgerXQuickstarts.decide(c, s).reduce(ledgerXQuickstarts.evolve, s);
}
const requested = () => apply(ledgerXQuickstarts.initialState(), { type: 'RequestLedgerXQuickstart', creationId: 1, quickstartId: 7, networkName: 'qs', steps: [{ kind: 'organization', name: 'Org1MSP' }, { kind: 'network', name: 'qs' }, { kind: 'join-orderer-group', name: 'qs-orderer1' }], at });

test('a quick start completes when its last step is done, and knows its network', () => {
  let s = requested();
  assert.equal(s.quickstart!.steps.map((x) => x.status), ['PENDING', 'PENDING', 'PENDING']);
  for (const [step, id] of [[0, 3], [1, 11], [2, 5]] as const) {
    s = apply(s, { type: 'StartQuickstartStep', step, at });
    assert.is(s.quickstart!.steps[step].status, 'RUNNING');
    assert.is(s.quickstart!.status, 'IN_PROGRESS');
    s = apply(s, { type: 'CompleteQuickstartStep', step, resourceId: id, at });
  }
  assert.is(s.quickstart!.status, 'COMPLETED');
  assert.is(s.quickstart!.networkId, 11);
  assert.is(s.quickstart!.finishedAt, at);
});

test('a failed step ends it FAILED with the role and log tail; nothing moves afterwards', () => {
  let s = requested();
  s = apply(s, { type: 'StartQuickstartStep', step: 0, at });
  assert.throws(() => apply(s, { type: 'StartQuickstartStep', step: 0, at }), /RUNNING/);
  s = apply(s, { type: 'FailQuickstartStep', step: 0, at, message: 'the router did not come up', role: 'router', roleNodeId: 4, logTail: ['panic: x'] });
  assert.is(s.quickstart!.status, 'FAILED');
  assert.match(s.quickstart!.error!, 'organization Org1MSP: the router did not come up');
  assert.equal(s.quickstart!.steps[0].logTail, ['panic: x']);
  assert.is(s.quickstart!.steps[0].role, 'router');
  assert.throws(() => apply(s, { type: 'StartQuickstartStep', step: 1, at }), /ended/);
  assert.throws(() => apply(s, { type: 'CompleteQuickstartStep', step: 0, resourceId: 1, at }), /ended/);
});

test('a step cannot complete without having started, and the record is made once', () => {
  const s = requested();
  assert.throws(() => apply(s, { type: 'CompleteQuickstartStep', step: 1, resourceId: 1, at }), /PENDING/);
  assert.throws(() => apply(s, { type: 'StartQuickstartStep', step: 9, at }));
  assert.throws(() => apply(s, { type: 'RequestLedgerXQuickstart', creationId: 1, quickstartId: 7, networkName: 'qs', steps: [], at }), /exists/);
});

test.run();
