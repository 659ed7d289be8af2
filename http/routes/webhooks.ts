// Outbound webhooks (pro): CRUD, test sends, delivery records, replay and the event catalog.
// Every route needs system:configure (SPEC.md). The signing secret is write-only: sealed under
// KEY_ENCRYPTION_KEY before it reaches an event, shown only as hasSecret. Custom header values
// likewise: sealed, shown as the mask (which, sent back, keeps the stored value).
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteInput } from '../route.ts';
import { runCommand } from '../../application/commands.ts';
import { IdParam } from './schemas.ts';
import { Page, PageQuery, page, pageRequest } from '../pagination.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { WEBHOOK_HEADERS_CONTEXT, WEBHOOK_RETRIES, WEBHOOK_TIMEOUT, checkEventTypes, webhookStream, webhooks } from '../../domain/webhooks/webhooks.ts';
import { HEADER_MASK, HEADER_NAME_PATTERN, HEADER_VALUE_PATTERN, maskHeaders, mergeHeaders } from '../../domain/shared/secretHeaders.ts';
import { catalogEntry, eventCatalog } from '../../domain/webhooks/eventCatalog.ts';
import { deliveryHeaders, envelopeOf, sampleData } from '../../domain/webhooks/delivery.ts';
import { getWebhook, listDeliveries, listWebhooks, webhookForDelivery, webhookNameTaken, type WebhookForDelivery } from '../../projections/webhooks.ts';

const tags = ['webhooks'];
const pro = { edition: 'pro' as const, feature: 'Outbound webhooks' };
const permission = 'system:configure';
const SECRET_CONTEXT = 'webhook_secret'; // the delivery worker opens it under the same context
/** Sealed JSON of header values; null when there are none. */
async function sealHeaders(input: Pick<RouteInput<unknown, unknown, unknown>, 'deps'>, headers: Record<string, string>): Promise<string | null> {
  return Object.keys(headers).length ? input.deps.secrets.seal(JSON.stringify(headers), WEBHOOK_HEADERS_CONTEXT) : null;
}

/** A webhook's real header values: sealed, or in clear for one saved before they were sealed. */
async function storedHeaders(input: Pick<RouteInput<unknown, unknown, unknown>, 'deps'>, hook: WebhookForDelivery): Promise<Record<string, string>> {
  return hook.sealedHeaders ? (JSON.parse(await input.deps.secrets.open(hook.sealedHeaders, WEBHOOK_HEADERS_CONTEXT)) as Record<string, string>) : hook.customHeaders;
}

const DeliveryParams = Type.Object({ id: Type.Integer({ minimum: 1 }), deliveryId: Type.String({ format: 'uuid' }) }, { additionalProperties: false });

const Headers = Type.Record(Type.String({ pattern: HEADER_NAME_PATTERN }), Type.String({ maxLength: 1000, pattern: HEADER_VALUE_PATTERN }), { description: `extra request headers, string to string (cannot replace the signature, event or instance headers). Names are RFC 9110 tokens, and not Host, Transfer-Encoding, Content-Length, Connection, Keep-Alive, Upgrade, TE, Trailer or Proxy-*; values hold tab, visible ASCII, space and U+0080-U+00FF only (400 naming the header). The values are secrets: write-only, sealed, read back as ${HEADER_MASK}; sending ${HEADER_MASK} as a value keeps the stored one` });
const fields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  url: Type.String({ minLength: 1, maxLength: 2000, description: 'http(s) destination; loopback, link-local and private addresses are refused unless LNM_ALLOW_PRIVATE_TARGETS=true' }),
  secret: Type.String({ minLength: 1, maxLength: 500, description: 'write-only; keys the HMAC-SHA256 of X-Webhook-Signature and X-Webhook-Signature-256. Left out: deliveries are unsigned' }),
  events: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 200, description: 'explicit event types of GET /webhooks/events; wildcards are refused' }),
  customHeaders: Headers,
  timeoutSeconds: Type.Integer({ minimum: WEBHOOK_TIMEOUT.minimum, maximum: WEBHOOK_TIMEOUT.maximum, description: `seconds a receiver has to answer with a 2xx (default ${WEBHOOK_TIMEOUT.default})` }),
  maxRetries: Type.Integer({ minimum: WEBHOOK_RETRIES.minimum, maximum: WEBHOOK_RETRIES.maximum, description: `retries after a failed attempt, 1 s, 2 s, 4 s ... apart (default ${WEBHOOK_RETRIES.default})` }),
};
const O = Type.Optional;
const CreateBody = Type.Object({
  name: fields.name, url: fields.url, events: fields.events,
  secret: O(fields.secret), customHeaders: O(fields.customHeaders), timeoutSeconds: O(fields.timeoutSeconds), maxRetries: O(fields.maxRetries),
}, { additionalProperties: false });
const UpdateBody = Type.Object({
  name: O(fields.name), url: O(fields.url), events: O(fields.events), customHeaders: O(fields.customHeaders), timeoutSeconds: O(fields.timeoutSeconds), maxRetries: O(fields.maxRetries),
  secret: O(Type.Union([fields.secret, Type.Null()], { description: 'a new secret; null removes it; left out keeps it' })),
  enabled: O(Type.Boolean({ description: 'true turns a webhook disabled after failures back on; false turns it off' })),
}, { additionalProperties: false });

const WebhookSchema = Type.Object({
  id: Type.Integer(), name: Type.String(), url: Type.String(), events: Type.Array(Type.String()), customHeaders: Type.Record(Type.String(), Type.String()),
  timeoutSeconds: Type.Integer(), maxRetries: Type.Integer(), hasSecret: Type.Boolean(), enabled: Type.Boolean(),
  disabledAt: Type.Union([Type.String(), Type.Null()]), disabledReason: Type.Union([Type.String(), Type.Null()]),
  consecutiveFailures: Type.Integer({ description: 'current run of failed deliveries (each after its retries); 0 after a success' }),
  createdAt: Type.String(), updatedAt: Type.String(),
});
const AttemptSchema = Type.Object({ attempt: Type.Integer(), at: Type.String(), responseCode: Type.Union([Type.Integer(), Type.Null()]), responseTimeMs: Type.Integer(), error: Type.Union([Type.String(), Type.Null()]) });
const DeliverySchema = Type.Object({
  id: Type.String({ description: 'delivery id (X-Webhook-Delivery)' }), webhookId: Type.Integer(),
  eventId: Type.String({ description: 'the envelope id: the idempotency key, the same on every attempt and replay' }), eventType: Type.String(),
  status: Type.String({ description: 'pending, retrying, succeeded, exhausted (all attempts failed; replayable) or cancelled (webhook disabled or deleted; replayable)' }),
  attempt: Type.Integer({ description: 'attempts made' }), maxAttempts: Type.Integer(),
  responseCode: Type.Union([Type.Integer(), Type.Null()]), responseTimeMs: Type.Union([Type.Integer(), Type.Null()]), error: Type.Union([Type.String(), Type.Null()]),
  responseExcerpt: Type.Union([Type.String(), Type.Null()], { description: 'at most the first 500 characters of the last response body' }),
  nextRetryAt: Type.Union([Type.String(), Type.Null()]), createdAt: Type.String(), completedAt: Type.Union([Type.String(), Type.Null()]),
  attempts: Type.Array(AttemptSchema),
});
const CatalogSchema = Type.Object({
  name: Type.String(), category: Type.String(), severity: Type.String(), description: Type.String(),
  produced: Type.Boolean({ description: 'false: subscribable, but no subsystem of this release raises it yet' }),
  data: Type.Record(Type.String(), Type.String(), { description: 'fields of the envelope data and their JSON types' }),
});
const shapes = eventCatalog.map((e) => `${e.name}: {${Object.entries(e.data).map(([k, t]) => `${k}: ${t}`).join(', ')}}`).join('; ');

async function view(pool: import('pg').Pool, id: number) {
  const w = await getWebhook(pool, id);
  if (!w) throw new NotFoundError('Webhook', id);
  const run = await pool.query('SELECT consecutive_failures FROM webhook_failure_runs WHERE webhook_id = $1', [id]);
  return { ...w, consecutiveFailures: run.rows[0]?.consecutive_failures ?? 0 };
}

async function checkUrl(input: Pick<RouteInput<unknown, unknown, unknown>, 'deps'>, u: string) {
  const refusal = await input.deps.outbound.refusal(u);
  if (refusal) throw new ValidationError(`The webhook URL is refused: ${refusal}.`, [{ field: 'url', message: refusal }]);
}

export const webhookRoutes = [
  defineRoute({
    method: 'get', path: '/webhooks/events', summary: 'Catalog of webhook event types', tags, permission, ...pro,
    description: `Every event type a webhook can subscribe to, with category, default severity and the shape of \`data\`. Envelope of every delivery: {id (idempotency key), event, category, severity, timestamp (ISO 8601, ms), instance {id, version}, data}. Data shapes: ${shapes}.`,
    responses: { 200: { description: 'the catalog', schema: Type.Object({ total: Type.Integer(), events: Type.Array(CatalogSchema) }) } },
    async handler() {
      return { body: { total: eventCatalog.length, events: eventCatalog.map(({ source, ...e }) => ({ ...e, produced: source !== null })) } };
    },
  }),
  defineRoute({
    method: 'get', path: '/webhooks', summary: 'List webhooks', tags, permission, ...pro,
    query: Type.Object({ ...PageQuery }, { additionalProperties: false }),
    responses: { 200: { description: 'webhooks (secrets never shown)', schema: Page(WebhookSchema) } },
    async handler({ deps, query }) {
      const { limit, offset } = pageRequest(deps.config, query);
      const { items, total } = await listWebhooks(deps.pool, limit, offset);
      return { body: page(await Promise.all(items.map((w) => view(deps.pool, w.id))), total, limit, offset) };
    },
  }),
  defineRoute({
    method: 'post', path: '/webhooks', summary: 'Create a webhook', tags, permission, ...pro, body: CreateBody,
    description: 'Delivery: a JSON POST per event, signed (X-Webhook-Signature: hex HMAC-SHA256 of the raw body keyed by the secret; X-Webhook-Signature-256: sha256=<same>), with X-Webhook-Event, X-Webhook-Id (envelope id), X-Webhook-Delivery, X-Webhook-Attempt and X-Webhook-Instance (not to be trusted: only the signature is). Success is a 2xx within timeoutSeconds; anything else is retried after 1 s, 2 s, 4 s ... up to maxRetries, then the delivery is exhausted and replayable. At-least-once: a receiver may see an envelope id twice.',
    responses: { 201: { description: 'created', schema: WebhookSchema }, 400: { description: 'invalid body, unknown event type or wildcard, refused URL' }, 409: { description: 'name taken' } },
    async handler(input) {
      const { deps, body } = input;
      checkEventTypes(body.events);
      await checkUrl(input, body.url);
      if (await webhookNameTaken(deps.pool, body.name)) throw new ConflictError(`A webhook named ${body.name} exists already.`, { field: 'name' });
      const sealedSecret = body.secret ? await deps.secrets.seal(body.secret, SECRET_CONTEXT) : null;
      const headers = mergeHeaders(body.customHeaders ?? {}, {}, 'customHeaders');
      const webhookId = await deps.nextId('webhook');
      await runCommand(input, webhookStream(webhookId), webhooks, {
        type: 'CreateWebhook', webhookId, name: body.name, url: body.url, events: body.events, customHeaders: maskHeaders(headers), sealedHeaders: await sealHeaders(input, headers),
        timeoutSeconds: body.timeoutSeconds ?? WEBHOOK_TIMEOUT.default, maxRetries: body.maxRetries ?? WEBHOOK_RETRIES.default, sealedSecret, at: deps.clock().toISOString(),
      });
      return { status: 201, body: await view(deps.pool, webhookId), headers: { Location: `/api/v1/webhooks/${webhookId}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/webhooks/:id', summary: 'Read a webhook', tags, permission, ...pro, params: IdParam,
    responses: { 200: { description: 'the webhook', schema: WebhookSchema }, 404: { description: 'no such webhook' } },
    async handler({ deps, params }) {
      return { body: await view(deps.pool, params.id) };
    },
  }),
  defineRoute({
    method: 'put', path: '/webhooks/:id', summary: 'Change a webhook (fields left out keep their values); enabled: true re-enables it', tags, permission, ...pro, params: IdParam, body: UpdateBody,
    responses: { 200: { description: 'the webhook after the change', schema: WebhookSchema }, 400: { description: 'invalid body' }, 404: { description: 'no such webhook' }, 409: { description: 'name taken' } },
    async handler(input) {
      const { deps, params, body } = input;
      const stored = await webhookForDelivery(deps.pool, params.id);
      if (!stored) throw new NotFoundError('Webhook', params.id);
      if (body.events) checkEventTypes(body.events);
      if (body.url) await checkUrl(input, body.url);
      if (body.name && (await webhookNameTaken(deps.pool, body.name, params.id))) throw new ConflictError(`A webhook named ${body.name} exists already.`, { field: 'name' });
      const { secret, enabled, customHeaders, ...rest } = body;
      const sealedSecret = secret === undefined ? undefined : secret === null ? null : await deps.secrets.seal(secret, SECRET_CONTEXT);
      const headers = customHeaders === undefined ? undefined : mergeHeaders(customHeaders, await storedHeaders(input, stored), 'customHeaders');
      const changes = headers === undefined ? rest : { ...rest, customHeaders: maskHeaders(headers) };
      const sealedHeaders = headers === undefined ? undefined : await sealHeaders(input, headers);
      await runCommand(input, webhookStream(params.id), webhooks, { type: 'UpdateWebhook', webhookId: params.id, changes, sealedSecret, sealedHeaders, enabled, at: deps.clock().toISOString() });
      return { body: await view(deps.pool, params.id) };
    },
  }),
  defineRoute({
    method: 'delete', path: '/webhooks/:id', summary: 'Delete a webhook (queued deliveries are cancelled)', tags, permission, ...pro, params: IdParam,
    responses: { 204: { description: 'deleted' }, 404: { description: 'no such webhook' } },
    async handler(input) {
      await runCommand(input, webhookStream(input.params.id), webhooks, { type: 'DeleteWebhook', webhookId: input.params.id, at: input.deps.clock().toISOString() });
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post', path: '/webhooks/:id/test', summary: 'Send a synthetic event of each subscribed type and report what the receiver answered', tags, permission, ...pro, params: IdParam,
    description: 'Each test envelope has a fresh id, `test: true` and sample data of the type\'s shape; it is signed like a real delivery and not retried. The call succeeds whatever the receiver answers: each result says its status code, time and error.',
    responses: { 200: { description: 'one result per subscribed event type', schema: Type.Object({ webhookId: Type.Integer(), success: Type.Boolean(), results: Type.Array(Type.Object({ event: Type.String(), success: Type.Boolean(), statusCode: Type.Union([Type.Integer(), Type.Null()]), responseTimeMs: Type.Integer(), error: Type.Union([Type.String(), Type.Null()]), responseExcerpt: Type.Union([Type.String(), Type.Null()]) })) }) }, 404: { description: 'no such webhook' } },
    async handler({ deps, params }) {
      const hook = await webhookForDelivery(deps.pool, params.id);
      if (!hook) throw new NotFoundError('Webhook', params.id);
      const secret = hook.sealedSecret ? await deps.secrets.open(hook.sealedSecret, SECRET_CONTEXT) : null;
      const customHeaders = await storedHeaders({ deps }, hook);
      const instance = { id: deps.config.instanceId, version: deps.config.version };
      // Side by side, so the call takes about one timeout however many types are subscribed.
      const results = await Promise.all(hook.events.map((type) => catalogEntry(type)).filter((e) => e !== null).map(async (entry) => {
        const at = deps.clock().toISOString();
        const id = randomUUID();
        const body = JSON.stringify({ ...envelopeOf(entry, id, at, instance, sampleData(entry, at)), test: true });
        const headers = deliveryHeaders({ body, secret, event: entry.name, envelopeId: id, deliveryId: id, attempt: 1, instanceId: instance.id, customHeaders });
        const r = await deps.outbound.post({ url: hook.url, headers, body, timeoutMs: hook.timeoutSeconds * 1000 });
        return { event: entry.name, success: r.ok, statusCode: r.statusCode, responseTimeMs: r.durationMs, error: r.error, responseExcerpt: r.excerpt };
      }));
      return { body: { webhookId: hook.id, success: results.every((r) => r.success), results } };
    },
  }),
  defineRoute({
    method: 'get', path: '/webhooks/:id/deliveries', summary: 'Recent deliveries of a webhook, newest first, with each attempt', tags, permission, ...pro, params: IdParam,
    query: Type.Object({ ...PageQuery, status: Type.Optional(Type.Union(['pending', 'retrying', 'succeeded', 'exhausted', 'cancelled'].map((s) => Type.Literal(s)))) }, { additionalProperties: false }),
    responses: { 200: { description: 'deliveries', schema: Page(DeliverySchema) }, 404: { description: 'no such webhook' } },
    async handler({ deps, params, query }) {
      const stored = await webhookForDelivery(deps.pool, params.id);
      if (!stored) throw new NotFoundError('Webhook', params.id);
      const { limit, offset } = pageRequest(deps.config, query);
      const { items, total } = await listDeliveries(deps.pool, params.id, { limit, offset, status: query.status });
      return { body: page(items, total, limit, offset) };
    },
  }),
  defineRoute({
    method: 'post', path: '/webhooks/:id/replay/:deliveryId', summary: 'Send an exhausted or cancelled delivery again (same body, same envelope id)', tags, permission, ...pro, params: DeliveryParams,
    description: 'The delivery gets 1 + maxRetries new attempts, sent at once. A delivery still pending or retrying, or already succeeded, or a disabled webhook, answers 409.',
    responses: { 202: { description: 'queued again', schema: DeliverySchema }, 404: { description: 'no such webhook or delivery' }, 409: { description: 'the delivery is not exhausted or cancelled, or the webhook is disabled' } },
    async handler(input) {
      const { deps, params } = input;
      const hook = await getWebhook(deps.pool, params.id);
      if (!hook) throw new NotFoundError('Webhook', params.id);
      const d = (await deps.pool.query('SELECT id, event_id, event_type, status FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2', [params.deliveryId, params.id])).rows[0];
      if (!d) throw new NotFoundError('Delivery', params.deliveryId);
      if (d.status !== 'exhausted' && d.status !== 'cancelled') throw new ConflictError(`Delivery ${d.id} is ${d.status}; only exhausted or cancelled deliveries are replayed.`, { status: d.status });
      if (!hook.enabled) throw new ConflictError(`Webhook ${hook.name} is disabled; enable it (PUT enabled: true) before replaying.`, { enabled: false });
      await runCommand(input, webhookStream(params.id), webhooks, { type: 'ReplayDelivery', webhookId: params.id, deliveryId: d.id, eventId: d.event_id, eventType: d.event_type, at: deps.clock().toISOString() });
      await deps.pool.query(
        `UPDATE webhook_deliveries SET status = 'pending', max_attempts = attempts + $2, next_attempt_at = now(), lease_until = NULL, completed_at = NULL, updated_at = now()
          WHERE id = $1 AND status IN ('exhausted', 'cancelled')`,
        [d.id, hook.maxRetries + 1],
      );
      deps.wakeWebhookDeliveries();
      const { items } = await listDeliveries(deps.pool, params.id, { limit: 1, offset: 0, id: d.id });
      return { status: 202, body: items[0] };
    },
  }),
];
