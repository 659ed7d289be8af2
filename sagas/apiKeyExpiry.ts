// When an API key reaches its expiry, record ApiKeyExpired (so the audit log and webhooks see
// it). The key already stops working at that instant (authentication checks expires_at); the
// event is the record of it. A durable timer per key, so restarts do not lose it.
import type { EventStore } from '../domain/shared/eventStore.ts';
import { handleCommand } from '../domain/shared/commandHandler.ts';
import { apiKeyStream, apiKeys } from '../domain/users/apiKeys.ts';
import type { Saga } from './saga.ts';
import { sagaEventId } from './sagaRunner.ts';

export function apiKeyExpirySaga(store: EventStore): Saga {
  return {
    name: 'api-key-expiry',
    handles: ['ApiKeyCreated', 'ApiKeyRevoked'],
    async handle(e, ctx) {
      const id = Number(e.data.apiKeyId);
      if (e.type === 'ApiKeyCreated' && e.data.expiresAt) await ctx.schedule(`api-key-expiry-${id}`, new Date(String(e.data.expiresAt)), { apiKeyId: id });
      if (e.type === 'ApiKeyRevoked') await ctx.cancel(`api-key-expiry-${id}`);
    },
    async onTimer(timer, ctx) {
      const apiKeyId = Number(timer.payload.apiKeyId);
      let n = 0;
      await handleCommand(store, apiKeyStream(apiKeyId), apiKeys, { type: 'ExpireApiKey', apiKeyId, at: ctx.now().toISOString() }, {
        metadata: { timestamp: ctx.now().toISOString(), actor: null, causationId: timer.id },
        newId: () => sagaEventId('api-key-expiry', `${timer.id}@${timer.dueAt}`, n++),
      });
    },
  };
}
