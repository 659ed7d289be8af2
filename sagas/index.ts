import type { EventStore } from '../domain/shared/eventStore.ts';
import type { Saga } from './saga.ts';
import { apiKeyExpirySaga } from './apiKeyExpiry.ts';

export interface SagaDeps {
  store: EventStore;
}

/** Every process manager of the service. */
export function allSagas(deps: SagaDeps): Saga[] {
  return [apiKeyExpirySaga(deps.store)];
}
