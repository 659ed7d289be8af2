// Service settings and audit settings: one stream, every change an event with before and
// after, so the history is the stream itself.
import type { Decider } from '../shared/decider.ts';
import { assertNever } from '../shared/decider.ts';
import { ConflictError, ValidationError } from '../shared/errors.ts';

export const SETTINGS_STREAM = 'settings';

export interface GeneralSettings {
  sessionIdleTimeoutMinutes: number;
  sessionAbsoluteTimeoutHours: number;
  loginSoftLimit: number;
  loginHardLimit: number;
  loginWindowMinutes: number;
  loginLockoutMinutes: number;
  nodeHealthCheckIntervalSeconds: number;
  nodeDowntimeThreshold: number;
  nodeReadingIntervalSeconds: number;
  diskSpaceWarningPercent: number;
  webhookFailureThreshold: number;
  cpuHighPercent: number;
  memoryHighPercent: number;
  resourceCheckIntervalSeconds: number;
  slowQueryMs: number;
  metricsAccess: MetricsAccess;
}

/**
 * Who may read the service's own metrics (GET /metrics): `authenticated`, the API's credentials
 * with METRICS_READ (and the managed Prometheus's scrape token); `loopback`, also anyone
 * connecting from this host's loopback address, without credentials.
 */
export type MetricsAccess = 'authenticated' | 'loopback';

export interface AuditSettings {
  retention_days: number;
  archive_after_days: number;
  include_in_backups: boolean;
}

/** Each setting: default, bounds and what it does (the schema, the README and the OpenAPI document use this). */
export const generalSettingSpecs: Record<Exclude<keyof GeneralSettings, keyof typeof choiceSettingSpecs>, { default: number; minimum: number; maximum: number; description: string }> = {
  sessionIdleTimeoutMinutes: { default: 30, minimum: 1, maximum: 1440, description: 'a session unused this long is closed' },
  sessionAbsoluteTimeoutHours: { default: 12, minimum: 1, maximum: 720, description: 'a session older than this is closed whatever its use' },
  loginSoftLimit: { default: 5, minimum: 1, maximum: 100, description: 'failed logins for one username within the window after which each further attempt is slowed down (an address gets five times as many)' },
  loginHardLimit: { default: 10, minimum: 2, maximum: 1000, description: 'failed logins for one username within the window after which it is locked out (an address: five times as many)' },
  loginWindowMinutes: { default: 15, minimum: 1, maximum: 1440, description: 'window over which failed logins are counted' },
  loginLockoutMinutes: { default: 15, minimum: 1, maximum: 10080, description: 'how long a lockout lasts' },
  nodeHealthCheckIntervalSeconds: { default: 10, minimum: 1, maximum: 3600, description: 'how often running nodes are probed' },
  nodeDowntimeThreshold: { default: 3, minimum: 1, maximum: 100, description: 'consecutive failed probes before node.downtime is raised' },
  nodeReadingIntervalSeconds: { default: 5, minimum: 1, maximum: 3600, description: 'how often a probe also reads a node\'s ledger figures for node lists (block height, peer count: a Fabric node\'s /metrics, a ledgerX group\'s height); a probe sooner than this after the last reading asks for health alone and the lists keep that reading. At or below nodeHealthCheckIntervalSeconds every probe reads them' },
  diskSpaceWarningPercent: { default: 90, minimum: 50, maximum: 99, description: 'disk usage of the data directory that raises system.disk_space.warning' },
  webhookFailureThreshold: { default: 10, minimum: 1, maximum: 1000, description: 'consecutive failed deliveries (each after all its retries) after which a webhook is disabled; PUT enabled: true turns it back on and the count goes on until the first success' },
  cpuHighPercent: { default: 90, minimum: 10, maximum: 100, description: 'CPU use of the host that raises performance.cpu.high when sustained for 3 samples in a row' },
  memoryHighPercent: { default: 90, minimum: 10, maximum: 100, description: 'memory use of the host that raises performance.memory.high when sustained for 3 samples in a row' },
  resourceCheckIntervalSeconds: { default: 30, minimum: 5, maximum: 3600, description: 'how often disk (data directory), CPU and memory use are sampled' },
  slowQueryMs: { default: 2000, minimum: 50, maximum: 600000, description: 'a database query slower than this raises performance.query.slow (at most once a minute per statement)' },
};

/** Settings that take one of a few words (the schema, the README and the OpenAPI document use this). */
export const choiceSettingSpecs = {
  metricsAccess: {
    default: 'authenticated' as MetricsAccess,
    values: ['authenticated', 'loopback'] as const,
    description: 'who may read GET /metrics: authenticated (API credentials with METRICS_READ, or the managed Prometheus\'s scrape token) or loopback (also anyone connecting from 127.0.0.1 or ::1, without credentials)',
  },
};

export const MAX_RETENTION_DAYS = 2557; // 7 years, leap days included

export const defaultGeneralSettings = (): GeneralSettings =>
  Object.fromEntries([...Object.entries(generalSettingSpecs), ...Object.entries(choiceSettingSpecs)].map(([k, v]) => [k, v.default])) as unknown as GeneralSettings;

export const defaultAuditSettings = (): AuditSettings => ({ retention_days: MAX_RETENTION_DAYS, archive_after_days: 90, include_in_backups: true });

export interface SettingsState {
  general: GeneralSettings;
  audit: AuditSettings;
  version: number;
  /** The stream version at which each general setting last changed (for a write based on an older version). */
  changedAt: Partial<Record<keyof GeneralSettings, number>>;
}

export type SettingsEvent =
  | { type: 'SettingsUpdated'; data: { before: GeneralSettings; after: GeneralSettings; at: string } }
  | { type: 'AuditSettingsUpdated'; data: { before: AuditSettings; after: AuditSettings; at: string } };

export type SettingsCommand =
  | { type: 'UpdateSettings'; changes: Partial<GeneralSettings>; replace: boolean; at: string; /** The version the writer read (If-Match): a setting it writes that changed since is a conflict. */ basedOn?: number }
  | { type: 'UpdateAuditSettings'; changes: Partial<AuditSettings>; at: string };

const same = (a: object, b: object) => JSON.stringify(a) === JSON.stringify(b);

export const settings: Decider<SettingsState, SettingsCommand, SettingsEvent> = {
  initialState: () => ({ general: defaultGeneralSettings(), audit: defaultAuditSettings(), version: 0, changedAt: {} }),
  evolve(s, e) {
    switch (e.type) {
      case 'SettingsUpdated': {
        const general = { ...defaultGeneralSettings(), ...e.data.after };
        const changedAt = { ...s.changedAt };
        for (const k of Object.keys(general) as Array<keyof GeneralSettings>) if (general[k] !== s.general[k]) changedAt[k] = s.version + 1;
        return { ...s, general, version: s.version + 1, changedAt };
      }
      case 'AuditSettingsUpdated':
        return { ...s, audit: e.data.after, version: s.version + 1 };
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'UpdateSettings': {
        if (c.basedOn !== undefined && c.basedOn !== s.version) {
          // Concurrent writes of other settings merge; one of a setting changed since is a real conflict.
          const written = (c.replace ? Object.keys(s.general) : Object.keys(c.changes)) as Array<keyof GeneralSettings>;
          const clash = c.basedOn > s.version ? written : written.filter((k) => (s.changedAt[k] ?? 0) > c.basedOn!);
          if (clash.length) {
            throw new ConflictError(`Changed since version ${c.basedOn} (now ${s.version}): ${clash.join(', ')}. Read the settings again and retry.`, { expected: c.basedOn, actual: s.version, fields: clash }, 'SETTINGS_CHANGED');
          }
        }
        const after = { ...(c.replace ? defaultGeneralSettings() : s.general), ...c.changes };
        if (after.loginSoftLimit >= after.loginHardLimit) {
          throw new ValidationError('loginSoftLimit must be below loginHardLimit.', [{ field: 'loginSoftLimit', message: `must be below loginHardLimit (${after.loginHardLimit})` }]);
        }
        return same(after, s.general) ? [] : [{ type: 'SettingsUpdated', data: { before: s.general, after, at: c.at } }];
      }
      case 'UpdateAuditSettings': {
        const after = { ...s.audit, ...c.changes };
        if (after.archive_after_days > after.retention_days) {
          throw new ValidationError('archive_after_days cannot exceed retention_days.', [{ field: 'archive_after_days', message: `must be at most retention_days (${after.retention_days})` }]);
        }
        return same(after, s.audit) ? [] : [{ type: 'AuditSettingsUpdated', data: { before: s.audit, after, at: c.at } }];
      }
      default:
        return assertNever(c);
    }
  },
};
