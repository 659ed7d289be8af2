import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { runCommand } from '../../application/commands.ts';
import { Page, PageQuery, page, pageRequest } from '../pagination.ts';
import { MAX_RETENTION_DAYS, SETTINGS_STREAM, choiceSettingSpecs, generalSettingSpecs, settings } from '../../domain/settings/settings.ts';
import { currentSettings } from '../../projections/settings.ts';
import { ValidationError } from '../../domain/shared/errors.ts';

const tags = ['settings'];
const generalProps = Object.fromEntries(
  Object.entries(generalSettingSpecs).map(([k, v]) => [k, Type.Optional(Type.Integer({ minimum: v.minimum, maximum: v.maximum, default: undefined, description: `${v.description} (default ${v.default})` }))]),
);
const choice = (values: readonly string[], description?: string) => Type.Union(values.map((v) => Type.Literal(v)), description ? { description } : {});
const choiceProps = Object.fromEntries(Object.entries(choiceSettingSpecs).map(([k, v]) => [k, Type.Optional(choice(v.values, `${v.description} (default ${v.default})`))]));
const GeneralBody = Type.Object({ ...generalProps, ...choiceProps }, { additionalProperties: false });
const GeneralSchema = Type.Object({
  ...Object.fromEntries(Object.keys(generalSettingSpecs).map((k) => [k, Type.Integer()])),
  ...Object.fromEntries(Object.entries(choiceSettingSpecs).map(([k, v]) => [k, choice(v.values)])),
});
const AuditSchema = Type.Object({ retention_days: Type.Integer(), archive_after_days: Type.Integer(), include_in_backups: Type.Boolean() });
const SettingsView = Type.Object({ general: GeneralSchema, audit: AuditSchema, version: Type.Integer(), updatedAt: Type.Union([Type.String(), Type.Null()]) });

/** The version an If-Match header names (a bare or quoted integer), or undefined without one. */
function ifMatchVersion(header: string): number | undefined {
  if (!header) return undefined;
  const m = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(header);
  if (!m) throw new ValidationError('If-Match must be the settings version read (an integer).', [{ field: 'If-Match', message: 'is not a version' }]);
  return Number(m[1]);
}

function updateRoute(method: 'post' | 'put', summary: string, replace: boolean) {
  return defineRoute({
    method, path: '/settings', summary, tags, permission: 'SETTINGS_UPDATE',
    description: 'Concurrent writes all land, each applied to the settings as they are when it is recorded. Send `If-Match: <version>` (the `version` read) to be told instead when a setting this write sets was changed since that version: 409 SETTINGS_CHANGED naming the settings (a replace sets them all); changes of other settings meanwhile are kept.',
    body: GeneralBody,
    responses: { 200: { description: 'settings after the change', schema: SettingsView }, 400: { description: 'invalid, or If-Match is not a version' }, 409: { description: 'SETTINGS_CHANGED: with If-Match, a setting written here changed since that version' } },
    async handler(input) {
      const basedOn = ifMatchVersion(input.ctx.get('if-match'));
      await runCommand(input, SETTINGS_STREAM, settings, { type: 'UpdateSettings', changes: input.body as never, replace, at: input.deps.clock().toISOString(), ...(basedOn === undefined ? {} : { basedOn }) });
      input.deps.security.invalidateSettings();
      return { body: await currentSettings(input.deps.pool) };
    },
  });
}

export const settingsRoutes = [
  defineRoute({
    method: 'get', path: '/settings', summary: 'Current settings', tags, permission: 'SETTINGS_READ',
    responses: { 200: { description: 'settings', schema: SettingsView } },
    async handler({ deps }) {
      return { body: await currentSettings(deps.pool) };
    },
  }),
  updateRoute('post', 'Change some settings (fields left out keep their values)', false),
  updateRoute('put', 'Replace the settings (fields left out return to their defaults)', true),
  defineRoute({
    method: 'post', path: '/settings/audit', summary: 'Audit retention, archiving and backup inclusion', tags, permission: 'AUDIT_CONFIGURE',
    description: `Entries older than archive_after_days leave the default audit listing (include_archived=true shows them); entries older than retention_days (at most ${MAX_RETENTION_DAYS}, 7 years) leave listings and reports. Events are never deleted, so every entry stays verifiable. include_in_backups false: backups leave out the audit-only entries that no read model needs (denied requests, failed writes, failed logins, lockouts, sensitive reads, logouts) as hash-only stubs (position, stream, version, id, previous hash, hash); a restore verifies the chain through them and reports how many were withheld.`,
    body: Type.Object({
      retention_days: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RETENTION_DAYS })),
      archive_after_days: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RETENTION_DAYS })),
      include_in_backups: Type.Optional(Type.Boolean()),
    }, { additionalProperties: false }),
    responses: { 200: { description: 'audit settings after the change', schema: AuditSchema } },
    async handler(input) {
      await runCommand(input, SETTINGS_STREAM, settings, { type: 'UpdateAuditSettings', changes: input.body, at: input.deps.clock().toISOString() });
      input.deps.security.invalidateSettings();
      return { body: (await currentSettings(input.deps.pool)).audit };
    },
  }),
  defineRoute({
    method: 'get', path: '/settings/history', summary: 'Every settings change, newest first, from the event store', tags, permission: 'SETTINGS_READ',
    query: Type.Object({ ...PageQuery }, { additionalProperties: false }),
    responses: { 200: { description: 'changes', schema: Page(Type.Object({ version: Type.Integer(), type: Type.String(), at: Type.String(), by: Type.Union([Type.String(), Type.Null()]), before: Type.Unknown(), after: Type.Unknown() })) } },
    async handler({ deps, query }) {
      const events = (await deps.store.readStream(SETTINGS_STREAM)).reverse();
      const { limit, offset } = pageRequest(deps.config, query);
      const items = events.slice(offset, offset + limit).map((e) => ({ version: e.version, type: e.type, at: e.metadata.timestamp, by: e.metadata.actor?.username ?? null, before: e.data.before, after: e.data.after }));
      return { body: page(items, events.length, limit, offset) };
    },
  }),
];
