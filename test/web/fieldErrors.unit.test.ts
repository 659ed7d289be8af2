// A refusal's field names, as the console's FieldError and ActionError match them
// (web/src/components/fieldNames.ts, used by states.tsx): the API spells a field body.a.b,
// /a/b, a.b or a[0].b (a schema error, a use case's details, a 409's context.field); each is one key.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { refusalFields } from '../../web/src/components/fieldNames.ts';

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

test.run();
