// What goes on the wire for one delivery: the envelope of SPEC.md (id, event, category,
// severity, timestamp, instance, data) and its headers. The signature is the lowercase hex
// HMAC-SHA256 of the exact body bytes keyed by the webhook secret, in X-Webhook-Signature and,
// prefixed sha256=, in X-Webhook-Signature-256. X-Webhook-Instance names the sender; receivers
// must not trust it (anyone can set a header), only the signature.
import { createHmac } from 'node:crypto';
import type { CatalogEntry } from './eventCatalog.ts';

export interface Envelope {
  id: string;
  event: string;
  category: string;
  severity: string;
  timestamp: string;
  instance: { id: string; version: string };
  data: Record<string, unknown>;
  /** Present (true) only on deliveries of POST /webhooks/{id}/test. */
  test?: boolean;
}

export function envelopeOf(entry: CatalogEntry, id: string, timestamp: string, instance: Envelope['instance'], data: Record<string, unknown>): Envelope {
  return { id, event: entry.name, category: entry.category, severity: entry.severity, timestamp, instance, data };
}

export const hmacSha256Hex = (secret: string, body: string) => createHmac('sha256', secret).update(body, 'utf8').digest('hex');

export function deliveryHeaders(opts: { body: string; secret: string | null; event: string; envelopeId: string; deliveryId: string; attempt: number; instanceId: string; customHeaders: Record<string, string> }): Record<string, string> {
  const own: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'lnm-webhooks/1',
    'x-webhook-event': opts.event,
    'x-webhook-id': opts.envelopeId,
    'x-webhook-delivery': opts.deliveryId,
    'x-webhook-attempt': String(opts.attempt),
    'x-webhook-instance': opts.instanceId,
  };
  if (opts.secret) {
    const sig = hmacSha256Hex(opts.secret, opts.body);
    own['x-webhook-signature'] = sig;
    own['x-webhook-signature-256'] = `sha256=${sig}`;
  }
  // Custom headers cannot replace the service's own (a signature header, say).
  const custom = Object.fromEntries(Object.entries(opts.customHeaders).filter(([k]) => !Object.hasOwn(own, k.toLowerCase())));
  return { ...custom, ...own };
}

const sample: Record<string, unknown> = { string: 'example', integer: 1, boolean: true, 'string|null': null, 'integer|null': null, 'string[]': [], object: {}, 'object[]': [] };

/** A synthetic `data` of the catalog's shape, for test deliveries. */
export function sampleData(entry: CatalogEntry, at: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entry.data).map(([k, t]) => [k, k === 'at' ? at : sample[t]]));
}

/** Backoff before retry n (1-based): 1 s, 2 s, 4 s, ... */
export const retryDelayMs = (retry: number) => 1000 * 2 ** (retry - 1);
