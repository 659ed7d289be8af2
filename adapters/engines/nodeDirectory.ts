// The node's directory, <dataDir>/nodes/<nodeKey>/: config and key material written by
// prepare(), shared by both engines (the docker engine binds it into the container), and the
// lifecycle calls both engines make the same way (nodeLifecycle).
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ValidationError } from '../../domain/shared/errors.ts';
import { launchSpecIssues, NODE_DIR_PLACEHOLDER, isValidNodeKey, type NodeEngine, type NodeEngineKind, type NodeLaunchSpec, type NodeStarted } from '../../domain/nodes/nodeEngine.ts';

export function nodeDirectory(dataDir: string, nodeKey: string): string {
  // Checked here too: the key becomes a path, and status/stop/remove take it bare.
  if (!isValidNodeKey(nodeKey)) throw new ValidationError('Invalid node key.', [{ field: 'nodeKey', message: 'must be 1-63 letters, digits, ".", "_" or "-"' }]);
  return path.join(path.resolve(dataDir), 'nodes', nodeKey);
}

export function assertLaunchSpec(spec: NodeLaunchSpec, kind: NodeEngineKind): void {
  const issues = launchSpecIssues(spec, kind);
  if (issues.length) throw new ValidationError(`The launch spec of node ${spec.nodeKey} is not valid.`, issues);
}

export async function writeNodeFiles(dir: string, spec: NodeLaunchSpec): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  for (const file of spec.files) {
    const target = path.join(dir, file.path);
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const mode = file.mode ?? (file.secret ? 0o600 : 0o644);
    await writeFile(target, file.content, { mode });
    // writeFile's mode is filtered by the umask and ignored for an existing file.
    await chmod(target, mode);
  }
}

export function withNodeDir(values: string[], dir: string): string[] {
  return values.map((v) => v.split(NODE_DIR_PLACEHOLDER).join(dir));
}

export function envWithNodeDir(env: Record<string, string> | undefined, dir: string): Record<string, string> {
  return Object.fromEntries(Object.entries(env ?? {}).map(([k, v]) => [k, v.split(NODE_DIR_PLACEHOLDER).join(dir)]));
}

/**
 * prepare, start, stop and remove as every engine has them: the spec checked for the engine's
 * kind and its files written; one lifecycle call per node at a time (`serial`, keyed by the node);
 * remove is a stop, then the engine's leftovers (container, files, logs) removed.
 */
export function nodeLifecycle(
  kind: NodeEngineKind,
  dirOf: (nodeKey: string) => string,
  serial: <T>(key: string, work: () => Promise<T>) => Promise<T>,
  engine: { startNode(spec: NodeLaunchSpec): Promise<NodeStarted>; stopNode(nodeKey: string, opts: { timeoutMs?: number }): Promise<void>; removeLeftovers(nodeKey: string): Promise<void> },
): Pick<NodeEngine, 'prepare' | 'start' | 'stop' | 'remove'> {
  return {
    async prepare(spec) {
      assertLaunchSpec(spec, kind);
      await writeNodeFiles(dirOf(spec.nodeKey), spec);
    },
    start: (spec) => serial(spec.nodeKey, () => engine.startNode(spec)),
    stop: (nodeKey, opts = {}) => serial(nodeKey, () => engine.stopNode(nodeKey, opts)),
    remove: (nodeKey, opts = {}) =>
      serial(nodeKey, async () => {
        await engine.stopNode(nodeKey, opts);
        await engine.removeLeftovers(nodeKey);
      }),
  };
}
