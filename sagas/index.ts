import type { EventStore } from '../domain/shared/eventStore.ts';
import type { Saga } from './saga.ts';
import { apiKeyExpirySaga } from './apiKeyExpiry.ts';
import type { KeyServices } from '../domain/keys/keyServices.ts';
import { certificateExpirySaga } from './certificateExpiry.ts';
import { keyRotationSaga } from './keyRotation.ts';
import type { EvmNodeRuntime } from '../domain/evm/evmPorts.ts';
import { nodeLifecycleSaga } from './nodeLifecycle.ts';
import { nodeHealthSaga, type HealthSettings } from './nodeHealth.ts';
import type { BackupCatalog, BackupServices } from '../domain/backups/backupPorts.ts';
import { backupRunnerSaga } from './backupRunner.ts';
import { backupScheduleSaga } from './backupSchedules.ts';
import { backupTargetCheckSaga } from './backupTargetCheck.ts';

export interface SagaDeps {
  store: EventStore;
  /** EVM node lifecycle and health monitor; left out when evm networks are not wired. */
  evm?: { runtime: EvmNodeRuntime; healthSettings: () => Promise<HealthSettings> };
  /** Key providers and X.509 (certificate renewal); the rotation saga runs only when given. */
  keys?: KeyServices;
  /** Backups: runner, schedules and the periodic target check; left out when not wired. */
  backups?: { services: BackupServices; catalog: BackupCatalog; targetCheckSeconds: () => number };
}

/** Every process manager of the service. */
export function allSagas(deps: SagaDeps): Saga[] {
  const evm = deps.evm ? [nodeLifecycleSaga(deps.store, deps.evm.runtime), nodeHealthSaga(deps.store, deps.evm.runtime, deps.evm.healthSettings)] : [];
  const keys = [certificateExpirySaga(deps.store), ...(deps.keys ? [keyRotationSaga(deps.store, deps.keys)] : [])];
  const b = deps.backups;
  const backupSagas = b ? [backupRunnerSaga(deps.store, b.services, b.catalog), backupScheduleSaga(deps.store, b.services, b.catalog), backupTargetCheckSaga(deps.store, b.services, b.catalog, b.targetCheckSeconds)] : [];
  return [apiKeyExpirySaga(deps.store), ...evm, ...keys, ...backupSagas];
}
