import type { Projection } from './projection.ts';
import { usersProjection } from './users.ts';
import { apiKeysProjection } from './apiKeys.ts';
import { settingsProjection } from './settings.ts';
import { auditLogProjection } from './auditLog.ts';
import { evmNetworksProjection } from './evmNetworks.ts';
import { nodesProjection } from './nodes.ts';
import { consortiumNetworksProjection } from './consortiumNetworks.ts';
import { keyProvidersProjection } from './keyProviders.ts';
import { organizationsProjection } from './organizations.ts';
import { keysProjection } from './keys.ts';
import { webhooksProjection } from './webhooks.ts';
import { notificationProvidersProjection } from './notificationProviders.ts';
import { backupsProjection } from './backups.ts';
import { pluginsProjection } from './plugins.ts';
import { consortiumChaincodesProjection } from './consortiumChaincodes.ts';
import { nodeSharingProjection } from './nodeSharing.ts';
import { evmContractsProjection } from './evmContracts.ts';

/** Every read model of the API, in the order they are applied. */
export const allProjections: Projection[] = [usersProjection, apiKeysProjection, settingsProjection, keyProvidersProjection, organizationsProjection, keysProjection, evmNetworksProjection, nodesProjection, consortiumNetworksProjection, consortiumChaincodesProjection, evmContractsProjection, webhooksProjection, notificationProvidersProjection, backupsProjection, pluginsProjection, nodeSharingProjection, auditLogProjection];
