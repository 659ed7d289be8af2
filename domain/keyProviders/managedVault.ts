// What the key provider routes need for managed Vaults (VAULT providers in CREATE mode, whose
// container this service runs); part of KeyProviderRegistry (domain/keys/keyServices.ts).

export interface ManagedVaultControl {
  /** Whether the provider's managed container runs; null when the provider runs none (IMPORT, AWS KMS). */
  containerRunning(providerId: number): Promise<boolean | null>;
  /** Undoes prepare() of a CREATE configuration whose registration did not complete: container and data removed. */
  discardPrepared(sealedConfig: string): Promise<void>;
  /** Stops and removes the container (and its data) of a deleted CREATE provider; a no-op for other providers. */
  removeManaged(publicConfig: Record<string, unknown>): Promise<void>;
}
