import type { EventStore } from '../domain/shared/eventStore.ts';
import type { Saga } from './saga.ts';
import { apiKeyExpirySaga } from './apiKeyExpiry.ts';
import type { EvmNodeRuntime } from '../domain/evm/evmPorts.ts';
import { nodeLifecycleSaga } from './nodeLifecycle.ts';
import { nodeHealthSaga, type HealthSettings } from './nodeHealth.ts';

export interface SagaDeps {
  store: EventStore;
  /** EVM node lifecycle and health monitor; left out when evm networks are not wired. */
  evm?: { runtime: EvmNodeRuntime; healthSettings: () => Promise<HealthSettings> };
}

/** Every process manager of the service. */
export function allSagas(deps: SagaDeps): Saga[] {
  const evm = deps.evm ? [nodeLifecycleSaga(deps.store, deps.evm.runtime), nodeHealthSaga(deps.store, deps.evm.runtime, deps.evm.healthSettings)] : [];
  return [apiKeyExpirySaga(deps.store), ...evm];
}
