// The KV version 2 secrets engine of the Vault stand-in: data/ (versioned writes and reads),
// metadata/ (list, read, delete all versions), with Vault's check-and-set option.
import type { EngineRequest, EngineResponse, SecretsEngine } from './vaultStandinTransit.ts';

interface SecretVersion {
  data: Record<string, unknown>;
  createdTime: string;
  deletionTime: string;
}

export function createKvV2Engine(): SecretsEngine {
  const secrets = new Map<string, SecretVersion[]>();

  function versionMeta(v: SecretVersion, n: number) {
    return { created_time: v.createdTime, custom_metadata: null, deletion_time: v.deletionTime, destroyed: false, version: n };
  }

  function write(path: string, body: Record<string, unknown>): EngineResponse {
    if (!body.data || typeof body.data !== 'object' || Array.isArray(body.data)) return { status: 400, errors: ['no data provided'] };
    const versions = secrets.get(path) ?? [];
    const cas = (body.options as { cas?: number } | undefined)?.cas;
    if (cas !== undefined && cas !== versions.length) {
      return { status: 400, errors: [`check-and-set parameter did not match the current version`] };
    }
    versions.push({ data: body.data as Record<string, unknown>, createdTime: new Date().toISOString(), deletionTime: '' });
    secrets.set(path, versions);
    return { status: 200, data: versionMeta(versions[versions.length - 1], versions.length) };
  }

  function read(path: string, query: URLSearchParams): EngineResponse {
    const versions = secrets.get(path);
    if (!versions?.length) return { status: 404, errors: [] };
    const n = Number(query.get('version') ?? 0) || versions.length;
    const v = versions[n - 1];
    if (!v) return { status: 404, errors: [] };
    // A soft-deleted version answers 404 with its metadata, as Vault does.
    if (v.deletionTime) return { status: 404, data: { data: null, metadata: versionMeta(v, n) } };
    return { status: 200, data: { data: v.data, metadata: versionMeta(v, n) } };
  }

  function list(prefix: string): EngineResponse {
    const p = prefix === '' || prefix.endsWith('/') ? prefix : prefix + '/';
    const keys = new Set<string>();
    for (const path of secrets.keys()) {
      if (!path.startsWith(p)) continue;
      const rest = path.slice(p.length);
      const slash = rest.indexOf('/');
      keys.add(slash < 0 ? rest : rest.slice(0, slash + 1));
    }
    return keys.size ? { status: 200, data: { keys: [...keys].sort() } } : { status: 404, errors: [] };
  }

  function handle(req: EngineRequest): EngineResponse {
    const slash = req.rel.indexOf('/');
    const op = slash < 0 ? req.rel : req.rel.slice(0, slash);
    const path = slash < 0 ? '' : req.rel.slice(slash + 1);
    if (op === 'data' && path) {
      if (req.method === 'POST') return write(path, req.body);
      if (req.method === 'GET') return read(path, req.query);
      if (req.method === 'DELETE') {
        const versions = secrets.get(path);
        const last = versions?.[versions.length - 1];
        if (last && !last.deletionTime) last.deletionTime = new Date().toISOString();
        return { status: 204 };
      }
    }
    if (op === 'metadata') {
      if (req.method === 'LIST') return list(path);
      if (req.method === 'DELETE' && path) {
        secrets.delete(path);
        return { status: 204 };
      }
      if (req.method === 'GET' && path) {
        const versions = secrets.get(path);
        if (!versions) return { status: 404, errors: [] };
        const all: Record<string, unknown> = {};
        versions.forEach((v, i) => (all[String(i + 1)] = versionMeta(v, i + 1)));
        return { status: 200, data: { current_version: versions.length, oldest_version: 1, versions: all } };
      }
    }
    return { status: 404, errors: [`no handler for route "${req.rel}". route entry not found.`] };
  }

  return {
    handle,
    exists: (rel) => rel.startsWith('data/') && !!secrets.get(rel.slice(5))?.length,
    snapshot: () => [...secrets],
    restore(state) {
      secrets.clear();
      for (const [path, versions] of state as [string, SecretVersion[]][]) secrets.set(path, versions);
    },
  };
}
