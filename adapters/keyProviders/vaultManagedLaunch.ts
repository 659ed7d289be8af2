// How a managed Vault (Vault provider in CREATE mode) runs as a container of the docker node
// engine: `vault server -config=<dir>/vault.json` (the engine runs it with entrypoint `vault`,
// as the service's own uid, on the host network), a real server — no dev mode — with its file
// storage backend in <DATA_DIR>/nodes/vault-<port>/data, so its data outlives restarts of the
// container and of the service. One managed Vault per host port: the key is derived from it.
//   managedVaultKey(port)                        -> "vault-8200"
//   managedVaultLaunchSpec({ dataDir, port, image }) -> NodeLaunchSpec
import type { NodeLaunchSpec } from '../../domain/nodes/nodeEngine.ts';
import { nodeDirectory } from '../engines/nodeDirectory.ts';

export const managedVaultKey = (port: number) => `vault-${port}`;

export const managedVaultAddress = (port: number) => `http://127.0.0.1:${port}`;

/** The default image of a version; LNM_IMAGE_VAULT (when set) replaces it whatever the version. */
export const defaultVaultImage = (version: string) => `hashicorp/vault:${version}`;

export function managedVaultLaunchSpec(opts: { dataDir: string; port: number; image: string }): NodeLaunchSpec {
  const nodeKey = managedVaultKey(opts.port);
  const dir = nodeDirectory(opts.dataDir, nodeKey);
  // Vault reads JSON configuration as well as HCL.
  const config = {
    storage: { file: { path: `${dir}/data` } },
    // Loopback only (host network): no TLS is needed on 127.0.0.1, and nothing else can reach it.
    listener: { tcp: { address: `127.0.0.1:${opts.port}`, tls_disable: true } },
    api_addr: managedVaultAddress(opts.port),
    // The container has no IPC_LOCK capability: mlock would fail the start.
    disable_mlock: true,
    ui: false,
  };
  return {
    nodeKey,
    displayName: `managed Vault on port ${opts.port}`,
    docker: { image: opts.image, args: ['server', `-config=${dir}/vault.json`] },
    files: [{ path: 'vault.json', content: JSON.stringify(config, null, 2) + '\n' }],
    ports: [opts.port],
  };
}
