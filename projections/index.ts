import type { Projection } from './projection.ts';
import { usersProjection } from './users.ts';
import { apiKeysProjection } from './apiKeys.ts';
import { settingsProjection } from './settings.ts';
import { auditLogProjection } from './auditLog.ts';
import { evmNetworksProjection } from './evmNetworks.ts';
import { evmNodesProjection } from './evmNodes.ts';

/** Every read model of the API, in the order they are applied. */
export const allProjections: Projection[] = [usersProjection, apiKeysProjection, settingsProjection, evmNetworksProjection, evmNodesProjection, auditLogProjection];
