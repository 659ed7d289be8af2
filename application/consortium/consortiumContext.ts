// Shared by the consortium routers: the consortium ports from AppDeps.
import type { AppDeps } from '../deps.ts';
import type { ConsortiumDeps } from '../../domain/consortium/consortiumDeps.ts';
import { UnavailableError } from '../../domain/shared/errors.ts';

export function consortiumOf(deps: AppDeps): ConsortiumDeps {
  const c = deps.consortium;
  if (!c) throw new UnavailableError('Consortium networks are not configured on this server.');
  return c;
}
