import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { IdParam } from './schemas.ts';
import { NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { getKeyProvider, keyCountOfProvider, listKeyProviders } from '../../projections/keyProviders.ts';
import { createKeyProvider } from '../../application/keyProviders/keyProviderCreate.ts';
import { deleteKeyProvider } from '../../application/keyProviders/keyProviderDelete.ts';

const tags = ['key-providers'];
const pro = { edition: 'pro' as const, feature: 'Vault and AWS KMS key providers' };
const ProviderIdParam = Type.Object({ providerId: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });

const KeyProviderSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: Type.String({ description: 'DATABASE (built in, id 1), VAULT or AWS_KMS' }),
  isDefault: Type.Boolean(),
  builtIn: Type.Boolean(),
  config: Type.Record(Type.String(), Type.Unknown(), { description: 'the configuration without secrets (tokens and secret keys are stored encrypted and never shown)' }),
  keyCount: Type.Integer(),
  createdAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

async function view(pool: import('pg').Pool, id: number) {
  const p = await getKeyProvider(pool, id);
  if (!p) throw new NotFoundError('Key provider', id);
  return { ...p, keyCount: await keyCountOfProvider(pool, id) };
}

async function providerOfType(pool: import('pg').Pool, id: number, type: 'VAULT' | 'AWS_KMS') {
  const p = await getKeyProvider(pool, id);
  if (!p) throw new NotFoundError('Key provider', id);
  if (p.type !== type) throw new ValidationError(`Key provider ${p.name} is a ${p.type} provider, not ${type}.`, [{ field: 'providerId', message: `not a ${type} provider` }]);
  return p;
}

export const keyProviderRoutes = [
  defineRoute({
    method: 'get', path: '/key-providers', summary: 'List key providers (the built-in database provider first)', tags, permission: 'KEY_PROVIDER_READ',
    responses: { 200: { description: 'every provider', schema: Type.Array(KeyProviderSchema) } },
    async handler({ deps }) {
      const rows = await listKeyProviders(deps.pool);
      return { body: await Promise.all(rows.map((p) => view(deps.pool, p.id))) };
    },
  }),
  defineRoute({
    method: 'post', path: '/key-providers', summary: 'Add a Vault or AWS KMS key provider', tags, permission: 'KEY_PROVIDER_CREATE', ...pro,
    description: 'VAULT: vaultConfig {operation IMPORT, address, token, mount (KV v2), transitPath?, caCert?} or config {address, token, transitPath, kvPath}. ' +
      'vaultConfig {operation CREATE, mode docker, port (default 8200), version (image tag), network?, transitPath?, kvPath?}: the service runs a managed Vault container ' +
      '(hashicorp/vault:<version>, or LNM_IMAGE_VAULT) through the Docker Engine as a server with file storage under DATA_DIR, listening on 127.0.0.1:<port>; initializes and unseals it, ' +
      'mounts transit and KV v2 and stores the root token and unseal keys encrypted (never shown). A restarted managed Vault is started and unsealed again when a call or a status check finds it stopped or sealed. ' +
      'CREATE answers 409 when the port is taken, 503 naming what is missing when no Docker Engine or image is available; a failure midway leaves no container behind. AWS_KMS: awsKmsConfig {operation IMPORT, awsRegion, kmsKeyAliasPrefix, authMethod?, accessKeyId?, secretAccessKey?, profile?, roleArn?, externalId?, endpointUrl?} or config {region, accessKeyId, secretAccessKey, kmsKeyId}. The provider is reached before it is saved (400 when unreachable or refused). isDefault makes it the provider of new keys and organizations.',
    body: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 100 }),
      type: Type.Union([Type.Literal('VAULT'), Type.Literal('AWS_KMS')]),
      isDefault: Type.Optional(Type.Boolean()),
      vaultConfig: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      awsKmsConfig: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }, { additionalProperties: false }),
    responses: { 201: { description: 'created', schema: KeyProviderSchema }, 400: { description: 'invalid configuration, or the provider cannot be reached' }, 409: { description: 'name taken, or (CREATE) the port is in use' }, 503: { description: 'Vault CREATE mode cannot run here (no Docker Engine, no image)' } },
    async handler(input) {
      const providerId = await createKeyProvider(input, input.body);
      return { status: 201, body: await view(input.deps.pool, providerId), headers: { Location: `/api/v1/key-providers/${providerId}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/key-providers/:id', summary: 'Read a key provider (never its secrets)', tags, permission: 'KEY_PROVIDER_READ', params: IdParam,
    responses: { 200: { description: 'the provider', schema: KeyProviderSchema }, 404: { description: 'no such provider' } },
    async handler({ deps, params }) {
      return { body: await view(deps.pool, params.id) };
    },
  }),
  defineRoute({
    method: 'delete', path: '/key-providers/:id', summary: 'Delete a key provider that holds no keys', tags, permission: 'KEY_PROVIDER_DELETE', params: IdParam,
    description: 'A Vault provider in CREATE mode: its managed container is stopped and removed with its data once the provider is deleted.',
    responses: { 204: { description: 'deleted' }, 400: { description: 'the built-in provider' }, 404: { description: 'no such provider' }, 409: { description: 'still holds keys' } },
    async handler(input) {
      await deleteKeyProvider(input, input.params.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'get', path: '/key-providers/:providerId/vault/status', summary: 'Vault status: reachable, initialized, sealed, container running', tags, permission: 'KEY_PROVIDER_READ', ...pro, params: ProviderIdParam,
    description: 'container_running: whether the managed Vault container of a CREATE provider runs (always false for IMPORT providers). A managed Vault found stopped or sealed is started and unsealed with its stored keys before the answer; detail says why when that fails.',
    responses: { 200: { description: 'status', schema: Type.Object({ vault_reachable: Type.Boolean(), vault_initialized: Type.Boolean(), sealed: Type.Boolean(), container_running: Type.Boolean(), detail: Type.Optional(Type.String()) }) }, 404: { description: 'no such provider' } },
    async handler({ deps, params }) {
      await providerOfType(deps.pool, params.providerId, 'VAULT');
      // A managed Vault found stopped or sealed is started and unsealed by status() first.
      const s = await (await deps.keys.providers.get(params.providerId)).status();
      // IMPORT providers run no container of ours.
      const running = (await deps.keys.providers.containerRunning(params.providerId)) ?? false;
      return { body: { vault_reachable: s.vault_reachable === true, vault_initialized: s.vault_initialized === true, sealed: s.sealed === true, container_running: running, ...(s.detail ? { detail: s.detail } : {}) } };
    },
  }),
  defineRoute({
    method: 'get', path: '/key-providers/:providerId/awskms/status', summary: 'AWS KMS status: reachable, credentials, status', tags, permission: 'KEY_PROVIDER_READ', ...pro, params: ProviderIdParam,
    responses: { 200: { description: 'status', schema: Type.Object({ kms_reachable: Type.Boolean(), has_credentials: Type.Boolean(), kms_status: Type.String(), detail: Type.Optional(Type.String()) }) }, 404: { description: 'no such provider' } },
    async handler({ deps, params }) {
      await providerOfType(deps.pool, params.providerId, 'AWS_KMS');
      const s = await (await deps.keys.providers.get(params.providerId)).status();
      return { body: { kms_reachable: s.kms_reachable === true, has_credentials: s.has_credentials === true, kms_status: String(s.kms_status ?? 'unknown'), ...(s.detail ? { detail: s.detail } : {}) } };
    },
  }),
];
