import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { runCommand } from '../../application/commands.ts';
import { Page, PageQuery, page, pageRequest } from '../pagination.ts';
import { IdParam } from './schemas.ts';
import { apiKeyStream, apiKeys } from '../../domain/users/apiKeys.ts';
import { hasPermission, isPermission } from '../../domain/users/permissions.ts';
import { delegatedExpiry, delegatedScopes } from '../../domain/users/delegation.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { getApiKey, listApiKeys } from '../../projections/apiKeys.ts';

const tags = ['api-keys'];
const edition = { edition: 'pro' as const, feature: 'API keys' };

const ApiKeySchema = Type.Object({
  id: Type.Integer(),
  userId: Type.Integer(),
  username: Type.String(),
  name: Type.String(),
  displayPrefix: Type.String({ description: 'the first characters of the key, to recognise it; the key itself is shown only once' }),
  scopes: Type.Array(Type.String()),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  revokedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired')]),
});

export const apiKeyRoutes = [
  defineRoute({
    method: 'post', path: '/api-keys', summary: 'Create an API key for yourself (shown once)', tags, permission: 'API_KEY_CREATE', ...edition,
    description: 'Send the key as `Authorization: Bearer <key>` or `X-API-Key: <key>`. Scopes are permission names within your own role; omitted, the key gets all of them. A key created with an API key stays within that key: scopes it lacks, no expiry or a later one are refused with 403 DELEGATION_EXCEEDED (audited); omitted, they are that key\'s own. Emits security.api_key.created.',
    body: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 100 }),
      scopes: Type.Optional(Type.Array(Type.String(), { maxItems: 200, uniqueItems: true })),
      expiresAt: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
      expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650 })),
    }, { additionalProperties: false }),
    responses: { 201: { description: 'created; `key` is returned this once', schema: Type.Intersect([ApiKeySchema, Type.Object({ key: Type.String() })]) }, 403: { description: 'DELEGATION_EXCEEDED: asked with an API key for a scope it lacks, or for a later expiry than its own (or none)' } },
    async handler(input) {
      const { deps, body, identity } = input;
      const me = identity!;
      const bad = (body.scopes ?? []).filter((s) => !isPermission(s) || !hasPermission(me.role, s));
      if (bad.length) throw new ValidationError(`Scopes must be permissions your role ${me.role} holds: ${bad.join(', ')} ${bad.length === 1 ? 'is' : 'are'} not.`, bad.map((s) => ({ field: 'scopes', message: `${s} is not a permission of ${me.role}` })));
      if (body.expiresAt && body.expiresInDays) throw new ValidationError('Give expiresAt or expiresInDays, not both.', [{ field: 'expiresInDays', message: 'conflicts with expiresAt' }]);
      const now = deps.clock();
      const requested = body.expiresAt ?? (body.expiresInDays ? new Date(now.getTime() + body.expiresInDays * 86_400_000).toISOString() : body.expiresAt);
      if (requested && new Date(requested) <= now) throw new ValidationError('expiresAt must be in the future.', [{ field: 'expiresAt', message: 'must be in the future' }]);
      // A key made with an API key stays within it: its scopes, its expiry.
      const scopes = delegatedScopes(me, body.scopes);
      const expiresAt = delegatedExpiry(me, requested);
      const generated = deps.security.apiKeys.generate();
      const apiKeyId = await deps.nextId('api_key');
      await runCommand(input, apiKeyStream(apiKeyId), apiKeys, { type: 'CreateApiKey', apiKeyId, userId: me.userId, username: me.username, name: body.name, keyHash: generated.hash, displayPrefix: generated.displayPrefix, scopes, expiresAt, at: now.toISOString() });
      const row = (await getApiKey(deps.pool, apiKeyId, now))!;
      return { status: 201, body: { ...row, key: generated.key }, headers: { Location: `/api/v1/api-keys/${apiKeyId}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/api-keys', summary: 'List API keys: your own, or everyone\'s for holders of API_KEY_MANAGE (?userId=)', tags, permission: 'API_KEY_READ', ...edition,
    query: Type.Object({ ...PageQuery, userId: Type.Optional(Type.Integer({ minimum: 1 })), all: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
    responses: { 200: { description: 'a page of keys (never the keys themselves)', schema: Page(ApiKeySchema) } },
    async handler({ deps, query, identity }) {
      const manage = hasPermission(identity!.role, 'API_KEY_MANAGE');
      if ((query.userId !== undefined && query.userId !== identity!.userId || query.all) && !manage) throw new ForbiddenError('Listing other users\' API keys needs API_KEY_MANAGE.');
      const { limit, offset } = pageRequest(deps.config, query);
      const r = await listApiKeys(deps.pool, deps.clock(), limit, offset, query.all ? undefined : (query.userId ?? identity!.userId));
      return { body: page(r.items, r.total, limit, offset) };
    },
  }),
  defineRoute({
    method: 'get', path: '/api-keys/:id', summary: 'Read an API key (its metadata)', tags, permission: 'API_KEY_READ', ...edition, params: IdParam,
    responses: { 200: { description: 'the key', schema: ApiKeySchema }, 404: { description: 'no such key' } },
    async handler({ deps, params, identity }) {
      const k = await getApiKey(deps.pool, params.id, deps.clock());
      if (!k || (k.userId !== identity!.userId && !hasPermission(identity!.role, 'API_KEY_MANAGE'))) throw new NotFoundError('API key', params.id);
      return { body: k };
    },
  }),
  defineRoute({
    method: 'delete', path: '/api-keys/:id', summary: 'Revoke an API key (it stops working at once)', tags, permission: 'API_KEY_REVOKE', ...edition, params: IdParam,
    query: Type.Object({ reason: Type.Optional(Type.String({ maxLength: 500 })) }, { additionalProperties: false }),
    responses: { 204: { description: 'revoked' }, 404: { description: 'no such key' } },
    async handler(input) {
      const { deps, params, identity, query } = input;
      const k = await getApiKey(deps.pool, params.id, deps.clock());
      if (!k || (k.userId !== identity!.userId && !hasPermission(identity!.role, 'API_KEY_MANAGE'))) throw new NotFoundError('API key', params.id);
      await runCommand(input, apiKeyStream(params.id), apiKeys, { type: 'RevokeApiKey', apiKeyId: params.id, byUserId: identity!.userId, reason: query.reason ?? 'revoked by user', at: deps.clock().toISOString() });
      return { status: 204 };
    },
  }),
];
