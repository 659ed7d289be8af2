// Shared by the engine tests: free ports, a JSON-RPC call, an anvil launch spec.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
export { freePort } from '../../../adapters/postgres/embeddedPostgres.ts';
import type { NodeLaunchSpec } from '../../../domain/nodes/nodeEngine.ts';

export const anvilBinary = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil');

/** Holds a port open until close() (to make a node's port "in use"). */
export function occupyPort(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

export async function rpc(port: number, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(`http://127.0.0.1:${port}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(body.error.message);
  return body.result;
}

export function anvilSpec(nodeKey: string, port: number, extra: Partial<NodeLaunchSpec> = {}): NodeLaunchSpec {
  const args = ['--host', '127.0.0.1', '--port', String(port)];
  return {
    nodeKey,
    displayName: `anvil ${nodeKey}`,
    process: { command: anvilBinary, args },
    docker: { image: 'lnm-anvil:local', args },
    files: [
      { path: 'config/node.toml', content: `port = ${port}\n` },
      { path: 'keys/validator.key', content: '0x' + 'ab'.repeat(32), secret: true },
    ],
    ports: [port],
    ...extra,
  };
}

/** Polls until `check` returns a value other than undefined, or fails after `ms`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Runs serviceProcess.ts (a stand-in for the service) until it reports the node started, and
 * returns what it printed with the child, so the test can kill it like a crashed service.
 */
export async function startNodeInServiceProcess(kind: 'process' | 'docker', dataDir: string, nodeKey: string, port: number): Promise<{ child: ChildProcess; started: { pid?: number; containerId?: string } }> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'serviceProcess.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', script, kind, dataDir, nodeKey, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
    child.once('exit', (code) => reject(new Error(`service process exited with code ${code} before starting the node: ${out}`)));
  });
  const report = JSON.parse(line) as { started?: { pid?: number; containerId?: string }; error?: string };
  if (!report.started) {
    child.kill('SIGKILL');
    throw new Error(`service process could not start the node: ${report.error}`);
  }
  return { child, started: report.started };
}

export async function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await gone;
}
