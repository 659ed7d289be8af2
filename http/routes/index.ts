import type { RouteDef } from '../route.ts';
import { healthRoutes } from './health.ts';
import { authRoutes } from './auth.ts';
import { userRoutes } from './users.ts';
import { apiKeyRoutes } from './apiKeys.ts';
import { permissionRoutes } from './permissions.ts';
import { settingsRoutes } from './settings.ts';
import { auditRoutes } from './audit.ts';
import { reportRoutes } from './reports.ts';
import { networkRoutes } from './networks.ts';
import { consortiumNetworkRoutes } from './consortiumNetworks.ts';
import { consortiumChannelRoutes } from './consortiumChannels.ts';
import { nodeRoutes } from './nodes.ts';
import { contractRoutes } from './contracts.ts';
import { organizationRoutes } from './organizations.ts';
import { keyRoutes } from './keys.ts';
import { keyProviderRoutes } from './keyProviders.ts';
import { webhookRoutes } from './webhooks.ts';
import { notificationRoutes } from './notifications.ts';
import { templateRoutes } from './templates.ts';
import { nodeSharingRoutes } from './nodeSharing.ts';
import { sharingProposalRoutes } from './sharingProposals.ts';

/** The route table of /api/v1. Every route declares its permission (checked by a test). */
export const allRoutes: RouteDef[] = [...healthRoutes, ...authRoutes, ...userRoutes, ...apiKeyRoutes, ...permissionRoutes, ...settingsRoutes, ...auditRoutes, ...reportRoutes, ...consortiumNetworkRoutes, ...consortiumChannelRoutes, ...networkRoutes, ...nodeRoutes, ...contractRoutes, ...organizationRoutes, ...keyRoutes, ...keyProviderRoutes, ...webhookRoutes, ...notificationRoutes, ...templateRoutes, ...nodeSharingRoutes, ...sharingProposalRoutes];
