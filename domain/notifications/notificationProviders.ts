// Notification providers (SMTP, WEBHOOK): one stream per provider. Secrets (SMTP password,
// webhook signing secret) arrive already sealed under KEY_ENCRYPTION_KEY, so no event holds
// them in clear. The notify* switches say which notification kinds a provider receives; node
// recovery follows notifyNodeDowntime (told it is over where you were told it was down).
// isDefault marks one provider at a time: it also receives the notices that have no switch of
// their own (a webhook disabled after failed deliveries).
import type { Decider } from '../shared/decider.ts';
import { assertNever } from '../shared/decider.ts';
import { ConflictError, NotFoundError } from '../shared/errors.ts';
import type { JsonObject } from '../shared/eventStore.ts';

export const notificationProviderStream = (id: number) => `notification-provider-${id}`;

export type NotificationProviderType = 'SMTP' | 'WEBHOOK';
export const NOTIFY_SWITCHES = ['notifyNodeDowntime', 'notifyBackupSuccess', 'notifyBackupFailure', 'notifyS3ConnIssue', 'notifyDiskSpaceWarning'] as const;
export type NotifySwitch = (typeof NOTIFY_SWITCHES)[number];
export type Switches = Record<NotifySwitch, boolean>;

export interface ProviderFields extends Switches {
  name: string;
  isDefault: boolean;
  /** The configuration without secrets (safe to show). */
  publicConfig: JsonObject;
  /** Sealed JSON of the secret fields ({password} or {secret}), or null. */
  sealedSecrets: string | null;
}

export interface NotificationProviderState {
  status: 'none' | 'active' | 'deleted';
  providerId?: number;
  providerType?: NotificationProviderType;
  fields?: ProviderFields;
}

type Shown = Omit<ProviderFields, 'sealedSecrets'>;

export type NotificationProviderEvent =
  | { type: 'NotificationProviderCreated'; data: ProviderFields & { providerId: number; providerType: NotificationProviderType; at: string } }
  | { type: 'NotificationProviderUpdated'; data: { providerId: number; before: Shown; after: Shown; sealedSecrets?: string | null; at: string } }
  | { type: 'NotificationProviderDeleted'; data: { providerId: number; name: string; at: string } }
  | { type: 'NotificationProviderTested'; data: { providerId: number; status: 'success' | 'failed'; message: string; testedAt: string; at: string } }
  | { type: 'NotificationSent'; data: { providerId: number; kind: string; sourceEventId: string; attempts: number; at: string } }
  | { type: 'NotificationFailed'; data: { providerId: number; kind: string; sourceEventId: string; attempts: number; error: string; at: string } };

export type NotificationProviderCommand =
  | ({ type: 'CreateNotificationProvider'; providerId: number; providerType: NotificationProviderType; at: string } & ProviderFields)
  | { type: 'UpdateNotificationProvider'; providerId: number; changes: Partial<Shown>; sealedSecrets?: string | null; at: string }
  | { type: 'DeleteNotificationProvider'; providerId: number; at: string }
  | { type: 'RecordProviderTest'; providerId: number; status: 'success' | 'failed'; message: string; at: string }
  | { type: 'RecordNotificationOutcome'; providerId: number; kind: string; sourceEventId: string; attempts: number; error: string | null; at: string };

const shown = ({ sealedSecrets: _s, ...rest }: ProviderFields): Shown => rest;

export const notificationProviders: Decider<NotificationProviderState, NotificationProviderCommand, NotificationProviderEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(s, e) {
    switch (e.type) {
      case 'NotificationProviderCreated': {
        const { providerId, providerType, at: _at, ...fields } = e.data;
        return { status: 'active', providerId, providerType, fields };
      }
      case 'NotificationProviderUpdated':
        return { ...s, fields: { ...s.fields!, ...e.data.after, sealedSecrets: e.data.sealedSecrets === undefined ? s.fields!.sealedSecrets : e.data.sealedSecrets } };
      case 'NotificationProviderDeleted':
        return { ...s, status: 'deleted' };
      case 'NotificationProviderTested':
      case 'NotificationSent':
      case 'NotificationFailed':
        return s;
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'CreateNotificationProvider': {
        if (s.status !== 'none') throw new ConflictError(`Notification provider ${c.providerId} exists already.`);
        const { type: _t, ...data } = c;
        return [{ type: 'NotificationProviderCreated', data }];
      }
      case 'UpdateNotificationProvider': {
        if (s.status !== 'active') throw new NotFoundError('Notification provider', c.providerId);
        const before = shown(s.fields!);
        const after = { ...before, ...c.changes };
        if (c.sealedSecrets === undefined && JSON.stringify(after) === JSON.stringify(before)) return [];
        return [{ type: 'NotificationProviderUpdated', data: { providerId: c.providerId, before, after, ...(c.sealedSecrets === undefined ? {} : { sealedSecrets: c.sealedSecrets }), at: c.at } }];
      }
      case 'DeleteNotificationProvider':
        if (s.status !== 'active') throw new NotFoundError('Notification provider', c.providerId);
        return [{ type: 'NotificationProviderDeleted', data: { providerId: c.providerId, name: s.fields!.name, at: c.at } }];
      case 'RecordProviderTest':
        if (s.status !== 'active') throw new NotFoundError('Notification provider', c.providerId);
        return [{ type: 'NotificationProviderTested', data: { providerId: c.providerId, status: c.status, message: c.message, testedAt: c.at, at: c.at } }];
      case 'RecordNotificationOutcome': {
        if (s.status !== 'active') return [];
        const base = { providerId: c.providerId, kind: c.kind, sourceEventId: c.sourceEventId, attempts: c.attempts, at: c.at };
        return [c.error === null ? { type: 'NotificationSent', data: base } : { type: 'NotificationFailed', data: { ...base, error: c.error } }];
      }
      default:
        return assertNever(c);
    }
  },
};
