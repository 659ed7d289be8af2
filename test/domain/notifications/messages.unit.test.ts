import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emailOf, notificationOf, webhookPayloadOf, durationText } from '../../../domain/notifications/messages.ts';
import { notifyingDomainEvents } from '../../../sagas/notifications.ts';
import { deliverableDomainEvents } from '../../../domain/webhooks/eventCatalog.ts';

const instance = { id: 'inst-1', version: '1.2.3' };

test('node downtime, node recovery and disk warnings are the domain events that notify', () => {
  const n = notifyingDomainEvents(deliverableDomainEvents);
  for (const t of ['NodeDowntime', 'NodeRecovered', 'DiskSpaceWarningRaised']) assert.ok(n.includes(t), t);
  assert.not.ok(n.includes('NodeStarted'));
});

test('a downtime email carries the tag, the node, the times and the error in text and HTML (HTML escaped)', () => {
  const n = notificationOf('NODE_DOWNTIME', 'ev-1', '2026-01-01T10:00:00.000Z', { nodeId: 7, nodeName: 'peer<1>', nodeType: 'validator', lastHealthyAt: '2026-01-01T09:59:00.000Z', consecutiveFailures: 3, reason: 'refused', at: '2026-01-01T10:00:00.000Z' });
  const m = emailOf(n, 'PROD', instance);
  assert.is(m.subject, '[PROD] Node peer<1> is down');
  assert.match(m.text, 'Down since: 2026-01-01T10:00:00.000Z');
  assert.match(m.text, 'Error: refused');
  assert.match(m.text, 'Unhealthy for: 1 min');
  assert.match(m.html, 'peer&lt;1&gt;');
  assert.not.match(m.html, 'peer<1>');
  const g = webhookPayloadOf(n, 'GENERIC', instance) as any;
  assert.equal(g, { eventId: 'ev-1', eventType: 'NODE_DOWNTIME', severity: 'CRITICAL', timestamp: '2026-01-01T10:00:00.000Z', source: { nodeId: 7, instanceId: 'inst-1', version: '1.2.3' }, data: { nodeName: 'peer<1>', nodeType: 'validator', downSince: '2026-01-01T10:00:00.000Z', lastHealthyAt: '2026-01-01T09:59:00.000Z', consecutiveFailures: 3, error: 'refused' } });
});

test('recovery states the downtime; durations read as a person would say them', () => {
  const n = notificationOf('NODE_RECOVERY', 'ev-2', '2026-01-01T11:01:05.000Z', { nodeId: 7, nodeName: 'v', nodeType: 'validator', downSince: '2026-01-01T10:00:00.000Z', at: '2026-01-01T11:01:05.000Z' });
  assert.match(emailOf(n, 'T', instance).text, 'Downtime: 1 h 1 min 5 s');
  assert.is(n.data.downtimeSeconds, 3665);
  assert.is(durationText(0), '0 s');
});

test.run();
