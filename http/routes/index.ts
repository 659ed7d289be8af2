import type { RouteDef } from '../route.ts';
import { healthRoutes } from './health.ts';

/** The route table of /api/v1. Every route declares its permission (checked by a test). */
export const allRoutes: RouteDef[] = [...healthRoutes];
