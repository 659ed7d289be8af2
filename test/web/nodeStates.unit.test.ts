import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { actionsFor } from '../../web/src/pages/nodes/nodeStates.ts';

test('the console offers the actions a node state allows, whatever the case of the status', () => {
  assert.equal(actionsFor('running'), ['stop', 'restart']);
  assert.equal(actionsFor('RUNNING'), ['stop', 'restart']);
  for (const s of ['stopped', 'created', 'error', 'failed']) assert.equal(actionsFor(s), ['start', 'delete'], s);
  for (const s of ['starting', 'stopping', 'deleting', 'updating']) assert.equal(actionsFor(s), [], s);
});

test.run();
