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

test('a header Node would refuse, or a hop-by-hop or framing one, is a 400 naming it and never showing its value (issue 36)', () => {
  const cases: Record<string, string>[] = [
    { 'X-Team': 'caf\u00e9 \u20ac' }, // above U+00FF: ERR_INVALID_CHAR at every send before
    { 'X-Team': 'a\r\nX-Injected: 1' },
    { 'X-Team': 'nul\u0000' },
    { 'X-Team': 'del\u007f' },
    { 'Bad Name': 'v' },
    { 'X-\u00e9': 'v' },
    { Host: 'evil.example' }, { 'transfer-encoding': 'chunked' }, { 'Content-Length': '1' }, { Connection: 'close' },
    { 'Keep-Alive': 'timeout=5' }, { Upgrade: 'h2c' }, { TE: 'trailers' }, { Trailer: 'X' }, { 'Proxy-Authorization': 'Basic x' },
  ];
  for (const given of cases) {
    const name = Object.keys(given)[0];
    for (const field of ['customHeaders', 'config.customHeaders']) {
      try {
        mergeHeaders(given, {}, field);
        assert.unreachable(JSON.stringify(given));
      } catch (err) {
        assert.instance(err, ValidationError, JSON.stringify(given));
        const e = err as ValidationError;
        assert.is(e.status, 400);
        assert.equal(e.details!.map((d) => d.field), [`${field}.${name}`]);
        assert.ok(e.message.includes(name), e.message);
        if (given[name].length > 3) assert.not.ok(e.message.includes(given[name]) || JSON.stringify(e.details).includes(given[name]), 'the value is never shown');
      }
    }
  }
  // A stored value that is not sendable is refused when kept through the mask too.
  assert.throws(() => mergeHeaders({ 'X-Old': HEADER_MASK }, { 'X-Old': '\u2603' }, 'customHeaders'), (e: unknown) => e instanceof ValidationError);
});

test('what Node sends is accepted: tokens, tab, visible ASCII, space and obs-text (U+0080-U+00FF)', () => {
  const given = { Authorization: 'Bearer abc.DEF-123', 'X-Tab': 'a\tb', 'X-Latin1': 'caf\u00e9 \u00ff', "X-!#$%&'*+.^_`|~": '~!@#$%^&*()_+{}|:"<>?' };
  assert.equal(mergeHeaders(given, {}, 'customHeaders'), given);
  assert.equal(mergeHeaders({ 'X-Proxyish': 'v', 'X-Host': 'h' }, {}, 'customHeaders'), { 'X-Proxyish': 'v', 'X-Host': 'h' });
});

test.run();
