// `vault server -config=PATH` for the Vault stand-in, so it can run where the real binary would
// (the test image of vaultStandinImage.ts). It reads Vault's JSON configuration (a file, or a
// directory of *.json files merged, as Vault does with several -config flags) and checks what
// a Vault server checks at start: a storage backend and a listener are required, only the file
// backend and tcp listeners exist here, TLS needs its files unless tls_disable, and without
// IPC_LOCK (containers of the node engine have none) mlock fails unless disable_mlock is set.
// HCL files are refused: the service writes JSON, which Vault reads too.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { startVaultStandin } from './vaultStandin.ts';

export interface StandinServerConfig {
  host: string;
  port: number;
  storageDir: string;
  tls?: { cert: string; key: string };
}

class StartError extends Error {}

/** The -config paths of `server ...` arguments (the entrypoint's -dev-* flags are ignored, as Vault ignores them without -dev). */
export function configPaths(argv: string[]): string[] {
  if (argv[0] !== 'server') throw new StartError(`stand-in: only the "server" command is implemented (got ${argv[0] ?? 'nothing'})`);
  const paths: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const m = /^--?([\w-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m) throw new StartError(`Too many arguments (expected flags only, got "${argv[i]}")`);
    const [, name, inline] = m;
    if (name === 'dev') throw new StartError('stand-in: dev mode is not implemented; run a server with a configuration');
    if (name.startsWith('dev-') || name === 'log-level' || name === 'log-format') {
      if (inline === undefined && !argv[i + 1]?.startsWith('-')) i++;
      continue;
    }
    if (name !== 'config') throw new StartError(`flag provided but not defined: -${name}`);
    const value = inline ?? argv[++i];
    if (!value) throw new StartError('flag needs an argument: -config');
    paths.push(value);
  }
  if (!paths.length) throw new StartError('Error: A config file must be specified (-config)');
  return paths;
}

const truthy = (v: unknown) => v === true || v === 1 || v === 'true' || v === '1';

function readConfigFiles(paths: string[]): Record<string, unknown>[] {
  const files: string[] = [];
  for (const p of paths) {
    if (statSync(p).isDirectory()) files.push(...readdirSync(p).filter((f) => f.endsWith('.json') || f.endsWith('.hcl')).sort().map((f) => path.join(p, f)));
    else files.push(p);
  }
  return files.map((f) => {
    if (f.endsWith('.hcl')) throw new StartError(`stand-in: ${f} is HCL; this stand-in reads JSON configuration only`);
    try {
      return JSON.parse(readFileSync(f, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new StartError(`Error loading configuration from ${f}: ${(err as Error).message}`);
    }
  });
}

export function loadServerConfig(paths: string[]): StandinServerConfig {
  const merged: Record<string, unknown> = {};
  const listeners: Record<string, unknown>[] = [];
  for (const c of readConfigFiles(paths)) {
    for (const l of [c.listener ?? []].flat() as Record<string, unknown>[]) listeners.push(l);
    Object.assign(merged, c);
  }
  const storage = (merged.storage ?? merged.backend) as Record<string, Record<string, unknown>> | undefined;
  if (!storage) throw new StartError('Error: A storage backend must be specified');
  const [kind] = Object.keys(storage);
  if (kind !== 'file') throw new StartError(`stand-in: only the "file" storage backend is implemented (got "${kind}")`);
  const storageDir = storage.file.path;
  if (typeof storageDir !== 'string' || !storageDir) throw new StartError("Error initializing storage of type file: 'path' must be set");
  const tcp = listeners.map((l) => l.tcp as Record<string, unknown> | undefined).filter(Boolean) as Record<string, unknown>[];
  if (!tcp.length) throw new StartError('Error: No listeners configured (the stand-in implements tcp listeners)');
  if (!truthy(merged.disable_mlock)) {
    throw new StartError('Error initializing core: Failed to lock memory: cannot allocate memory\n\nThis usually means that the mlock syscall is not available. Set disable_mlock or grant IPC_LOCK.');
  }
  const l = tcp[0];
  const address = String(l.address ?? '127.0.0.1:8200');
  const m = /^(.*):(\d+)$/.exec(address);
  if (!m) throw new StartError(`Error initializing listener of type tcp: address ${address} has no port`);
  const tls = truthy(l.tls_disable) ? undefined : { cert: String(l.tls_cert_file ?? ''), key: String(l.tls_key_file ?? '') };
  if (tls && (!tls.cert || !tls.key)) throw new StartError("Error initializing listener of type tcp: 'tls_cert_file' must be set");
  return { host: m[1] || '0.0.0.0', port: Number(m[2]), storageDir, ...(tls ? { tls } : {}) };
}

export async function main(argv: string[]): Promise<void> {
  let config: StandinServerConfig;
  try {
    config = loadServerConfig(configPaths(argv));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  }
  const tls = config.tls ? { cert: readFileSync(config.tls.cert, 'utf8'), key: readFileSync(config.tls.key, 'utf8') } : undefined;
  const vault = await startVaultStandin({ listen: { host: config.host, port: config.port }, storageDir: config.storageDir, tls });
  process.stdout.write(
    `==> Vault server configuration (stand-in):\n\n  Listener 1: tcp (addr: "${config.host}:${config.port}", tls: "${tls ? 'enabled' : 'disabled'}")\n  Storage: file\n\n==> Vault server started! Log data will stream in below:\n\n`,
  );
  const stop = () => {
    process.stdout.write('==> Vault shutdown triggered\n');
    vault.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
