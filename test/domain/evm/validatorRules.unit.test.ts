import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { getAddress } from 'ethers';
import { applyCliqueSignerChange, applyValidatorChange, cliqueVoteRule, faultTolerance, nextEpochBoundary, requiredValidators, votePasses, votesNeeded } from '../../../domain/evm/validatorRules.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

const v = Array.from({ length: 8 }, (_, i) => getAddress('0x' + (i + 1).toString(16).padStart(40, '0')));

function refused(fn: () => unknown, pattern: RegExp): void {
  try {
    fn();
  } catch (err) {
    assert.instance(err, ValidationError);
    assert.is((err as ValidationError).status, 400);
    assert.match((err as Error).message, pattern);
    return;
  }
  assert.unreachable('the change should have been refused');
}

test('f = floor((n-1)/3): 4 validators are needed to tolerate one fault, 7 for two', () => {
  assert.equal([1, 2, 3, 4, 5, 6, 7, 10].map(faultTolerance), [0, 0, 0, 1, 1, 1, 2, 3]);
  assert.is(faultTolerance(0), 0);
});

test('2f+1 validators are required: 1 for up to 3, 3 for 4 to 6, 5 for 7', () => {
  assert.equal([1, 3, 4, 6, 7].map(requiredValidators), [1, 1, 3, 3, 5]);
});

test('a vote passes with more than 50% of the validators, not with exactly half', () => {
  assert.is(votesNeeded(4), 3);
  assert.is(votesNeeded(5), 3);
  assert.is(votePasses(4, 2), false);
  assert.is(votePasses(4, 3), true);
  assert.is(votePasses(5, 3), true);
  assert.is(votePasses(0, 0), false);
});

test('removing one of four validators leaves 2f+1 = 3 and is allowed', () => {
  assert.equal(applyValidatorChange(v.slice(0, 4), { remove: [v[3]] }), v.slice(0, 3));
});

test('removing two of four validators would leave fewer than 2f+1 and is refused', () => {
  refused(() => applyValidatorChange(v.slice(0, 4), { remove: [v[2], v[3]] }), /leave 2 of 4 validators.*2f\+1 = 3/);
});

test('removing three of seven validators is refused (2f+1 = 5), two is allowed', () => {
  refused(() => applyValidatorChange(v.slice(0, 7), { remove: v.slice(4, 7) }), /2f\+1 = 5/);
  assert.is(applyValidatorChange(v.slice(0, 7), { remove: v.slice(5, 7) }).length, 5);
});

test('a change leaving a single validator is refused even when 2f+1 = 1', () => {
  refused(() => applyValidatorChange(v.slice(0, 2), { remove: [v[1]] }), /fewer than 2 validators produce no blocks/);
  refused(() => applyValidatorChange(v.slice(0, 3), { remove: [v[1], v[2]] }), /leave 1 validator;/);
});

test('adding validators is always allowed, and growing a single-validator network too', () => {
  assert.equal(applyValidatorChange(v.slice(0, 1), { add: [v[1].toLowerCase()] }), [v[0], v[1]]);
});

test('removing an address that is not a validator or adding one twice is refused', () => {
  refused(() => applyValidatorChange(v.slice(0, 4), { remove: [v[6]] }), /is not a validator/);
  refused(() => applyValidatorChange(v.slice(0, 4), { add: [v[0]] }), /already a validator/);
  refused(() => applyValidatorChange(v.slice(0, 4), { add: ['0x12'] }), /not an address/);
});

test('a passed vote applies at the next epoch boundary (30000 by default)', () => {
  assert.is(nextEpochBoundary(0, 30000), 30000);
  assert.is(nextEpochBoundary(29999, 30000), 30000);
  assert.is(nextEpochBoundary(30000, 30000), 60000);
  assert.throws(() => nextEpochBoundary(5, 0), (e: unknown) => e instanceof ValidationError);
});

test('Clique signers: one signer may remain, none may not; the rule says more than half', () => {
  assert.is(applyCliqueSignerChange(v.slice(0, 2), { remove: [v[1]] }).length, 1);
  assert.is(applyCliqueSignerChange(v.slice(0, 3), { add: [v[3]] }).length, 4);
  refused(() => applyCliqueSignerChange(v.slice(0, 1), { remove: [v[0]] }), /no signer/);
  assert.throws(() => applyCliqueSignerChange(v.slice(0, 3), { add: [v[0]] }), (e: unknown) => e instanceof ValidationError && /already a signer/.test((e as Error).message));
  assert.match(cliqueVoteRule(4, 30000), /more than half of the 4 signers \(3\)/);
});

test.run();
