// Key providers (VAULT, AWS_KMS; pro edition): one stream per provider. The built-in database
// provider (id 1) has no stream: it exists on every server. Provider secrets (Vault token, AWS
// secret key) arrive here already sealed under KEY_ENCRYPTION_KEY, so no event holds them in clear.
import type { Decider } from '../shared/decider.ts';
import { assertNever } from '../shared/decider.ts';
import { ConflictError, NotFoundError } from '../shared/errors.ts';
import type { JsonObject } from '../shared/eventStore.ts';

export const DATABASE_PROVIDER_ID = 1;
export const keyProviderStream = (id: number) => `key-provider-${id}`;

export type ManagedProviderType = 'VAULT' | 'AWS_KMS';

export interface KeyProviderState {
  status: 'none' | 'active' | 'deleted';
  providerId?: number;
  name?: string;
  type?: ManagedProviderType;
}

export type KeyProviderEvent =
  | { type: 'KeyProviderCreated'; data: { providerId: number; name: string; providerType: ManagedProviderType; isDefault: boolean; publicConfig: JsonObject; sealedConfig: string; at: string } }
  | { type: 'KeyProviderDeleted'; data: { providerId: number; name: string; at: string } };

export type KeyProviderCommand =
  | { type: 'CreateKeyProvider'; providerId: number; name: string; providerType: ManagedProviderType; isDefault: boolean; publicConfig: JsonObject; sealedConfig: string; at: string }
  /** keyCount: keys the read model says live in the provider (a provider holding keys is kept). */
  | { type: 'DeleteKeyProvider'; providerId: number; keyCount: number; at: string };

export const keyProviders: Decider<KeyProviderState, KeyProviderCommand, KeyProviderEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(s, e) {
    switch (e.type) {
      case 'KeyProviderCreated':
        return { status: 'active', providerId: e.data.providerId, name: e.data.name, type: e.data.providerType };
      case 'KeyProviderDeleted':
        return { ...s, status: 'deleted' };
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'CreateKeyProvider':
        if (s.status !== 'none') throw new ConflictError(`Key provider ${c.providerId} exists already.`);
        return [{ type: 'KeyProviderCreated', data: { providerId: c.providerId, name: c.name, providerType: c.providerType, isDefault: c.isDefault, publicConfig: c.publicConfig, sealedConfig: c.sealedConfig, at: c.at } }];
      case 'DeleteKeyProvider':
        if (s.status !== 'active') throw new NotFoundError('Key provider', c.providerId);
        if (c.keyCount > 0) throw new ConflictError(`Key provider ${s.name} still holds ${c.keyCount} key(s); delete or move them first.`);
        return [{ type: 'KeyProviderDeleted', data: { providerId: c.providerId, name: s.name!, at: c.at } }];
      default:
        return assertNever(c);
    }
  },
};
