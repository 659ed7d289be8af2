// Helpers of the consortium end-to-end tests: the server with the shared Fabric binaries,
// organizations and nodes made over the API, waiting for what the service reports.
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { adminAuth, call, type TestServer } from '../../helpers/server.ts';
import { fabricBinDir } from '../../helpers/fabric.ts';

export const execFileAsync = promisify(execFile);
export const auth = adminAuth();

export function consortiumEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { LNM_FABRIC_BIN: fabricBinDir(), KEY_ENCRYPTION_KEY: 'consortium-e2e-key-encryption-key', ...extra };
}

export function apiOf(server: () => TestServer) {
  return (method: string, path: string, body?: unknown) => call(server().api, method, path, { headers: auth, body });
}

export type Api = ReturnType<typeof apiOf>;

export async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000, everyMs = 500): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function organization(api: Api, name: string, mspId: string): Promise<{ id: number; mspId: string }> {
  const r = await api('POST', '/organizations', { name, mspId });
  assert.is(r.status, 201, r.text);
  return r.json;
}

export async function node(api: Api, name: string, nodeType: 'CONSORTIUM_PEER' | 'CONSORTIUM_ORDERER', organizationId: number, config: Record<string, unknown> = {}) {
  const r = await api('POST', '/nodes', { name, platform: 'CONSORTIUM', nodeType, organizationId, config });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.status, 'running', `${name}: ${r.json.status} ${r.json.error ?? ''}`);
  return r.json;
}

export async function events(api: Api, nodeId: number): Promise<string[]> {
  const r = await api('GET', `/nodes/${nodeId}/events?limit=500`);
  return (r.json?.items ?? []).map((e: { event: string }) => e.event);
}

/** `osnadmin channel list` against an orderer, as an independent check of joins. */
export async function osnadminList(adminPort: number, files: { ca: string; cert: string; key: string }): Promise<string> {
  const { stdout, stderr } = await execFileAsync(`${fabricBinDir()}/osnadmin`, ['channel', 'list', '-o', `127.0.0.1:${adminPort}`, '--ca-file', files.ca, '--client-cert', files.cert, '--client-key', files.key], { timeout: 20_000 });
  return stdout + stderr;
}
