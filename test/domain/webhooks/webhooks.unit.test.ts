import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { webhooks, type WebhookCommand } from '../../../domain/webhooks/webhooks.ts';
import { deliveryHeaders, retryDelayMs } from '../../../domain/webhooks/delivery.ts';
import { catalogEntry, eventCatalog, publicData } from '../../../domain/webhooks/eventCatalog.ts';
import { ValidationError } from '../../../domain/shared/errors.ts';

const at = '2026-01-01T00:00:00.000Z';
const create: WebhookCommand = { type: 'CreateWebhook', webhookId: 1, name: 'w', url: 'https://example.com/h', events: ['node.downtime'], customHeaders: {}, timeoutSeconds: 10, maxRetries: 3, sealedSecret: null, at };
const run = (cmds: WebhookCommand[]) => {
  let s = webhooks.initialState();
  const out = [];
  for (const c of cmds) {
    const evs = webhooks.decide(c, s);
    for (const e of evs) s = webhooks.evolve(s, e);
    out.push(evs);
  }
  return { s, out };
};

test('wildcards and unknown event types are refused; catalog names are accepted', () => {
  for (const events of [['node.*'], ['*'], ['node.exploded'], ['node.downtime', 'node.downtime']]) {
    assert.throws(() => webhooks.decide({ ...create, events } as WebhookCommand, webhooks.initialState()), (e: unknown) => e instanceof ValidationError);
  }
  assert.is(webhooks.decide(create, webhooks.initialState())[0].type, 'WebhookCreated');
});

test('disabling is recorded once; a PUT with enabled: true turns it back on; a PUT that changes nothing records nothing', () => {
  const disable: WebhookCommand = { type: 'DisableWebhook', webhookId: 1, consecutiveFailures: 10, lastError: 'HTTP 500', at };
  const { s, out } = run([create, disable, disable, { type: 'UpdateWebhook', webhookId: 1, changes: {}, enabled: true, at }, { type: 'UpdateWebhook', webhookId: 1, changes: { name: 'w' }, at }]);
  assert.equal(out.map((e) => e.map((x) => x.type)), [['WebhookCreated'], ['WebhookDisabled'], [], ['WebhookUpdated'], []]);
  assert.is(s.enabled, true);
});

test('the signature is the hex HMAC-SHA256 of the exact body, in both headers; custom headers cannot replace it', () => {
  const body = '{"id":"x","event":"node.downtime"}';
  const h = deliveryHeaders({ body, secret: 's3cret', event: 'node.downtime', envelopeId: 'x', deliveryId: 'd', attempt: 2, instanceId: 'i', customHeaders: { 'X-Webhook-Signature': 'forged', 'X-Team': 'ops' } });
  const expected = createHmac('sha256', 's3cret').update(body).digest('hex');
  assert.is(h['x-webhook-signature'], expected);
  assert.is(h['x-webhook-signature-256'], `sha256=${expected}`);
  assert.is(h['X-Team'], 'ops');
  assert.not.ok('X-Webhook-Signature' in h);
  const unsigned = deliveryHeaders({ body, secret: null, event: 'e', envelopeId: 'x', deliveryId: 'd', attempt: 1, instanceId: 'i', customHeaders: {} });
  assert.not.ok('x-webhook-signature' in unsigned);
});

test('retries back off 1 s, 2 s, 4 s, 8 s', () => {
  assert.equal([1, 2, 3, 4].map(retryDelayMs), [1000, 2000, 4000, 8000]);
});

test('the catalog has 50+ unique types, and data is picked by the catalog shape so internal fields never leave', () => {
  assert.ok(eventCatalog.length >= 50);
  assert.is(new Set(eventCatalog.map((e) => e.name)).size, eventCatalog.length);
  const d = publicData(catalogEntry('security.api_key.created')!, { apiKeyId: 3, userId: 1, username: 'a', name: 'k', keyHash: 'SECRET', displayPrefix: 'p', scopes: [], expiresAt: null, at });
  assert.not.ok('keyHash' in d);
  assert.is(d.apiKeyId, 3);
  const down = publicData(catalogEntry('node.downtime')!, { nodeId: 1, nodeName: 'n', nodeType: 'validator', lastHealthyAt: null, consecutiveFailures: 3, reason: 'gone', at });
  assert.equal(down, { nodeId: 1, nodeName: 'n', nodeType: 'validator', lastHealthyAt: null, consecutiveFailures: 3, reason: 'gone', at });
});


test('plugin, backup and chaincode events are delivered from their domain events; a plugin\'s deploy parameters never leave in a webhook', async () => {
  const { catalogEntryOfDomainEvent, eventCatalog, publicData } = await import('../../../domain/webhooks/eventCatalog.ts');
  for (const [type, name] of [['PluginInstalled', 'plugin.installed'], ['PluginEnabled', 'plugin.enabled'], ['PluginDisabled', 'plugin.disabled'], ['BackupCompleted', 'backup.success'], ['ChaincodeDeployed', 'blockchain.chaincode.deployed']] as const) {
    assert.is(catalogEntryOfDomainEvent(type)?.name, name, type);
  }
  const names = eventCatalog.map((e) => e.name);
  assert.is(new Set(names).size, names.length, 'each event type once');
  const data = publicData(catalogEntryOfDomainEvent('PluginEnabled')!, { name: 'gateway', parameters: { token: 'hunter2' }, at: '2026-01-01T00:00:00.000Z' });
  assert.equal(data, { name: 'gateway', at: '2026-01-01T00:00:00.000Z' });
});

test.run();
