import type { EventStore } from '../domain/shared/eventStore.ts';
import type { Saga } from './saga.ts';
import { apiKeyExpirySaga } from './apiKeyExpiry.ts';
import type { KeyServices } from '../domain/keys/keyServices.ts';
import { certificateExpirySaga } from './certificateExpiry.ts';
import { keyRotationSaga } from './keyRotation.ts';
import type { EvmNodeRuntime } from '../domain/evm/evmPorts.ts';
import { nodeLifecycleSaga } from './nodeLifecycle.ts';
import { nodeHealthSaga, type HealthSettings } from './nodeHealth.ts';
import { webhookFanoutSaga } from './webhookFanout.ts';
import { notificationsSaga } from './notifications.ts';
import type { NotifierDeps } from '../domain/notifications/notifier.ts';
import { deliverableDomainEvents } from '../domain/webhooks/eventCatalog.ts';
import type pg from 'pg';

export interface SagaDeps {
  store: EventStore;
  /** EVM node lifecycle and health monitor; left out when evm networks are not wired. */
  evm?: { runtime: EvmNodeRuntime; healthSettings: () => Promise<HealthSettings> };
  /** Key providers and X.509 (certificate renewal); the rotation saga runs only when given. */
  keys?: KeyServices;
  /** Outbound webhooks: the fan-out saga queues deliveries and wakes the delivery worker. */
  webhooks?: { pool: pg.Pool; instance: { id: string; version: string }; wake: () => void };
  /** Notification providers: the notifications saga sends through them. */
  notifications?: { pool: pg.Pool; notifier: NotifierDeps };
}

/** Every process manager of the service. */
export function allSagas(deps: SagaDeps): Saga[] {
  const evm = deps.evm ? [nodeLifecycleSaga(deps.store, deps.evm.runtime), nodeHealthSaga(deps.store, deps.evm.runtime, deps.evm.healthSettings)] : [];
  const keys = [certificateExpirySaga(deps.store), ...(deps.keys ? [keyRotationSaga(deps.store, deps.keys)] : [])];
  const webhooks = deps.webhooks ? [webhookFanoutSaga(deps.webhooks)] : [];
  const notifications = deps.notifications ? [notificationsSaga({ ...deps.notifications, store: deps.store, domainTypes: deliverableDomainEvents })] : [];
  return [apiKeyExpirySaga(deps.store), ...evm, ...keys, ...webhooks, ...notifications];
}
