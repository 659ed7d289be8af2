import type { EventStore } from '../domain/shared/eventStore.ts';
import type { Saga } from './saga.ts';
import { apiKeyExpirySaga } from './apiKeyExpiry.ts';
import type { KeyServices } from '../domain/keys/keyServices.ts';
import { certificateExpirySaga } from './certificateExpiry.ts';
import { keyRotationSaga } from './keyRotation.ts';
import type { NodeOperationsFor } from '../domain/nodes/nodeOperations.ts';
import { nodeLifecycleSaga } from './nodeLifecycle.ts';
import { nodeHealthSaga, type HealthSettings } from './nodeHealth.ts';
import { shardedSagas } from './nodeShards.ts';
import type { WorkPiece } from './workPieces.ts';
import { webhookFanoutSaga } from './webhookFanout.ts';
import { notificationsSaga } from './notifications.ts';
import type { NotifierDeps } from '../domain/notifications/notifier.ts';
import { deliverableDomainEvents } from '../domain/webhooks/eventCatalog.ts';
import type pg from 'pg';
import type { NodeObservations } from '../domain/nodes/nodeObservations.ts';
import type { BackupCatalog, BackupServices } from '../domain/backups/backupPorts.ts';
import { backupRunnerSaga } from './backupRunner.ts';
import { backupScheduleSaga } from './backupSchedules.ts';
import { backupTargetCheckSaga } from './backupTargetCheck.ts';
import { nodeHostCheckSaga, type ClusterOrphanSweep } from './nodeHostCheck.ts';
import type { NodeHostDirectory, NodeHostProbe } from '../domain/hosts/hostPorts.ts';

export interface SagaDeps {
  store: EventStore;
  /** Node lifecycle and health monitor over every wired platform's node operations; left out when no platform is wired. */
  nodes?: { operationsFor: NodeOperationsFor; healthSettings: () => Promise<HealthSettings>; observations?: NodeObservations };
  /** Key providers and X.509 (certificate renewal); the rotation saga runs only when given. */
  keys?: KeyServices;
  /** Outbound webhooks: the fan-out saga queues deliveries and wakes the delivery worker. */
  webhooks?: { pool: pg.Pool; instance: { id: string; version: string }; wake: () => void };
  /** Notification providers: the notifications saga sends through them. */
  notifications?: { pool: pg.Pool; notifier: NotifierDeps };
  /** Backups: runner, schedules and the periodic target check; left out when not wired. */
  backups?: { services: BackupServices; catalog: BackupCatalog; targetCheckSeconds: () => number };
  /** Node hosts: the periodic check of each registered remote engine; left out when not wired. */
  hosts?: { probe: NodeHostProbe; directory: NodeHostDirectory; checkSeconds: () => number; orphans?: ClusterOrphanSweep };
}

/** Every process manager of the service. */
export function allSagas(deps: SagaDeps): Saga[] {
  // Node work runs per shard, each under its own lease (nodeShards.ts); the rest runs per piece of
  // work, each under its own lease too (workPieces.ts).
  const nodes = deps.nodes ? [...shardedSagas(nodeLifecycleSaga(deps.store, deps.nodes.operationsFor)), ...shardedSagas(nodeHealthSaga(deps.store, deps.nodes.operationsFor, deps.nodes.healthSettings, deps.nodes.observations))] : [];
  const piece = (p: WorkPiece, sagas: Saga[]): Saga[] => sagas.map((s) => ({ ...s, piece: p }));
  const expiry = piece('expiry', [apiKeyExpirySaga(deps.store), certificateExpirySaga(deps.store), ...(deps.keys ? [keyRotationSaga(deps.store, deps.keys)] : [])]);
  const b = deps.backups;
  const backupSagas = piece('backups', b ? [backupRunnerSaga(deps.store, b.services, b.catalog), backupScheduleSaga(deps.store, b.services, b.catalog), backupTargetCheckSaga(deps.store, b.services, b.catalog, b.targetCheckSeconds)] : []);
  const webhooks = piece('webhooks', deps.webhooks ? [webhookFanoutSaga(deps.webhooks)] : []);
  const notifications = piece('notifications', deps.notifications ? [notificationsSaga({ ...deps.notifications, store: deps.store, domainTypes: deliverableDomainEvents })] : []);
  const hosts = piece('host-checks', deps.hosts ? [nodeHostCheckSaga(deps.store, deps.hosts.probe, deps.hosts.directory, deps.hosts.checkSeconds, deps.hosts.orphans)] : []);
  return [...nodes, ...expiry, ...webhooks, ...notifications, ...backupSagas, ...hosts];
}
