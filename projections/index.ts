import type { Projection } from './projection.ts';
import { AUDIT_ONLY_EVENT_TYPES } from '../domain/audit/auditEntry.ts';
import { usersProjection } from './users.ts';
import { apiKeysProjection } from './apiKeys.ts';
import { settingsProjection } from './settings.ts';
import { auditLogProjection } from './auditLog.ts';
import { evmNetworksProjection } from './evm/evmNetworks.ts';
import { nodesProjection } from './nodes.ts';
import { consortiumNetworksProjection } from './consortium/consortiumNetworks.ts';
import { keyProvidersProjection } from './keyProviders.ts';
import { organizationsProjection } from './organizations.ts';
import { keysProjection } from './keys.ts';
import { webhooksProjection } from './webhooks.ts';
import { notificationProvidersProjection } from './notificationProviders.ts';
import { backupsProjection } from './backups.ts';
import { pluginsProjection } from './plugins.ts';
import { consortiumChaincodesProjection } from './consortium/consortiumChaincodes.ts';
import { nodeSharingProjection } from './nodeSharing.ts';
import { evmContractsProjection } from './evm/evmContracts.ts';
import { ledgerXNetworksProjection } from './ledgerx/ledgerxNetworks.ts';
import { nodeHostsProjection } from './nodeHosts.ts';
import { creationsProjection } from './creations.ts';

/** Every read model of the API, in the order they are applied. */
export const allProjections: Projection[] = [usersProjection, apiKeysProjection, settingsProjection, keyProvidersProjection, organizationsProjection, keysProjection, evmNetworksProjection, nodesProjection, nodeHostsProjection, consortiumNetworksProjection, consortiumChaincodesProjection, evmContractsProjection, ledgerXNetworksProjection, webhooksProjection, notificationProvidersProjection, backupsProjection, pluginsProjection, nodeSharingProjection, creationsProjection, auditLogProjection];

/**
 * The event types the read models other than the audit log are rebuilt from: what a backup
 * without its audit entries must still hold in full (a read model handling every type needs them all).
 */
export function typesReadModelsNeed(projections: readonly Projection[] = allProjections): string[] {
  const others = projections.filter((p) => p !== auditLogProjection);
  if (others.some((p) => p.handles === '*')) return [...AUDIT_ONLY_EVENT_TYPES];
  return others.flatMap((p) => p.handles as readonly string[]);
}
