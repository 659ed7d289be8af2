// A refusal's field names, as the console's FieldError and ActionError match them
// (web/src/components/fieldNames.ts, used by states.tsx): the API spells a field body.a.b,
// /a/b, a.b or a[0].b (a schema error, a use case's details, a 409's context.field); each is one key.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { refusalFields, restatesFields } from '../../web/src/components/fieldNames.ts';

test('every spelling of a body field is one key', () => {
  const details = [
    { field: 'body.name', message: 'is required' },
    { field: '/genesis/chain_id', message: 'must be integer' },
    { field: 'organizations[1].mspId', message: 'each mspId once' },
    { field: 'args.0', message: 'not a number' },
  ];
  assert.equal(refusalFields({ status: 400, message: 'refused', details, context: {} }), { name: 'is required', 'genesis.chain_id': 'must be integer', 'organizations.1.mspId': 'each mspId once', 'args.0': 'not a number' });
  assert.equal(refusalFields({ status: 400, message: 'refused', details: [{ field: 'config.port', message: 'taken' }], context: {} }, 'config.'), { port: 'taken' });
});

test('the field a 409 names gets its message, in the same spelling', () => {
  const message = 'An organization with mspId LxTakenMSP already exists.';
  assert.equal(refusalFields({ status: 409, message, details: [], context: { field: 'organizations[0].mspId' } }), { 'organizations.0.mspId': message });
});

test('a message that gives a reason after its field\'s message says more than the field; one that only restates the fields does not', () => {
  // A committer's database refused (application/ledgerx/ledgerxCommitterCreate.ts): the banner keeps the reason.
  const refused = 'The committer\'s database u@127.0.0.1:5432/db (databaseUrl) cannot be reached: password authentication failed for user "u"';
  assert.is(restatesFields(refused, ['cannot be reached']), false);
  assert.is(restatesFields('The committer\'s database (databaseUrl) cannot be reached: connect ECONNREFUSED 127.0.0.1:1', ['cannot be reached']), false);
  // A schema 400 (http/validation.ts) and a use case's message that only restate their fields.
  assert.is(restatesFields('The request body is invalid: name must NOT have more than 63 characters; port must be integer.', ['must NOT have more than 63 characters', 'must be integer']), true);
  assert.is(restatesFields('The node id must be a positive integer.', ['must be a positive integer']), true);
  // A message without a field's text, or a field with no message, is said.
  assert.is(restatesFields('Node x is a group of Fabric-X processes with no output of its own.', ['a ledgerX group; its roles have logs']), false);
  assert.is(restatesFields('refused', [undefined]), false);
  assert.is(restatesFields('refused: x', ['']), true);
});

test.run();
