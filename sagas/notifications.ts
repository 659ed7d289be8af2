// Notifications: node downtime and recovery, backup success and failure, S3 connection issues,
// disk space warnings (and webhooks disabled after failures, for the default provider) become
// one durable timer per (event, provider) whose switch lets the kind through. The timer sends;
// a failed send is retried after 1 s, 2 s, 4 s, 8 s, then recorded as NotificationFailed. Every
// outcome is an event on the provider's stream (NotificationSent / NotificationFailed).
import type pg from 'pg';
import type { EventStore } from '../domain/shared/eventStore.ts';
import { handleCommand } from '../domain/shared/commandHandler.ts';
import { DuplicateEventError } from '../domain/shared/errors.ts';
import { catalogEntryOfDomainEvent, publicData } from '../domain/webhooks/eventCatalog.ts';
import { kindOfEvent, kindSwitch, notificationOf, type NotificationKind } from '../domain/notifications/messages.ts';
import { notificationProviderStream, notificationProviders } from '../domain/notifications/notificationProviders.ts';
import { sendNotification, type NotifierDeps } from '../domain/notifications/notifier.ts';
import { retryDelayMs } from '../domain/webhooks/delivery.ts';
import type { Saga } from './saga.ts';
import { sagaEventId } from './sagaRunner.ts';

const NAME = 'notifications';
export const NOTIFICATION_ATTEMPTS = 5;
const columns: Record<string, string> = { notifyNodeDowntime: 'notify_node_downtime', notifyBackupSuccess: 'notify_backup_success', notifyBackupFailure: 'notify_backup_failure', notifyS3ConnIssue: 'notify_s3_conn_issue', notifyDiskSpaceWarning: 'notify_disk_space_warning' };

type Kind = Exclude<NotificationKind, 'TEST'>;

function kindOf(domainType: string): Kind | null {
  return kindOfEvent[domainType] ?? kindOfEvent[catalogEntryOfDomainEvent(domainType)?.name ?? ''] ?? null;
}

/** Domain types that produce notifications, among those given (the catalog's sources). */
export const notifyingDomainEvents = (candidates: readonly string[]) => candidates.filter((t) => kindOf(t) !== null);

export function notificationsSaga(opts: { pool: pg.Pool; store: EventStore; notifier: NotifierDeps; domainTypes: readonly string[] }): Saga {
  const { pool, store } = opts;
  return {
    name: NAME,
    handles: [...notifyingDomainEvents(opts.domainTypes), 'WebhookDisabled'],
    startAt: 'head',
    async handle(e, ctx) {
      const kind = kindOf(e.type);
      if (!kind) return;
      const gate = kindSwitch[kind];
      const providers = await pool.query(`SELECT id FROM notification_providers WHERE ${gate === 'default' ? 'is_default' : columns[gate]} ORDER BY id`);
      const entry = catalogEntryOfDomainEvent(e.type);
      const data = entry ? publicData(entry, e.data) : e.data;
      for (const p of providers.rows) {
        await ctx.schedule(`notify:${e.id}:${p.id}`, ctx.now(), { providerId: p.id, kind, eventId: e.id, timestamp: e.metadata.timestamp, data, attempt: 1 });
      }
    },
    async onTimer(timer, ctx) {
      const { providerId, kind, eventId, timestamp, data } = timer.payload as { providerId: number; kind: Kind; eventId: string; timestamp: string; data: Record<string, unknown> };
      const attempt = Number(timer.payload.attempt ?? 1);
      const row = (await pool.query('SELECT id, name, type, public_config, sealed_secrets FROM notification_providers WHERE id = $1', [providerId])).rows[0];
      if (!row) return; // deleted since
      const n = notificationOf(kind, eventId, timestamp, data);
      const r = await sendNotification(opts.notifier, { id: row.id, name: row.name, type: row.type, config: row.public_config, sealedSecrets: row.sealed_secrets }, n);
      if (!r.ok && attempt < NOTIFICATION_ATTEMPTS) {
        ctx.log('notification failed; retrying', { providerId, kind, attempt, error: r.message });
        await ctx.schedule(timer.id, new Date(ctx.now().getTime() + retryDelayMs(attempt)), { ...timer.payload, attempt: attempt + 1 });
        return;
      }
      let i = 0;
      try {
        await handleCommand(store, notificationProviderStream(providerId), notificationProviders, { type: 'RecordNotificationOutcome', providerId, kind, sourceEventId: eventId, attempts: attempt, error: r.ok ? null : r.message, at: ctx.now().toISOString() }, {
          metadata: { timestamp: ctx.now().toISOString(), actor: null, causationId: eventId },
          newId: () => sagaEventId(NAME, `${timer.id}@${attempt}`, i++),
        });
      } catch (err) {
        if (!(err instanceof DuplicateEventError)) throw err;
      }
    },
  };
}
