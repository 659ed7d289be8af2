import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Type } from '@sinclair/typebox';
import { boundIntegers, validate, PG_INTEGER_MAX } from '../../http/validation.ts';
import { ValidationError } from '../../domain/shared/errors.ts';

const refused = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    assert.instance(err, ValidationError);
    return (err as ValidationError).details ?? [];
  }
  throw new Error('not refused');
};

test('integers without their own bounds get PostgreSQL\'s integer range; explicit bounds win', () => {
  const s = boundIntegers({ type: 'object', properties: { id: { type: 'integer', minimum: 1 }, n: { type: 'integer' }, big: { type: 'integer', maximum: 10 ** 12 }, k: { type: 'integer', default: 3 } } });
  assert.equal(s.properties.id, { type: 'integer', minimum: 1, maximum: PG_INTEGER_MAX });
  assert.equal(s.properties.n, { type: 'integer', minimum: -2147483648, maximum: 2147483647 });
  assert.equal(s.properties.big, { type: 'integer', maximum: 10 ** 12, minimum: -2147483648 });
  assert.is(s.properties.k.default, 3);
});

test('ids of 2^64, 1e308 and 2^31 are a 400 in a path, a query and a body; -0 and non-integers too where an id is asked', () => {
  const Id = Type.Object({ id: Type.Integer({ minimum: 1 }) });
  for (const v of ['18446744073709551616', '1e308', '2147483648', '-0', '1.5', '0x', 'NaN', 'Infinity']) {
    refused(() => validate(Id, { id: v }, 'path'));
    refused(() => validate(Id, { id: v }, 'query'));
  }
  for (const v of [2 ** 64, 1e308, 2 ** 31, -0, 1.5]) refused(() => validate(Type.Object({ id: Type.Integer({ minimum: 1 }) }), { id: v }, 'body'));
  assert.equal(validate(Id, { id: '2147483647' }, 'path'), { id: 2147483647 });
});

test('a NUL or a lone surrogate in any string or key of a path, a query or a body is a 400 naming the field', () => {
  const Body = Type.Object({ name: Type.String(), tags: Type.Optional(Type.Record(Type.String(), Type.String())) });
  assert.equal(refused(() => validate(Body, { name: 'a\u0000' }, 'body')), [{ field: 'name', message: 'contains a NUL character or a lone UTF-16 surrogate' }]);
  assert.equal(refused(() => validate(Body, { name: 'ok', tags: { x: '\uD800' } }, 'body'))[0].field, 'tags.x');
  assert.equal(refused(() => validate(Body, { name: 'ok', tags: { ['\uDC00']: 'v' } }, 'body'))[0].field, 'tags.\uFFFD');
  refused(() => validate(Type.Object({ q: Type.String() }), { q: 'x\u0000' }, 'query'));
  refused(() => validate(Type.Object({ name: Type.String() }), { name: '\u0000' }, 'path'));
  assert.equal(validate(Body, { name: 'emoji \uD83D\uDE00' }, 'body'), { name: 'emoji \uD83D\uDE00' });
});

test.run();
