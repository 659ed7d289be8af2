// Notification providers: SMTP (all editions) and WEBHOOK (pro). Passwords and signing secrets
// are write-only: sealed under KEY_ENCRYPTION_KEY before they reach an event; views say only
// hasPassword / hasSecret. A test always answers 200 with status success or failed and the real
// reason, kept as lastTestStatus.
import { Type, type TSchema } from '@sinclair/typebox';
import { defineRoute, type RouteInput } from '../route.ts';
import { runCommand } from '../../application/commands.ts';
import { IdParam } from './schemas.ts';
import { Page, PageQuery, page, pageRequest } from '../pagination.ts';
import { validate } from '../validation.ts';
import { ConflictError, EditionRequiredError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import type { JsonObject } from '../../domain/shared/eventStore.ts';
import { notificationProviderStream, notificationProviders, type NotificationProviderType } from '../../domain/notifications/notificationProviders.ts';
import { NOTIFICATION_SECRET_CONTEXT } from '../../domain/notifications/notifier.ts';
import { HEADER_NAME_PATTERN, HEADER_VALUE_PATTERN, maskHeaders, mergeHeaders } from '../../domain/shared/secretHeaders.ts';
import { testNotificationProvider } from '../../application/notifications/notificationProviderTest.ts';
import { getNotificationProvider, listNotificationProviders, notificationProviderNameTaken, type NotificationProviderRow } from '../../projections/notificationProviders.ts';

const tags = ['notifications'];
const Timeout = Type.Integer({ minimum: 1, maximum: 60, description: 'seconds (default 30)' });
const Email = Type.String({ format: 'email', maxLength: 254 });

const SmtpConfig = Type.Object({
  host: Type.String({ minLength: 1, maxLength: 253 }),
  port: Type.Union([Type.Literal(25), Type.Literal(465), Type.Literal(587)], { description: '465: implicit TLS; 587: STARTTLS (required); 25: plain unless tls' }),
  username: Type.String({ maxLength: 320 }),
  password: Type.Optional(Type.String({ maxLength: 1000, description: 'write-only; required on create' })),
  from: Email,
  tls: Type.Optional(Type.Boolean({ description: 'on port 25: require STARTTLS' })),
  recipients: Type.Optional(Type.Array(Email, { maxItems: 100, description: 'empty: the message goes to the from address' })),
  caCert: Type.Optional(Type.String({ maxLength: 20000, pattern: '-----BEGIN CERTIFICATE-----', description: 'PEM of a CA to trust besides the system ones (self-signed or private mail servers)' })),
  timeout: Type.Optional(Timeout),
}, { additionalProperties: false });
const WebhookConfig = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2000, description: 'http(s); loopback, link-local and private addresses are refused unless LNM_ALLOW_PRIVATE_TARGETS=true' }),
  format: Type.Optional(Type.Union([Type.Literal('GENERIC'), Type.Literal('SLACK'), Type.Literal('DISCORD')], { description: 'default GENERIC' })),
  secret: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'write-only; X-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>' })),
  timeout: Type.Optional(Timeout),
  customHeaders: Type.Optional(Type.Record(Type.String({ pattern: HEADER_NAME_PATTERN }), Type.String({ maxLength: 1000, pattern: HEADER_VALUE_PATTERN }))),
}, { additionalProperties: false });

const sw = (description: string) => Type.Optional(Type.Boolean({ description }));
const switchProps = {
  notifyNodeDowntime: sw('node downtime and node recovery (default true)'),
  notifyBackupSuccess: sw('default false'),
  notifyBackupFailure: sw('default false'),
  notifyS3ConnIssue: sw('default false'),
  notifyDiskSpaceWarning: sw('disk usage of the data directory above the diskSpaceWarningPercent setting (default false)'),
};
const CreateBody = Type.Object({
  type: Type.Union([Type.Literal('SMTP'), Type.Literal('WEBHOOK')]),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  config: Type.Record(Type.String(), Type.Unknown(), { description: 'SMTP: {host, port, username, password, from, tls?, recipients?, caCert?, timeout?}; WEBHOOK: {url, format?, secret?, timeout?, customHeaders?}' }),
  isDefault: Type.Optional(Type.Boolean({ description: 'one default at a time; it also receives notices without a switch (a webhook disabled after failures)' })),
  ...switchProps,
}, { additionalProperties: false });
const UpdateBody = Type.Object({
  type: Type.Optional(Type.Union([Type.Literal('SMTP'), Type.Literal('WEBHOOK')], { description: 'cannot change' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  config: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'fields given replace those stored; password and secret left out are kept' })),
  isDefault: Type.Optional(Type.Boolean()),
  ...switchProps,
}, { additionalProperties: false });

const ProviderSchema = Type.Object({
  id: Type.Integer(), name: Type.String(), type: Type.String(), isDefault: Type.Boolean(),
  config: Type.Record(Type.String(), Type.Unknown(), { description: 'without password or secret; hasPassword / hasSecret say whether one is set' }),
  notifyNodeDowntime: Type.Boolean(), notifyBackupSuccess: Type.Boolean(), notifyBackupFailure: Type.Boolean(), notifyS3ConnIssue: Type.Boolean(), notifyDiskSpaceWarning: Type.Boolean(),
  lastTestStatus: Type.Union([Type.String(), Type.Null()]), lastTestMessage: Type.Union([Type.String(), Type.Null()]), lastTestedAt: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(), updatedAt: Type.String(),
});
const TestResult = Type.Object({ status: Type.Union([Type.Literal('success'), Type.Literal('failed')]), message: Type.String(), testedAt: Type.String() });

function checkConfig(type: NotificationProviderType, config: unknown): Record<string, any> {
  try {
    return validate<Record<string, any>>((type === 'SMTP' ? SmtpConfig : WebhookConfig) as TSchema, config, 'body');
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const details = (err.details ?? []).map((d) => ({ field: d.field === 'body' ? 'config' : `config.${d.field}`, message: d.message }));
    throw new ValidationError(`The ${type} configuration is invalid: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}.`, details);
  }
}

type ProviderSecrets = { password?: string; secret?: string; customHeaders?: Record<string, string> };

/**
 * Splits a checked configuration into what may be shown and the secrets (password, signing secret,
 * custom header values), over the secrets stored already: what the configuration leaves out is kept,
 * and a header sent as the mask keeps its stored value.
 */
async function prepare(input: Pick<RouteInput<unknown, unknown, unknown>, 'deps'>, type: NotificationProviderType, config: Record<string, any>, stored: ProviderSecrets = {}) {
  const { password, secret, customHeaders, ...shown } = config;
  const secrets: ProviderSecrets = { ...stored };
  if (type === 'WEBHOOK') {
    const refusal = await input.deps.outbound.refusal(String(config.url));
    if (refusal) throw new ValidationError(`The webhook URL is refused: ${refusal}.`, [{ field: 'config.url', message: refusal }]);
    shown.format ??= 'GENERIC';
    if (customHeaders !== undefined) {
      const headers = mergeHeaders(customHeaders as Record<string, string>, stored.customHeaders ?? {}, 'config.customHeaders');
      if (Object.keys(headers).length) secrets.customHeaders = headers;
      else delete secrets.customHeaders;
      shown.customHeaders = maskHeaders(headers);
    }
    if (secret !== undefined) secrets.secret = secret;
    shown.hasSecret = secrets.secret !== undefined;
  } else {
    // The mail server is an outbound target like a webhook: a private address needs LNM_ALLOW_PRIVATE_TARGETS.
    const host = String(config.host ?? '');
    const refusal = await input.deps.outbound.refusal(`http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}/`);
    if (refusal) throw new ValidationError(`The SMTP host is refused: ${refusal}.`, [{ field: 'config.host', message: refusal }]);
    if (password !== undefined) secrets.password = password;
  }
  shown.timeout ??= 30;
  return { publicConfig: shown as JsonObject, secrets: Object.keys(secrets).length ? secrets : null };
}

/** What a provider holds sealed; custom headers saved before they were sealed are in its config in clear. */
async function storedSecrets(input: Pick<RouteInput<unknown, unknown, unknown>, 'deps'>, p: NotificationProviderRow): Promise<ProviderSecrets> {
  const opened: ProviderSecrets = p.sealedSecrets ? JSON.parse(await input.deps.secrets.open(p.sealedSecrets, NOTIFICATION_SECRET_CONTEXT)) : {};
  if (!opened.customHeaders && p.config.customHeaders && Object.keys(p.config.customHeaders).length) opened.customHeaders = p.config.customHeaders as Record<string, string>;
  return opened;
}

function view(p: NotificationProviderRow) {
  const { sealedSecrets, ...rest } = p;
  const { hasSecret: signed, ...config } = p.config as Record<string, unknown>;
  if (config.customHeaders) config.customHeaders = maskHeaders(config.customHeaders as Record<string, string>);
  // The sealed secrets may hold only header values: a webhook provider records whether it signs
  // (providers saved before that have a signing secret exactly when they have sealed secrets).
  const hasSecret = typeof signed === 'boolean' ? signed : sealedSecrets !== null;
  return { ...rest, config: { ...config, ...(p.type === 'SMTP' ? { hasPassword: sealedSecrets !== null } : { hasSecret }) } };
}

async function found(pool: import('pg').Pool, id: number) {
  const p = await getNotificationProvider(pool, id);
  if (!p) throw new NotFoundError('Notification provider', id);
  return p;
}

export const notificationRoutes = [
  defineRoute({
    method: 'get', path: '/notifications/providers', summary: 'List notification providers (the default first)', tags, permission: 'NOTIFICATION_READ',
    query: Type.Object({ ...PageQuery }, { additionalProperties: false }),
    responses: { 200: { description: 'providers (passwords and secrets never shown)', schema: Page(ProviderSchema) } },
    async handler({ deps, query }) {
      const { limit, offset } = pageRequest(deps.config, query);
      const { items, total } = await listNotificationProviders(deps.pool, limit, offset);
      return { body: page(items.map(view), total, limit, offset) };
    },
  }),
  defineRoute({
    method: 'post', path: '/notifications/providers', summary: 'Add an SMTP or WEBHOOK (pro) notification provider', tags, permission: 'NOTIFICATION_MANAGE', body: CreateBody,
    description: 'Switches: notifyNodeDowntime (node downtime and recovery; default true), notifyBackupSuccess, notifyBackupFailure, notifyS3ConnIssue, notifyDiskSpaceWarning (default false). Email subject "[<LNM_SERVICE_TAG>] <event title>", text and HTML bodies. WEBHOOK formats: GENERIC {eventId, eventType (NODE_DOWNTIME, NODE_RECOVERY, BACKUP_SUCCESS, BACKUP_FAILURE, S3_CONNECTION_ISSUE, DISK_SPACE_WARNING, WEBHOOK_DISABLED, TEST), severity, timestamp, source {nodeId, instanceId, version}, data}, SLACK (text + attachment) or DISCORD (content + embed).',
    responses: { 201: { description: 'created', schema: ProviderSchema }, 400: { description: 'invalid configuration or refused URL' }, 403: { description: 'WEBHOOK providers need the pro edition' }, 409: { description: 'name taken' } },
    async handler(input) {
      const { deps, body } = input;
      if (body.type === 'WEBHOOK' && deps.config.edition === 'community') throw new EditionRequiredError('Webhook notification providers', 'pro', deps.config.edition);
      const config = checkConfig(body.type, body.config);
      if (body.type === 'SMTP' && !config.password) throw new ValidationError('An SMTP provider needs config.password.', [{ field: 'config.password', message: 'is required' }]);
      const { publicConfig, secrets } = await prepare(input, body.type, config);
      if (await notificationProviderNameTaken(deps.pool, body.name)) throw new ConflictError(`A notification provider named ${body.name} exists already.`, { field: 'name' });
      const sealedSecrets = secrets ? await deps.secrets.seal(JSON.stringify(secrets), NOTIFICATION_SECRET_CONTEXT) : null;
      const providerId = await deps.nextId('notification_provider');
      await runCommand(input, notificationProviderStream(providerId), notificationProviders, {
        type: 'CreateNotificationProvider', providerId, providerType: body.type, name: body.name, isDefault: body.isDefault ?? false, publicConfig, sealedSecrets,
        notifyNodeDowntime: body.notifyNodeDowntime ?? true, notifyBackupSuccess: body.notifyBackupSuccess ?? false, notifyBackupFailure: body.notifyBackupFailure ?? false,
        notifyS3ConnIssue: body.notifyS3ConnIssue ?? false, notifyDiskSpaceWarning: body.notifyDiskSpaceWarning ?? false, at: deps.clock().toISOString(),
      });
      return { status: 201, body: view(await found(deps.pool, providerId)), headers: { Location: `/api/v1/notifications/providers/${providerId}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/notifications/providers/:id', summary: 'Read a notification provider', tags, permission: 'NOTIFICATION_READ', params: IdParam,
    responses: { 200: { description: 'the provider', schema: ProviderSchema }, 404: { description: 'no such provider' } },
    async handler({ deps, params }) {
      return { body: view(await found(deps.pool, params.id)) };
    },
  }),
  defineRoute({
    method: 'put', path: '/notifications/providers/:id', summary: 'Change a notification provider (fields left out keep their values)', tags, permission: 'NOTIFICATION_MANAGE', params: IdParam, body: UpdateBody,
    responses: { 200: { description: 'the provider after the change', schema: ProviderSchema }, 400: { description: 'invalid configuration, or a change of type' }, 404: { description: 'no such provider' }, 409: { description: 'name taken' } },
    async handler(input) {
      const { deps, params, body } = input;
      const before = await found(deps.pool, params.id);
      if (body.type && body.type !== before.type) throw new ValidationError(`A provider's type cannot change (it is ${before.type}); add a new provider instead.`, [{ field: 'type', message: 'cannot change' }]);
      if (body.name && (await notificationProviderNameTaken(deps.pool, body.name, params.id))) throw new ConflictError(`A notification provider named ${body.name} exists already.`, { field: 'name' });
      const { type: _t, config: configChanges, ...rest } = body;
      let publicConfig: JsonObject | undefined;
      let sealedSecrets: string | undefined;
      if (configChanges) {
        const { hasPassword: _p, hasSecret: _s, ...stored } = view(before).config as Record<string, unknown>;
        const merged = checkConfig(before.type, { ...stored, ...configChanges });
        const kept = await storedSecrets(input, before);
        const prepared = await prepare(input, before.type, merged, kept);
        publicConfig = prepared.publicConfig;
        // Sealed again only when a secret, or a header value, changed.
        if (prepared.secrets && JSON.stringify(prepared.secrets) !== JSON.stringify(kept)) sealedSecrets = await deps.secrets.seal(JSON.stringify(prepared.secrets), NOTIFICATION_SECRET_CONTEXT);
      }
      await runCommand(input, notificationProviderStream(params.id), notificationProviders, {
        type: 'UpdateNotificationProvider', providerId: params.id, changes: { ...rest, ...(publicConfig ? { publicConfig } : {}) }, sealedSecrets, at: deps.clock().toISOString(),
      });
      return { body: view(await found(deps.pool, params.id)) };
    },
  }),
  defineRoute({
    method: 'delete', path: '/notifications/providers/:id', summary: 'Delete a notification provider', tags, permission: 'NOTIFICATION_MANAGE', params: IdParam,
    responses: { 204: { description: 'deleted' }, 404: { description: 'no such provider' } },
    async handler(input) {
      await runCommand(input, notificationProviderStream(input.params.id), notificationProviders, { type: 'DeleteNotificationProvider', providerId: input.params.id, at: input.deps.clock().toISOString() });
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post', path: '/notifications/providers/:id/test', summary: 'Send a test notification; the outcome is kept as lastTestStatus', tags, permission: 'NOTIFICATION_MANAGE', params: IdParam,
    body: Type.Object({ testEmail: Type.Optional(Email) }, { additionalProperties: false }),
    description: 'SMTP: a test email to testEmail (default: the recipients, else the from address). WEBHOOK: a test payload (eventType TEST). Always 200: status failed carries the server\'s or receiver\'s own reason.',
    responses: { 200: { description: 'outcome', schema: TestResult }, 404: { description: 'no such provider' } },
    async handler(input) {
      return { body: await testNotificationProvider(input, input.params.id, input.body) };
    },
  }),
];
