// Names of Object.prototype's properties used as keys by a client (a custom header, a plugin
// parameter path, a field of event data) are looked up as own keys only (issue 20, class 4).
// The template bindings have their own cases in test/domain/templates.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deliveryHeaders } from '../../../domain/webhooks/delivery.ts';
import { redactSecrets } from '../../../domain/audit/auditEntry.ts';
import { renderCompose } from '../../../domain/plugins/pluginTemplate.ts';

const PROTO = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'];
const own = (names: string[], value: (n: string) => unknown) => JSON.parse(`{${names.map((n) => `${JSON.stringify(n)}: ${JSON.stringify(value(n))}`).join(',')}}`) as Record<string, unknown>;

test('a custom webhook header named like an Object.prototype property is sent, not dropped as one of the service\'s own', () => {
  const customHeaders = own(PROTO.filter((n) => n !== '__proto__'), (n) => `v-${n}`) as Record<string, string>;
  const h = deliveryHeaders({ body: '{}', secret: null, event: 'e', envelopeId: 'i', deliveryId: 'd', attempt: 1, instanceId: 'x', customHeaders });
  for (const n of PROTO.filter((x) => x !== '__proto__')) assert.is(h[n], `v-${n}`, n);
  assert.is(h['user-agent'], 'lnm-webhooks/1');
});

test('the audit view keeps a data field named __proto__ as a field (it does not become the prototype)', () => {
  const data = own(PROTO, (n) => ({ note: n }));
  const out = redactSecrets(data) as Record<string, unknown>;
  assert.equal(Object.keys(out).sort(), [...PROTO].sort());
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  // (compared as text: uvu's deep equality itself reads .constructor)
  assert.is(JSON.stringify(out), JSON.stringify(data));
});

test('a plugin compose placeholder naming an Object.prototype property renders as absent (null), never a function\'s source', () => {
  for (const n of PROTO.filter((x) => x !== '__proto__')) {
    assert.is(renderCompose(`image: {{ .parameters.${n} }}`, {}, []), 'image: null\n', n);
    assert.is(renderCompose(`image: {{ .parameters.image.${n} }}`, { image: { tag: '1' } }, []), 'image: null\n', n);
  }
  assert.is(renderCompose('image: {{ .parameters.constructor }}', own(['constructor'], () => 'nginx'), []), 'image: "nginx"\n');
});

test.run();
