// The request metadata of every event quotes headers and the path as sent: a NUL or a lone
// surrogate in them (a User-Agent, a path) is replaced, so the event stays storable (issue 20, class 1).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { requestMetadata } from '../../application/commands.ts';
import type { AppDeps } from '../../application/deps.ts';

test('unstorable characters in the User-Agent and the path become U+FFFD in the metadata', () => {
  const headers: Record<string, string> = { 'user-agent': 'agent\u0000\uD800/1' };
  const m = requestMetadata({
    identity: null,
    requestId: 'r1',
    ctx: { ip: '127.0.0.1', method: 'POST', path: '/api/v1/x\u0000', state: {}, get: (h) => headers[h] ?? '' },
    deps: { clock: () => new Date('2026-01-01T00:00:00Z') } as unknown as AppDeps,
  });
  assert.is(m.userAgent, 'agent\uFFFD\uFFFD/1');
  assert.is(m.endpoint, '/api/v1/x\uFFFD');
  assert.is(m.requestId, 'r1');
});

test.run();
