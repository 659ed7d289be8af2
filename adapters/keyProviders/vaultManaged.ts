// Managed Vaults (VAULT providers in CREATE mode): the service runs the Vault container through
// the docker node engine, initializes and unseals it, mounts transit and KV v2, and keeps the
// root token and unseal keys sealed in the provider configuration; from then on the provider is
// an IMPORT provider pointed at http://127.0.0.1:<port>, plus self-healing:
//   - a call that finds the Vault sealed (a restarted Vault always is) or unreachable, and a
//     status check that finds it so, start the container if it is not running and unseal it
//     with the stored keys, then the call is made once more;
//   - a deploy that fails midway removes the container and its data.
//   createManagedVaults(opts) -> { deploy, remove, running, wrap }
import Docker from 'dockerode';
import type { NodeEngine } from '../../domain/nodes/nodeEngine.ts';
import { AppError, ConflictError, UnavailableError } from '../../domain/shared/errors.ts';
import { createDockerEngine } from '../engines/dockerEngine.ts';
import { bootstrapVault, ensureUnsealed } from './vaultBootstrap.ts';
import type { VaultConnection, VaultProviderConfig } from './vaultConfig.ts';
import type { VaultKeyProvider, VaultStatus } from './vaultKeyProvider.ts';
import { defaultVaultImage, managedVaultAddress, managedVaultKey, managedVaultLaunchSpec } from './vaultManagedLaunch.ts';

export interface ManagedVaultState {
  containerKey: string;
  image: string;
  port: number;
  version: string;
  network: string;
  /** Secret: stored only inside the sealed provider configuration. */
  unsealKeys: string[];
}

/** What a VAULT provider's sealed configuration holds: the connection, plus `managed` in CREATE mode. */
export type StoredVaultConfig = VaultConnection & { managed?: ManagedVaultState };

type CreateConfig = Extract<VaultProviderConfig, { operation: 'CREATE' }>;

export interface ManagedVaultOptions {
  dataDir: string;
  /** LNM_IMAGE_VAULT: the image of every managed Vault; default hashicorp/vault:<version>. */
  image?: string | null;
  /** Default: the docker node engine with entrypoint `vault`. */
  engine?: NodeEngine;
  /** Why a managed Vault cannot run here (no engine, no image), or null. Default: asks the local Docker Engine. */
  check?: (image: string) => Promise<string | null>;
  /** How long to wait for the Vault API after the container started. Default 30 s. */
  waitMs?: number;
}

/** Why a managed Vault cannot be started here (no engine; no image, and pulling it failed), or null. */
async function dockerCheck(image: string): Promise<string | null> {
  const docker = new Docker();
  try {
    await Promise.race([docker.ping(), new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 3 s')), 3000).unref())]);
  } catch (err) {
    return `no Docker Engine answers (${(err as Error).message})`;
  }
  try {
    await docker.getImage(image).inspect();
    return null;
  } catch {
    /* not on this host: pull it */
  }
  try {
    const stream = await docker.pull(image);
    await new Promise<void>((resolve, reject) => docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())));
    return null;
  } catch (err) {
    return `the image ${image} is not on this Docker host and pulling it failed (${(err as Error).message.slice(0, 300)})`;
  }
}

export function createManagedVaults(opts: ManagedVaultOptions) {
  const engine = opts.engine ?? createDockerEngine({ dataDir: opts.dataDir, entrypoint: ['vault'] });
  const check = opts.check ?? dockerCheck;
  const waitMs = opts.waitMs ?? 30_000;
  const deploying = new Set<string>();
  const imageFor = (version: string) => opts.image?.trim() || defaultVaultImage(version);

  function specOf(m: ManagedVaultState) {
    return managedVaultLaunchSpec({ dataDir: opts.dataDir, port: m.port, image: m.image });
  }

  /**
   * Runs, initializes and unseals a new managed Vault. `usedBy` names the registered provider
   * that already runs the Vault of that port, if any (409 then).
   */
  async function deploy(cfg: CreateConfig, usedBy: (containerKey: string) => Promise<string | null>): Promise<StoredVaultConfig> {
    const image = imageFor(cfg.version);
    const why = await check(image);
    if (why) {
      throw new UnavailableError(
        `Vault CREATE mode runs ${image} through the docker node engine, and that cannot be done here: ${why}. ` +
          'Make the image available (LNM_IMAGE_VAULT names another one), or start a Vault yourself and register it with operation IMPORT (address, token, mount).',
        { image, engine: 'docker' },
      );
    }
    const containerKey = managedVaultKey(cfg.port);
    const owner = await usedBy(containerKey);
    if (owner !== null || deploying.has(containerKey)) {
      throw new ConflictError(`Port ${cfg.port} is already used by the managed Vault of key provider ${owner ?? '(being created)'}; choose another port.`, { field: 'vaultConfig.port', port: cfg.port });
    }
    deploying.add(containerKey);
    const managed: ManagedVaultState = { containerKey, image, port: cfg.port, version: cfg.version, network: cfg.network, unsealKeys: [] };
    const spec = specOf(managed);
    try {
      // A container and data left by an attempt that never registered (the service died midway).
      await engine.remove(containerKey);
      await engine.prepare(spec);
      await engine.start(spec);
      const address = managedVaultAddress(cfg.port);
      const boot = await bootstrapVault(address, { transitPath: cfg.transitPath, kvPath: cfg.kvPath, waitMs });
      return { address, token: boot.rootToken, transitPath: cfg.transitPath, kvPath: cfg.kvPath, managed: { ...managed, unsealKeys: boot.unsealKeys } };
    } catch (err) {
      await engine.remove(containerKey).catch(() => undefined);
      throw err;
    } finally {
      deploying.delete(containerKey);
    }
  }

  async function remove(containerKey: string): Promise<void> {
    await engine.remove(containerKey, { timeoutMs: 10_000 });
  }

  async function running(containerKey: string): Promise<boolean> {
    return (await engine.status(containerKey)).state === 'running';
  }

  /** The provider of a managed Vault: the IMPORT provider, with the recovery described above. */
  function wrap(stored: StoredVaultConfig, base: VaultKeyProvider): VaultKeyProvider {
    if (!stored.managed) return base;
    const m: ManagedVaultState = stored.managed;
    let recovering: Promise<void> | null = null;

    function recover(): Promise<void> {
      recovering ??= (async () => {
        if (!(await running(m.containerKey))) {
          const spec = specOf(m);
          await engine.prepare(spec);
          await engine.start(spec);
        }
        await ensureUnsealed(stored.address, m.unsealKeys, { waitMs });
      })().finally(() => {
        recovering = null;
      });
      return recovering;
    }

    const recoverable = (err: unknown) => err instanceof AppError && err.status === 503 && (err.extra?.sealed === true || err.extra?.vault_reachable === false);

    async function withRecovery<T>(fn: () => Promise<T>): Promise<T> {
      try {
        return await fn();
      } catch (err) {
        if (!recoverable(err)) throw err;
        await recover();
        return fn();
      }
    }

    async function status(): Promise<VaultStatus> {
      const s = await base.status();
      if (s.vault_reachable && s.vault_initialized && !s.sealed) return s;
      try {
        await recover();
      } catch (err) {
        return { ...s, detail: `${s.detail ?? 'Vault is not usable.'} Starting and unsealing the managed Vault failed: ${(err as Error).message}` };
      }
      return base.status();
    }

    return {
      ...base,
      generateKey: (name, spec) => withRecovery(() => base.generateKey(name, spec)),
      importKey: (name, pem) => withRecovery(() => base.importKey(name, pem)),
      sign: (handle, spec, input) => withRecovery(() => base.sign(handle, spec, input)),
      deleteKey: (handle) => withRecovery(() => base.deleteKey(handle)),
      putCertificate: (name, pem) => withRecovery(() => base.putCertificate(name, pem)),
      getCertificate: (name) => withRecovery(() => base.getCertificate(name)),
      checkTokenPolicy: () => withRecovery(() => base.checkTokenPolicy()),
      status,
    };
  }

  return { deploy, remove, running, wrap, imageFor };
}

export type ManagedVaults = ReturnType<typeof createManagedVaults>;
