// What the key provider routes need beyond KeyProviderRegistry for managed Vaults (VAULT
// providers in CREATE mode, whose container this service runs). A registry that can run
// managed Vaults implements it; managedVaultControl() finds it.
import type { KeyProviderRegistry } from '../keys/keyServices.ts';

export interface ManagedVaultControl {
  /** Whether the provider's managed container runs; null when the provider runs none (IMPORT, AWS KMS). */
  containerRunning(providerId: number): Promise<boolean | null>;
  /** Undoes prepare() of a CREATE configuration whose registration did not complete: container and data removed. */
  discardPrepared(sealedConfig: string): Promise<void>;
  /** Stops and removes the container (and its data) of a deleted CREATE provider; a no-op for other providers. */
  removeManaged(publicConfig: Record<string, unknown>): Promise<void>;
}

export function managedVaultControl(registry: KeyProviderRegistry): ManagedVaultControl | null {
  const r = registry as KeyProviderRegistry & Partial<ManagedVaultControl>;
  return typeof r.containerRunning === 'function' && typeof r.discardPrepared === 'function' && typeof r.removeManaged === 'function' ? (r as ManagedVaultControl) : null;
}
