import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorBody } from '../../http/errors.ts';
import { AppError } from '../../domain/shared/errors.ts';

test('a 503 shows its message (what is not available and why); other 5xx keep theirs hidden', () => {
  const unavailable = errorBody(new AppError(503, 'SHARING_NOT_CONFIGURED', 'Node sharing needs LNM_SHARING_PORT.'), 'r1');
  assert.equal(unavailable, { status: 503, body: { status: 503, code: 'SHARING_NOT_CONFIGURED', message: 'Node sharing needs LNM_SHARING_PORT.', requestId: 'r1' } });
  assert.is(errorBody(new AppError(500, 'BROKEN', 'pool ended at db.internal:5432'), 'r2').body.message, 'The server could not complete the request.');
  assert.is(errorBody(new AppError(503, 'X', 'internal detail', { expose: false }), 'r3').body.message, 'The server could not complete the request.');
});

test('PostgreSQL data exceptions (class 22) are a 400 UNSTORABLE_VALUE; other database errors stay a 500', () => {
  const pgError = (code: string) => Object.assign(new Error('value "4294967296" is out of range for type integer'), { code, severity: 'ERROR' });
  for (const code of ['22003', '22P05', '22021', '22P02']) assert.is(errorBody(pgError(code), 'r').body.code, 'UNSTORABLE_VALUE', code);
  assert.is(errorBody(pgError('40001'), 'r').status, 500);
  assert.is(errorBody(pgError('23505'), 'r').status, 500);
});

test.run();
