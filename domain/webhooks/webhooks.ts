// Outbound webhooks (pro): one stream per webhook. The signing secret arrives already sealed
// under KEY_ENCRYPTION_KEY, so no event holds it in clear. The delivery worker disables a
// webhook after a run of consecutive failures (WebhookDisabled); a PUT with enabled: true turns
// it back on, and the run goes on counting until the first success. Custom header values are
// secrets too (domain/shared/secretHeaders.ts): events carry them masked, and sealed in
// sealedHeaders (events from before that carry them in clear and no sealedHeaders).
import type { Decider } from '../shared/decider.ts';
import { assertNever } from '../shared/decider.ts';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.ts';
import { catalogEntry } from './eventCatalog.ts';

export const webhookStream = (id: number) => `webhook-${id}`;
/** The sealing context of a webhook's custom header values (the routes seal, the delivery worker opens). */
export const WEBHOOK_HEADERS_CONTEXT = 'webhook_headers';
export const WEBHOOK_TIMEOUT = { default: 10, minimum: 1, maximum: 60 };
export const WEBHOOK_RETRIES = { default: 3, minimum: 0, maximum: 10 };

export interface WebhookFields {
  name: string;
  url: string;
  events: string[];
  /** Header names with masked values (in clear in events from before sealedHeaders). */
  customHeaders: Record<string, string>;
  timeoutSeconds: number;
  maxRetries: number;
  /** Sealed signing secret, or null (deliveries then carry no signature headers). */
  sealedSecret: string | null;
  /** Sealed JSON of the custom headers' real values; null: none; undefined: an event from before sealing. */
  sealedHeaders?: string | null;
}

type Sealed = 'sealedSecret' | 'sealedHeaders';

export interface WebhookState {
  status: 'none' | 'active' | 'deleted';
  webhookId?: number;
  fields?: WebhookFields;
  enabled?: boolean;
}

export type WebhookEvent =
  | { type: 'WebhookCreated'; data: WebhookFields & { webhookId: number; at: string } }
  | { type: 'WebhookUpdated'; data: { webhookId: number; before: Omit<WebhookFields, Sealed>; after: Omit<WebhookFields, Sealed>; sealedSecret?: string | null; sealedHeaders?: string | null; enabled: boolean; at: string } }
  | { type: 'WebhookDisabled'; data: { webhookId: number; name: string; consecutiveFailures: number; lastError: string; at: string } }
  | { type: 'WebhookDeleted'; data: { webhookId: number; name: string; at: string } }
  | { type: 'WebhookDeliveryExhausted'; data: { webhookId: number; deliveryId: string; eventId: string; eventType: string; attempts: number; lastError: string; consecutiveFailures: number; at: string } }
  | { type: 'WebhookDeliveryReplayed'; data: { webhookId: number; deliveryId: string; eventId: string; eventType: string; at: string } };

export type WebhookCommand =
  | ({ type: 'CreateWebhook'; webhookId: number; at: string } & WebhookFields)
  /** sealedSecret / sealedHeaders undefined keep the stored ones; enabled undefined keeps the state. */
  | { type: 'UpdateWebhook'; webhookId: number; changes: Partial<Omit<WebhookFields, Sealed>>; sealedSecret?: string | null; sealedHeaders?: string | null; enabled?: boolean; at: string }
  | { type: 'DisableWebhook'; webhookId: number; consecutiveFailures: number; lastError: string; at: string }
  | { type: 'DeleteWebhook'; webhookId: number; at: string }
  | { type: 'RecordDeliveryExhausted'; webhookId: number; deliveryId: string; eventId: string; eventType: string; attempts: number; lastError: string; consecutiveFailures: number; at: string }
  | { type: 'ReplayDelivery'; webhookId: number; deliveryId: string; eventId: string; eventType: string; at: string };

/** Explicit, known event types only: wildcards and unknown names are refused. */
export function checkEventTypes(events: string[]): void {
  const bad = events.filter((e) => !catalogEntry(e));
  if (bad.length) {
    const wild = bad.some((e) => e.includes('*'));
    throw new ValidationError(
      `${wild ? 'Wildcards are not supported; list' : 'Unknown event type(s): ' + bad.join(', ') + '. List'} explicit event types from the webhook event catalog.`,
      bad.map((e) => ({ field: 'events', message: `${e}: ${e.includes('*') ? 'wildcards are not supported' : 'not an event type of the catalog'}` })),
    );
  }
  if (new Set(events).size !== events.length) throw new ValidationError('events lists a type twice.', [{ field: 'events', message: 'duplicates' }]);
}

const publicFields = (f: WebhookFields): Omit<WebhookFields, Sealed> => ({ name: f.name, url: f.url, events: f.events, customHeaders: f.customHeaders, timeoutSeconds: f.timeoutSeconds, maxRetries: f.maxRetries });

export const webhooks: Decider<WebhookState, WebhookCommand, WebhookEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(s, e) {
    switch (e.type) {
      case 'WebhookCreated': {
        const { webhookId, at: _at, ...fields } = e.data;
        return { status: 'active', webhookId, fields, enabled: true };
      }
      case 'WebhookUpdated':
        return {
          ...s,
          fields: {
            ...s.fields!,
            ...e.data.after,
            sealedSecret: e.data.sealedSecret === undefined ? s.fields!.sealedSecret : e.data.sealedSecret,
            sealedHeaders: e.data.sealedHeaders === undefined ? s.fields!.sealedHeaders : e.data.sealedHeaders,
          },
          enabled: e.data.enabled,
        };
      case 'WebhookDisabled':
        return { ...s, enabled: false };
      case 'WebhookDeleted':
        return { ...s, status: 'deleted' };
      case 'WebhookDeliveryExhausted':
      case 'WebhookDeliveryReplayed':
        return s;
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'CreateWebhook': {
        if (s.status !== 'none') throw new ConflictError(`Webhook ${c.webhookId} exists already.`);
        checkEventTypes(c.events);
        const { type: _t, ...data } = c;
        return [{ type: 'WebhookCreated', data }];
      }
      case 'UpdateWebhook': {
        if (s.status !== 'active') throw new NotFoundError('Webhook', c.webhookId);
        const before = publicFields(s.fields!);
        const after = { ...before, ...c.changes };
        checkEventTypes(after.events);
        const enabled = c.enabled ?? s.enabled!;
        const secretChanged = c.sealedSecret !== undefined;
        // Header values change under their masks: a new seal is a change even when after equals before.
        const headersChanged = c.sealedHeaders !== undefined && c.sealedHeaders !== s.fields!.sealedHeaders;
        if (!secretChanged && !headersChanged && enabled === s.enabled && JSON.stringify(after) === JSON.stringify(before)) return [];
        return [{ type: 'WebhookUpdated', data: { webhookId: c.webhookId, before, after, ...(secretChanged ? { sealedSecret: c.sealedSecret } : {}), ...(headersChanged ? { sealedHeaders: c.sealedHeaders } : {}), enabled, at: c.at } }];
      }
      case 'DisableWebhook':
        if (s.status !== 'active' || !s.enabled) return [];
        return [{ type: 'WebhookDisabled', data: { webhookId: c.webhookId, name: s.fields!.name, consecutiveFailures: c.consecutiveFailures, lastError: c.lastError, at: c.at } }];
      case 'DeleteWebhook':
        if (s.status !== 'active') throw new NotFoundError('Webhook', c.webhookId);
        return [{ type: 'WebhookDeleted', data: { webhookId: c.webhookId, name: s.fields!.name, at: c.at } }];
      case 'RecordDeliveryExhausted': {
        if (s.status !== 'active') return [];
        const { type: _t, ...data } = c;
        return [{ type: 'WebhookDeliveryExhausted', data }];
      }
      case 'ReplayDelivery': {
        if (s.status !== 'active') throw new NotFoundError('Webhook', c.webhookId);
        const { type: _t, ...data } = c;
        return [{ type: 'WebhookDeliveryReplayed', data }];
      }
      default:
        return assertNever(c);
    }
  },
};
