// A Vault stand-in: a real HTTP server (127.0.0.1, random port) speaking the part of the Vault
// HTTP API the key provider uses, and checking what Vault checks:
//   - seal state: every call but sys/health, sys/seal-status, sys/init and sys/unseal answers
//     503 "Vault is sealed" while sealed (an uninitialized Vault is sealed too);
//   - X-Vault-Token on everything else: unknown or missing token -> 403 "permission denied",
//     and the token's ACL policies for the path and capability (create vs update decided by
//     the existence of the target, as Vault does);
//   - sys/init with Shamir parameters, sys/unseal counting distinct key shares up to the threshold;
//   - sys/mounts for transit and kv v2, sys/policies/acl, auth/token/create, auth/token/lookup-self.
// LIST is reached as GET ?list=true: node's HTTP parser refuses the LIST verb itself.
// Usage: const vault = await startVaultStandin({ initialized: true })  // dev-like: unsealed,
//        (tls: { key, cert } serves https instead)
//        transit/ and secret/ (kv v2) mounted, vault.rootToken set. vault.seal(); await vault.close().
// Server mode (vaultStandinServer.ts): listen on a given address, and with storageDir keep the
// state in a file (vaultStandinStorage.ts): a restart comes back initialized and sealed, and
// unsealing with the keys of the first run brings back its keys, secrets and tokens.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createAcl, parsePolicy, type Capability } from './vaultStandinAcl.ts';
import { createTransitEngine, type EngineResponse, type SecretsEngine } from './vaultStandinTransit.ts';
import { createKvV2Engine } from './vaultStandinKv.ts';
import { createBarrierStorage } from './vaultStandinStorage.ts';

export interface VaultStandin {
  address: string;
  /** Set once initialized (through the API or `initialized: true`). */
  rootToken: string | null;
  unsealKeys: string[];
  readonly sealed: boolean;
  readonly initialized: boolean;
  /** What an operator's `vault operator seal` does (or a restart of a real Vault). */
  seal(): void;
  close(): Promise<void>;
}

interface Mount {
  type: 'transit' | 'kv';
  options: Record<string, string> | null;
  engine: SecretsEngine;
}

const VERSION = '1.17.0+standin';
const unauthenticated = new Set(['sys/health', 'sys/seal-status', 'sys/init', 'sys/unseal']);

export interface VaultStandinOptions {
  initialized?: boolean;
  tls?: { key: string; cert: string };
  /** Default 127.0.0.1 and a free port. */
  listen?: { host: string; port: number };
  /** Keep the state in this directory (Vault's file storage backend). */
  storageDir?: string;
}

interface StoredState {
  mounts: [string, { type: Mount['type']; options: Mount['options']; engine: unknown }][];
  acl: unknown;
  rootToken: string | null;
}

export async function startVaultStandin(opts: VaultStandinOptions = {}): Promise<VaultStandin> {
  const acl = createAcl();
  const mounts = new Map<string, Mount>();
  const storage = opts.storageDir ? createBarrierStorage(opts.storageDir) : null;
  const stored = storage?.sealConfig();
  let initialized = Boolean(stored);
  let sealed = true;
  let shares: string[] = [];
  let threshold = stored?.threshold ?? 0;
  let provided: string[] = [];
  let rootToken: string | null = null;

  function snapshot(): StoredState {
    return { mounts: [...mounts].map(([p, m]) => [p, { type: m.type, options: m.options, engine: m.engine.snapshot() }]), acl: acl.snapshot(), rootToken };
  }

  function restore(state: StoredState) {
    mounts.clear();
    for (const [p, m] of state.mounts) {
      mountEngine(p, m.type, m.options);
      mounts.get(p)!.engine.restore(m.engine);
    }
    acl.restore(state.acl);
    rootToken = state.rootToken;
  }

  const validShare = (hex: string) => shares.includes(hex) || (storage?.isShare(hex) ?? false);
  const shareCount = () => (shares.length || stored?.shareHashes.length) ?? 0;

  function sealStatus() {
    return {
      type: 'shamir', initialized, sealed, t: threshold, n: shareCount(), progress: provided.length, nonce: '',
      version: VERSION, build_date: '2026-01-01T00:00:00Z', migration: false, recovery_seal: false, storage_type: storage ? 'file' : 'inmem',
    };
  }

  function init(body: Record<string, unknown>): EngineResponse | { status: number; raw: unknown } {
    if (initialized) return { status: 400, errors: ['Vault is already initialized'] };
    const n = Number(body.secret_shares);
    const t = Number(body.secret_threshold);
    if (!Number.isInteger(n) || n < 1 || n > 255) return { status: 400, errors: ['invalid seal configuration: shares must be between 1 and 255'] };
    if (!Number.isInteger(t) || t < 1 || t > n) return { status: 400, errors: ['invalid seal configuration: threshold must be between 1 and the number of shares'] };
    if (n > 1 && t === 1) return { status: 400, errors: ['invalid seal configuration: threshold must be greater than one for multiple shares'] };
    shares = Array.from({ length: n }, () => randomBytes(33).toString('hex'));
    threshold = t;
    initialized = true;
    sealed = true;
    rootToken = acl.issue(['root']);
    mountEngine('cubbyhole', 'kv', null); // stands for Vault's always-present mounts in sys/mounts
    storage?.initialize(shares, t, snapshot());
    return { status: 200, raw: { keys: shares, keys_base64: shares.map((s) => Buffer.from(s, 'hex').toString('base64')), root_token: rootToken } };
  }

  function unseal(body: Record<string, unknown>): EngineResponse | { status: number; raw: unknown } {
    if (!initialized) return { status: 400, errors: ['Vault is not initialized'] };
    if (body.reset === true) {
      provided = [];
      return { status: 200, raw: sealStatus() };
    }
    if (!sealed) return { status: 200, raw: sealStatus() };
    if (typeof body.key !== 'string' || !body.key) return { status: 400, errors: ["'key' must be specified in request body as JSON, or 'reset' set to true"] };
    const hex = /^[0-9a-f]+$/i.test(body.key) ? body.key.toLowerCase() : Buffer.from(body.key, 'base64').toString('hex');
    if (provided.includes(hex)) return { status: 400, errors: ['given key has already been provided during this generation operation'] };
    provided.push(hex);
    if (provided.length >= threshold) {
      const ok = provided.every(validShare);
      const share = provided[0];
      provided = [];
      // Vault combines the shares and fails to decrypt the keyring when one is wrong.
      if (!ok) return { status: 400, errors: ['Error unsealing: cipher: message authentication failed'] };
      if (storage) restore(storage.unseal(share) as StoredState);
      sealed = false;
    }
    return { status: 200, raw: sealStatus() };
  }

  function mountEngine(path: string, type: 'transit' | 'kv', options: Record<string, string> | null) {
    mounts.set(path.replace(/\/+$/, '') + '/', { type, options, engine: type === 'transit' ? createTransitEngine() : createKvV2Engine() });
  }

  function health(query: URLSearchParams): { status: number; raw: unknown } {
    const code = (name: string, dflt: number) => Number(query.get(name) ?? dflt);
    const status = !initialized ? code('uninitcode', 501) : sealed ? code('sealedcode', 503) : code('activecode', 200);
    return {
      status,
      raw: {
        initialized, sealed, standby: false, performance_standby: false, replication_performance_mode: 'disabled',
        replication_dr_mode: 'disabled', server_time_utc: Math.floor(Date.now() / 1000), version: VERSION,
        cluster_name: initialized ? 'vault-cluster-standin' : '', cluster_id: initialized ? 'standin' : '',
      },
    };
  }

  function sysOrAuth(method: string, path: string, body: Record<string, unknown>, token: string): EngineResponse | { status: number; raw: unknown } | null {
    if (path === 'sys/seal' && (method === 'POST')) {
      sealed = true;
      provided = [];
      storage?.seal();
      return { status: 204 };
    }
    const mount = /^sys\/mounts\/(.+)$/.exec(path);
    if (mount && method === 'POST') {
      const key = mount[1].replace(/\/+$/, '') + '/';
      if ([...mounts.keys()].some((m) => m.startsWith(key) || key.startsWith(m)) || key.startsWith('sys/')) return { status: 400, errors: [`path is already in use at ${key}`] };
      const type = String(body.type ?? '');
      const options = (body.options as Record<string, string> | undefined) ?? null;
      if (type === 'transit') mountEngine(key, 'transit', null);
      else if (type === 'kv-v2' || (type === 'kv' && String(options?.version) === '2')) mountEngine(key, 'kv', { version: '2' });
      else if (type === 'kv') return { status: 400, errors: ['stand-in: only kv version 2 is implemented'] };
      else return { status: 400, errors: [`plugin not found in the catalog: ${type}`] };
      return { status: 204 };
    }
    if (mount && method === 'DELETE') {
      mounts.delete(mount[1].replace(/\/+$/, '') + '/');
      return { status: 204 };
    }
    if (path === 'sys/mounts' && method === 'GET') {
      const data: Record<string, unknown> = {};
      for (const [p, m] of mounts) data[p] = { type: m.type, options: m.options, description: '' };
      return { status: 200, data };
    }
    const policy = /^sys\/policies\/acl\/([\w.-]+)$/.exec(path);
    if (policy && method === 'POST') {
      const rules = parsePolicy(String(body.policy ?? ''));
      if (typeof rules === 'string') return { status: 400, errors: [rules] };
      acl.setPolicy(policy[1], String(body.policy), rules);
      return { status: 204 };
    }
    if (policy && method === 'DELETE') {
      acl.deletePolicy(policy[1]);
      return { status: 204 };
    }
    if (path === 'auth/token/create' && method === 'POST') {
      const parent = acl.lookup(token)!;
      const requested = Array.isArray(body.policies) ? body.policies.map(String) : parent.policies;
      if (!parent.policies.includes('root') && requested.some((p) => !parent.policies.includes(p))) {
        return { status: 400, errors: ['child policies must be subset of parent'] };
      }
      const policies = body.no_default_policy === true ? requested : [...new Set(['default', ...requested])];
      const client = acl.issue(policies);
      return { status: 200, raw: envelope(null, { client_token: client, accessor: randomUUID(), policies, token_policies: policies, lease_duration: 0, renewable: false }) };
    }
    if (path === 'sys/capabilities-self' && method === 'POST') {
      const paths = Array.isArray(body.paths) ? body.paths.map(String) : typeof body.path === 'string' ? [body.path] : [];
      if (!paths.length) return { status: 400, errors: ["'paths' must be specified"] };
      const data: Record<string, string[]> = {};
      for (const p of paths) data[p] = acl.capabilities(token, p);
      // Vault repeats the answer at the top level for old clients.
      return { status: 200, raw: { ...envelope({ ...data, capabilities: paths.length === 1 ? data[paths[0]] : undefined }), ...data } };
    }
    if (path === 'auth/token/lookup-self' && method === 'GET') {
      return { status: 200, data: { policies: acl.lookup(token)!.policies, id: token.slice(0, 4) + '…' } };
    }
    return null;
  }

  function envelope(data: unknown, auth: unknown = null, mountType = '') {
    return { request_id: randomUUID(), lease_id: '', renewable: false, lease_duration: 0, data, wrap_info: null, warnings: null, auth, mount_type: mountType };
  }

  function capabilityFor(method: string, exists: boolean): Capability {
    if (method === 'GET') return 'read';
    if (method === 'LIST') return 'list';
    if (method === 'DELETE') return 'delete';
    return exists ? 'update' : 'create';
  }

  function route(rawMethod: string, path: string, query: URLSearchParams, body: Record<string, unknown>, token: string) {
    const method = rawMethod === 'PUT' ? 'POST' : rawMethod === 'GET' && query.get('list') === 'true' ? 'LIST' : rawMethod;
    if (path === 'sys/health' && method === 'GET') return health(query);
    if (path === 'sys/seal-status' && method === 'GET') return { status: 200, raw: sealStatus() };
    if (path === 'sys/init' && method === 'GET') return { status: 200, raw: { initialized } };
    if (path === 'sys/init' && method === 'POST') return init(body);
    if (path === 'sys/unseal' && method === 'POST') return unseal(body);
    if (unauthenticated.has(path)) return { status: 405, errors: [] };
    if (sealed) return { status: 503, errors: ['Vault is sealed'] };
    if (!acl.lookup(token)) return { status: 403, errors: ['permission denied'] };

    const mountPath = [...mounts.keys()].filter((m) => (path + '/').startsWith(m)).sort((a, b) => b.length - a.length)[0];
    const exists = mountPath ? mounts.get(mountPath)!.engine.exists(path.slice(mountPath.length)) : false;
    const needed = path === 'sys/seal' ? 'sudo' : capabilityFor(method, exists);
    // Vault's default policy grants these to every token.
    const selfService = path === 'sys/capabilities-self' || path === 'auth/token/lookup-self';
    if (!selfService && !acl.allowed(token, path, needed)) return { status: 403, errors: ['permission denied'] };

    const sys = sysOrAuth(method, path, body, token);
    if (sys) return sys;
    if (!mountPath || (method !== 'GET' && method !== 'LIST' && method !== 'POST' && method !== 'DELETE')) {
      return { status: 404, errors: [`no handler for route "${path}". route entry not found.`] };
    }
    const m = mounts.get(mountPath)!;
    const res = m.engine.handle({ method, rel: path.slice(mountPath.length), body, query });
    return { ...res, mountType: m.type };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://standin');
    const send = (status: number, payload: unknown) => {
      res.statusCode = status;
      res.setHeader('Cache-Control', 'no-store');
      if (status === 204) return res.end();
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(payload) + '\n');
    };
    if (!url.pathname.startsWith('/v1/')) return send(404, { errors: [] });
    let body: Record<string, unknown> = {};
    const text = Buffer.concat(chunks).toString('utf8');
    if (text.trim()) {
      try {
        body = JSON.parse(text);
      } catch (err) {
        return send(400, { errors: [`failed to parse JSON input: ${(err as Error).message}`] });
      }
    }
    const token = String(req.headers['x-vault-token'] ?? '');
    const out = route(req.method ?? 'GET', url.pathname.slice(4).replace(/\/+$/, ''), url.searchParams, body, token) as EngineResponse & { raw?: unknown; mountType?: string };
    // Every change reaches the storage before it is answered, as with Vault's storage backends.
    if (storage && req.method !== 'GET' && initialized && !sealed && out.status < 400) storage.write(snapshot());
    if (out.raw !== undefined) return send(out.status, out.raw);
    if (out.errors) return send(out.status, out.data === undefined ? { errors: out.errors } : { ...envelope(out.data), errors: out.errors });
    if (out.status === 204) return send(204, null);
    return send(out.status, envelope(out.data ?? null, null, out.mountType ?? ''));
  }

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err) => {
      res.statusCode = 500;
      res.end(JSON.stringify({ errors: [`stand-in failure: ${(err as Error).message}`] }));
    });
  };
  const server = opts.tls ? createHttpsServer({ key: opts.tls.key, cert: opts.tls.cert }, listener) : createServer(listener);
  const listen = opts.listen ?? { host: '127.0.0.1', port: 0 };
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const address = `${opts.tls ? 'https' : 'http'}://${listen.host}:${(server.address() as AddressInfo).port}`;

  const standin: VaultStandin = {
    address,
    rootToken: null,
    unsealKeys: [],
    get sealed() {
      return sealed;
    },
    get initialized() {
      return initialized;
    },
    seal() {
      sealed = true;
      provided = [];
      storage?.seal();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  if (opts.initialized && !initialized) {
    const out = init({ secret_shares: 1, secret_threshold: 1 }) as { raw: { keys: string[] } };
    unseal({ key: out.raw.keys[0] });
    mountEngine('transit', 'transit', null);
    mountEngine('secret', 'kv', { version: '2' });
    storage?.write(snapshot());
  }
  // Both follow an init made through the API too.
  Object.defineProperty(standin, 'rootToken', { get: () => rootToken, enumerable: true });
  Object.defineProperty(standin, 'unsealKeys', { get: () => [...shares], enumerable: true });
  return standin;
}
