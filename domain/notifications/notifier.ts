// Sends one notification through one provider: the email or the webhook post, with the
// provider's secrets opened only for the send. Used by the notifications saga and by
// POST /notifications/providers/{id}/test alike. Outcomes are values, never exceptions.
import type { OutboundHttp, SecretBox } from '../webhooks/ports.ts';
import { hmacSha256Hex } from '../webhooks/delivery.ts';
import type { EmailSender } from './ports.ts';
import { emailOf, webhookPayloadOf, type Notification, type WebhookFormat } from './messages.ts';
import type { NotificationProviderType } from './notificationProviders.ts';

export const NOTIFICATION_SECRET_CONTEXT = 'notification_provider_secrets';

export interface NotifierDeps {
  email: EmailSender;
  outbound: OutboundHttp;
  secrets: SecretBox;
  serviceTag: string;
  instance: { id: string; version: string };
}

export interface ProviderForSending {
  id: number;
  name: string;
  type: NotificationProviderType;
  config: Record<string, any>;
  sealedSecrets: string | null;
}

export async function sendNotification(deps: NotifierDeps, p: ProviderForSending, n: Notification, opts: { to?: string[] } = {}): Promise<{ ok: boolean; message: string }> {
  let secrets: { password?: string; secret?: string; customHeaders?: Record<string, string> } = {};
  try {
    if (p.sealedSecrets) secrets = JSON.parse(await deps.secrets.open(p.sealedSecrets, NOTIFICATION_SECRET_CONTEXT));
  } catch (err) {
    return { ok: false, message: `the provider's stored secret cannot be opened: ${(err as Error).message}` };
  }
  if (p.type === 'SMTP') {
    const c = p.config;
    const recipients: string[] = opts.to?.length ? opts.to : c.recipients?.length ? c.recipients : [c.from];
    const mail = emailOf(n, deps.serviceTag, deps.instance);
    return deps.email.send(
      { host: c.host, port: c.port, username: c.username, password: secrets.password ?? '', from: c.from, tls: c.tls === true, caCert: c.caCert ?? null, timeoutSeconds: c.timeout ?? 30 },
      { to: recipients, ...mail },
    );
  }
  const c = p.config;
  const body = JSON.stringify(webhookPayloadOf(n, c.format as WebhookFormat, deps.instance));
  const own: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'lnm-notifications/1', 'x-notification-event': n.kind, 'x-notification-id': n.eventId };
  if (secrets.secret) own['x-signature-256'] = `sha256=${hmacSha256Hex(secrets.secret, body)}`;
  // Header values are sealed with the secrets (in the config in clear only for providers saved before that).
  const custom = Object.fromEntries(Object.entries((secrets.customHeaders ?? c.customHeaders ?? {}) as Record<string, string>).filter(([k]) => !Object.hasOwn(own, k.toLowerCase())));
  const r = await deps.outbound.post({ url: c.url, headers: { ...custom, ...own }, body, timeoutMs: (c.timeout ?? 30) * 1000 });
  return r.ok ? { ok: true, message: `${c.url} answered HTTP ${r.statusCode} in ${r.durationMs} ms` } : { ok: false, message: `${c.url}: ${r.error}${r.excerpt ? ` (${r.excerpt.slice(0, 200)})` : ''}` };
}
