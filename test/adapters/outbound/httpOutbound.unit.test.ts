// The outbound POST returns every outcome as a value (domain/webhooks/ports.ts): a request
// Node refuses to build is one of them (issue 36: it was a rejected promise, a 500 on a test
// send and a delivery re-leased for ever).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHttpOutbound } from '../../../adapters/outbound/httpOutbound.ts';

test('a header Node refuses (value above U+00FF, CR/LF, a name that is no token) is a failed result naming the header, not an exception', async () => {
  const outbound = createHttpOutbound({ allowPrivateTargets: true });
  const cases: Record<string, string>[] = [{ 'X-Team': 'caf\u00e9 \u20ac' }, { 'X-Team': 'a\r\nX-Injected: 1' }, { 'Bad Name': 'secret-token-1' }];
  for (const headers of cases) {
    const r = await outbound.post({ url: 'http://127.0.0.1:9/hook', headers, body: '{}', timeoutMs: 2000 });
    assert.is(r.ok, false, JSON.stringify(headers));
    assert.is(r.statusCode, null);
    assert.match(r.error ?? '', /could not be sent: ERR_INVALID/);
    assert.not.ok((r.error ?? '').includes(Object.values(headers)[0]), 'the value is not in the error');
  }
});

test.run();
