// The network name rule every platform shares (SPEC: alphanumerics and hyphens only), kept
// neutral so consortium, EVM and ledgerX networks do not import it from one another.
import { ValidationError } from '../shared/errors.ts';

const NAME = /^[A-Za-z0-9-]{1,64}$/;

/** The SPEC rule for network names: alphanumerics and hyphens only (400 otherwise). */
export function assertNetworkName(name: string): void {
  if (!NAME.test(name)) {
    throw new ValidationError('Network name may contain only letters, digits and hyphens (1-64 characters).', [
      { field: 'name', message: 'only alphanumeric characters and hyphens, 1-64 characters' },
    ]);
  }
}
