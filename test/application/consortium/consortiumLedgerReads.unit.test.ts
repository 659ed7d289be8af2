// The explorer's page of blocks (application/consortium/consortiumLedgerReads.ts): which block
// numbers a page holds, newest first.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pageBlockNumbers } from '../../../application/consortium/consortiumLedgerReads.ts';

test('a page is newest first, offset blocks below the newest, at most limit, never below block 0', () => {
  assert.equal(pageBlockNumbers(4, 0, 10), [3, 2, 1, 0]);
  assert.equal(pageBlockNumbers(4, 1, 2), [2, 1]);
  assert.equal(pageBlockNumbers(100, 95, 10), [4, 3, 2, 1, 0]);
  assert.equal(pageBlockNumbers(4, 4, 10), []);
  assert.equal(pageBlockNumbers(4, 0, 0), []);
  assert.equal(pageBlockNumbers(0, 0, 10), []);
  assert.equal(pageBlockNumbers(4, -3, 1), [3], 'a negative offset counts as 0');
});

test.run();
