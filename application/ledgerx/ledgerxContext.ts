// Shared by the ledgerX use cases and routes: the platform's ports from AppDeps.
import type { AppDeps } from '../deps.ts';
import type { LedgerXDeps } from '../../domain/ledgerx/ledgerxDeps.ts';
import { UnavailableError } from '../../domain/shared/errors.ts';

export function ledgerXOf(deps: AppDeps): LedgerXDeps {
  if (!deps.ledgerx) throw new UnavailableError('LedgerX is not configured on this server.');
  return deps.ledgerx;
}
