// Custom header values are secrets: shown masked, and the mask sent back keeps the stored value.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HEADER_MASK, maskHeaders, mergeHeaders } from '../../../domain/shared/secretHeaders.ts';
import { redactSecrets } from '../../../domain/audit/auditEntry.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

test('masking keeps the names and hides every value', () => {
  assert.equal(maskHeaders({ Authorization: 'Bearer t', 'X-Team': 'ops' }), { Authorization: HEADER_MASK, 'X-Team': HEADER_MASK });
  assert.equal(maskHeaders({}), {});
});

test('a masked value keeps the stored one, a new value replaces it, a header left out is dropped', () => {
  const stored = { Authorization: 'Bearer old', 'X-Team': 'ops', 'X-Gone': 'x' };
  assert.equal(mergeHeaders({ Authorization: HEADER_MASK, 'X-Team': 'dev' }, stored, 'customHeaders'), { Authorization: 'Bearer old', 'X-Team': 'dev' });
});

test('a header named like an Object.prototype property stays a header', () => {
  const given = JSON.parse('{"__proto__": "v1", "constructor": "v2"}') as Record<string, string>;
  const merged = mergeHeaders(given, {}, 'customHeaders');
  assert.equal(Object.keys(merged).sort(), ['__proto__', 'constructor']);
  assert.is(JSON.stringify(merged), '{"__proto__":"v1","constructor":"v2"}');
  assert.equal(Object.keys(maskHeaders(merged)).sort(), ['__proto__', 'constructor']);
});

test('the mask for a name nothing is stored under is a 400 naming it, even for prototype names', () => {
  for (const name of ['X-New', 'constructor', '__proto__', 'toString']) {
    try {
      mergeHeaders({ [name]: HEADER_MASK }, {}, 'customHeaders');
      assert.unreachable(name);
    } catch (err) {
      assert.instance(err, ValidationError);
      assert.equal((err as ValidationError).details!.map((d) => d.field), [`customHeaders.${name}`]);
    }
  }
});

test('the audit view masks customHeaders at any depth (events from before sealing hold them in clear)', () => {
  const entry = redactSecrets({ after: { name: 'h', customHeaders: { Authorization: 'Bearer clear' } }, config: { customHeaders: { 'X-Key': 'k' }, password: 'p' } });
  assert.equal(entry, { after: { name: 'h', customHeaders: { Authorization: HEADER_MASK } }, config: { customHeaders: { 'X-Key': HEADER_MASK } } });
});

test.run();
