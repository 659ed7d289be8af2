// What a notification says, built once from the event and rendered per channel: an email
// (subject "[<service tag>] <title>", text and HTML bodies naming the node or backup, times,
// duration and error), and the webhook formats GENERIC (SPEC's payload), SLACK and DISCORD.
import type { NotifySwitch } from './notificationProviders.ts';

export type NotificationKind = 'NODE_DOWNTIME' | 'NODE_RECOVERY' | 'BACKUP_SUCCESS' | 'BACKUP_FAILURE' | 'S3_CONNECTION_ISSUE' | 'DISK_SPACE_WARNING' | 'WEBHOOK_DISABLED' | 'TEST';
export type NotificationSeverity = 'CRITICAL' | 'WARNING' | 'INFO' | 'SUCCESS';

/** Which switch lets a kind through; 'default': only the default provider gets it. */
export const kindSwitch: Record<Exclude<NotificationKind, 'TEST'>, NotifySwitch | 'default'> = {
  NODE_DOWNTIME: 'notifyNodeDowntime',
  NODE_RECOVERY: 'notifyNodeDowntime',
  BACKUP_SUCCESS: 'notifyBackupSuccess',
  BACKUP_FAILURE: 'notifyBackupFailure',
  S3_CONNECTION_ISSUE: 'notifyS3ConnIssue',
  DISK_SPACE_WARNING: 'notifyDiskSpaceWarning',
  WEBHOOK_DISABLED: 'default',
};

/** Public event name (eventCatalog) or domain type -> notification kind. */
export const kindOfEvent: Record<string, Exclude<NotificationKind, 'TEST'>> = {
  'node.downtime': 'NODE_DOWNTIME',
  'node.recovery': 'NODE_RECOVERY',
  'backup.success': 'BACKUP_SUCCESS',
  'backup.failure': 'BACKUP_FAILURE',
  'system.s3.connection_issue': 'S3_CONNECTION_ISSUE',
  'system.disk_space.warning': 'DISK_SPACE_WARNING',
  WebhookDisabled: 'WEBHOOK_DISABLED',
};

export interface Notification {
  eventId: string;
  kind: NotificationKind;
  severity: NotificationSeverity;
  title: string;
  timestamp: string;
  nodeId: number | null;
  /** The `data` of the generic payload. */
  data: Record<string, unknown>;
  /** Label and value lines of the email and chat messages, in reading order. */
  lines: Array<[string, string]>;
}

const str = (v: unknown) => (v === null || v === undefined || v === '' ? null : String(v));

export function durationText(ms: number): string {
  if (!(ms >= 0)) return 'unknown';
  const s = Math.round(ms / 1000);
  const parts = [[Math.floor(s / 86400), 'd'], [Math.floor((s % 86400) / 3600), 'h'], [Math.floor((s % 3600) / 60), 'min'], [s % 60, 's']] as const;
  const shown = parts.filter(([n]) => n > 0).map(([n, u]) => `${n} ${u}`);
  return shown.length ? shown.join(' ') : '0 s';
}

const lines = (pairs: Array<[string, unknown]>): Array<[string, string]> => pairs.filter(([, v]) => str(v) !== null).map(([k, v]) => [k, String(v)]);

/** The notification of an event (catalog-shaped data), or null when the kind is unknown. */
export function notificationOf(kind: Exclude<NotificationKind, 'TEST'>, eventId: string, timestamp: string, d: Record<string, any>): Notification {
  const base = { eventId, kind, timestamp, nodeId: null as number | null };
  switch (kind) {
    case 'NODE_DOWNTIME': {
      const downSince = d.at ?? timestamp;
      return { ...base, nodeId: d.nodeId ?? null, severity: 'CRITICAL', title: `Node ${d.nodeName} is down`,
        data: { nodeName: d.nodeName, nodeType: d.nodeType, downSince, lastHealthyAt: d.lastHealthyAt ?? null, consecutiveFailures: d.consecutiveFailures ?? null, error: d.reason ?? null },
        lines: lines([['Node', `${d.nodeName} (id ${d.nodeId})`], ['Type', d.nodeType], ['Down since', downSince], ['Last healthy at', d.lastHealthyAt],
          ['Unhealthy for', d.lastHealthyAt ? durationText(Date.parse(downSince) - Date.parse(d.lastHealthyAt)) : null], ['Failed health checks', d.consecutiveFailures], ['Error', d.reason]]) };
    }
    case 'NODE_RECOVERY': {
      const recoveredAt = d.at ?? timestamp;
      const downtimeMs = d.downSince ? Date.parse(recoveredAt) - Date.parse(d.downSince) : NaN;
      return { ...base, nodeId: d.nodeId ?? null, severity: 'SUCCESS', title: `Node ${d.nodeName} recovered`,
        data: { nodeName: d.nodeName, nodeType: d.nodeType, downSince: d.downSince ?? null, recoveredAt, downtimeSeconds: Number.isFinite(downtimeMs) ? Math.round(downtimeMs / 1000) : null },
        lines: lines([['Node', `${d.nodeName} (id ${d.nodeId})`], ['Type', d.nodeType], ['Down since', d.downSince], ['Recovered at', recoveredAt], ['Downtime', Number.isFinite(downtimeMs) ? durationText(downtimeMs) : null]]) };
    }
    case 'BACKUP_SUCCESS':
    case 'BACKUP_FAILURE': {
      const ok = kind === 'BACKUP_SUCCESS';
      return { ...base, severity: ok ? 'SUCCESS' : 'CRITICAL', title: `Backup ${d.backupName} ${ok ? 'completed' : 'failed'}`,
        data: { backupId: d.backupId ?? null, backupName: d.backupName, targetName: d.targetName ?? null, startedAt: d.startedAt ?? null, completedAt: d.completedAt ?? null, durationMs: d.durationMs ?? null, error: d.error ?? null },
        lines: lines([['Backup', d.backupName], ['Target', d.targetName], ['Started at', d.startedAt], [ok ? 'Completed at' : 'Failed at', d.completedAt ?? timestamp], ['Duration', typeof d.durationMs === 'number' ? durationText(d.durationMs) : null], ['Error', d.error]]) };
    }
    case 'S3_CONNECTION_ISSUE':
      // The domain event says name and reason; older callers said targetName and error.
      return { ...base, severity: 'CRITICAL', title: `Backup target ${d.targetName ?? d.name} cannot be reached`,
        data: { targetId: d.targetId ?? null, targetName: d.targetName ?? d.name, error: d.error ?? d.reason ?? null },
        lines: lines([['Target', d.targetName ?? d.name], ['Checked at', d.at ?? timestamp], ['Error', d.error ?? d.reason]]) };
    case 'DISK_SPACE_WARNING':
      return { ...base, severity: 'WARNING', title: `Disk space warning: ${d.usedPercent}% used`,
        data: { path: d.path, usedPercent: d.usedPercent, thresholdPercent: d.thresholdPercent, freeBytes: d.freeBytes, totalBytes: d.totalBytes },
        lines: lines([['Path', d.path], ['Used', `${d.usedPercent}% (threshold ${d.thresholdPercent}%)`], ['Free', `${Math.round(Number(d.freeBytes) / 2 ** 20)} MiB of ${Math.round(Number(d.totalBytes) / 2 ** 20)} MiB`], ['Checked at', d.at ?? timestamp]]) };
    case 'WEBHOOK_DISABLED':
      return { ...base, severity: 'WARNING', title: `Webhook ${d.name} disabled after ${d.consecutiveFailures} failed deliveries`,
        data: { webhookId: d.webhookId, webhookName: d.name, consecutiveFailures: d.consecutiveFailures, error: d.lastError ?? null },
        lines: lines([['Webhook', `${d.name} (id ${d.webhookId})`], ['Disabled at', d.at ?? timestamp], ['Failed deliveries in a row', d.consecutiveFailures], ['Last error', d.lastError], ['To resume', 'enable the webhook again (its page in the console, or its update with enabled: true)']]) };
    default: {
      const never: never = kind;
      throw new Error(`unknown notification kind ${never}`);
    }
  }
}

export function testNotification(eventId: string, timestamp: string, providerName: string): Notification {
  return { eventId, kind: 'TEST', severity: 'INFO', title: `Test notification from ${providerName}`, timestamp, nodeId: null, data: { providerName, message: 'This is a test notification.' }, lines: [['Provider', providerName], ['Sent at', timestamp], ['Message', 'If you read this, notifications reach you.']] };
}

export function emailOf(n: Notification, serviceTag: string, instance: { id: string; version: string }) {
  const subject = `[${serviceTag}] ${n.title}`;
  const footer: Array<[string, string]> = [['Event id', n.eventId], ['Time', n.timestamp], ['Instance', `${instance.id} (version ${instance.version})`]];
  const text = [n.title, '', ...[...n.lines, ...footer].map(([k, v]) => `${k}: ${v}`), ''].join('\n');
  const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
  const rows = [...n.lines, ...footer].map(([k, v]) => `<tr><th align="left">${esc(k)}</th><td>${esc(v)}</td></tr>`).join('');
  const html = `<!doctype html><html><body><h2>${esc(n.title)}</h2><table>${rows}</table></body></html>`;
  return { subject, text, html };
}

const colors: Record<NotificationSeverity, number> = { CRITICAL: 0xd32f2f, WARNING: 0xf9a825, INFO: 0x1976d2, SUCCESS: 0x388e3c };

export type WebhookFormat = 'GENERIC' | 'SLACK' | 'DISCORD';

export function webhookPayloadOf(n: Notification, format: WebhookFormat, instance: { id: string; version: string }): Record<string, unknown> {
  switch (format) {
    case 'GENERIC':
      return { eventId: n.eventId, eventType: n.kind, severity: n.severity, timestamp: n.timestamp, source: { nodeId: n.nodeId, instanceId: instance.id, version: instance.version }, data: n.data };
    case 'SLACK':
      return {
        text: `[${n.severity}] ${n.title}`,
        attachments: [{ color: '#' + colors[n.severity].toString(16).padStart(6, '0'), title: n.title, fields: n.lines.map(([title, value]) => ({ title, value, short: value.length < 40 })), footer: `event ${n.eventId}`, ts: Math.floor(Date.parse(n.timestamp) / 1000) }],
      };
    case 'DISCORD':
      return {
        content: `[${n.severity}] ${n.title}`,
        embeds: [{ title: n.title, color: colors[n.severity], fields: n.lines.map(([name, value]) => ({ name, value: value.slice(0, 1024), inline: value.length < 40 })), footer: { text: `event ${n.eventId}` }, timestamp: n.timestamp }],
      };
    default: {
      const never: never = format;
      throw new Error(`unknown format ${never}`);
    }
  }
}
