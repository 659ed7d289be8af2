// Plugins under Docker Compose (Debian's docker-compose, or the `docker compose` plugin where
// present): project <prefix>plugin-<name> (LNM_DOCKER_PREFIX, default lnm-), compose file <dataDir>/plugins/<name>/docker-compose.yml.
// Service states come from the Docker Engine by the compose project label.
import { execFile } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { AppError, NotFoundError } from '../../domain/shared/errors.ts';
import type { PluginRuntime } from '../../domain/plugins/pluginPorts.ts';
import { redactLogLine } from '../../domain/nodes/nodeEngine.ts';
import { demuxLogBuffer, lineSink, splitLines } from '../engines/dockerLogs.ts';
import { DEFAULT_DOCKER_PREFIX } from '../engines/nodeImages.ts';

const run = promisify(execFile);

/**
 * What Compose gets of the service's environment: how to reach the Docker Engine and find its
 * programs, nothing else. Compose interpolates `$NAME` in a compose file from its environment,
 * so a descriptor's `${KEY_ENCRYPTION_KEY}` or `${DATABASE_URL}` must find nothing there.
 */
const COMPOSE_ENV = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'LC_ALL', 'XDG_RUNTIME_DIR', 'DOCKER_HOST', 'DOCKER_CONTEXT', 'DOCKER_CONFIG', 'DOCKER_CERT_PATH', 'DOCKER_TLS_VERIFY', 'DOCKER_API_VERSION'];
export function composeEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(COMPOSE_ENV.flatMap((k) => (env[k] === undefined ? [] : [[k, env[k]]])));
}

export function createComposePluginRuntime(opts: { dataDir: string; shippedDir: string; env?: NodeJS.ProcessEnv; namePrefix?: string }): PluginRuntime {
  const docker = new Docker();
  const env = composeEnvironment(opts.env ?? process.env);
  const dirOf = (name: string) => path.join(path.resolve(opts.dataDir), 'plugins', name);
  const project = (name: string) => `${opts.namePrefix ?? DEFAULT_DOCKER_PREFIX}plugin-${name}`;
  let composeCommand: Promise<string[] | null> | null = null;

  async function works(cmd: string[]): Promise<boolean> {
    try {
      await run(cmd[0], [...cmd.slice(1), 'version'], { timeout: 15_000, env });
      return true;
    } catch {
      return false;
    }
  }
  const compose = () => (composeCommand ??= (async () => ((await works(['docker', 'compose'])) ? ['docker', 'compose'] : (await works(['docker-compose'])) ? ['docker-compose'] : null))());

  async function composeRun(name: string, args: string[], timeout = 180_000): Promise<string> {
    const cmd = await compose();
    if (!cmd) throw new AppError(503, 'UNAVAILABLE', 'Docker Compose is not installed: apt-get install docker-compose.');
    try {
      const { stdout, stderr } = await run(cmd[0], [...cmd.slice(1), '-p', project(name), '-f', path.join(dirOf(name), 'docker-compose.yml'), ...args], { timeout, env, maxBuffer: 8 * 1024 * 1024 });
      return stdout + stderr;
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      const last = (e.stderr ?? e.message).trim().split('\n').slice(-5).join(' | ');
      throw new AppError(422, 'PLUGIN_COMPOSE_FAILED', `docker compose ${args[0]} of plugin ${name} failed: ${last}`);
    }
  }

  async function containers(name: string) {
    const list = await docker.listContainers({ all: true, filters: { label: [`com.docker.compose.project=${project(name)}`] } });
    return list
      .map((c) => ({ service: c.Labels['com.docker.compose.service'] ?? c.Names[0], state: c.State, status: c.Status, containerId: c.Id.slice(0, 12), id: c.Id }))
      .sort((a, b) => a.service.localeCompare(b.service));
  }

  return {
    async unavailable() {
      try {
        await Promise.race([docker.ping(), new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 3 s')), 3000).unref())]);
      } catch (err) {
        return `no Docker Engine answers (${(err as Error).message})`;
      }
      return (await compose()) ? null : 'Docker Compose is not installed (apt-get install docker-compose, or the docker compose plugin)';
    },
    async writeFiles(name, files) {
      const root = path.join(dirOf(name), 'files');
      await rm(root, { recursive: true, force: true });
      await mkdir(root, { recursive: true, mode: 0o700 });
      await chmod(dirOf(name), 0o700);
      await chmod(root, 0o700);
      for (const f of files) {
        if (f.path.split('/').some((x) => x === '..' || x === '') || f.path.startsWith('/')) throw new Error(`bad plugin file path ${f.path}`);
        await mkdir(path.dirname(path.join(root, f.path)), { recursive: true, mode: 0o700 });
        await writeFile(path.join(root, f.path), f.content, { mode: f.secret ? 0o600 : 0o644 });
      }
      return root;
    },
    async deploy(name, text) {
      await mkdir(dirOf(name), { recursive: true, mode: 0o700 });
      await writeFile(path.join(dirOf(name), 'docker-compose.yml'), text, { mode: 0o600 });
      try {
        await composeRun(name, ['up', '-d', '--remove-orphans']);
      } catch (err) {
        await composeRun(name, ['down', '--remove-orphans']).catch(() => undefined);
        throw err;
      }
    },
    async stop(name) {
      await composeRun(name, ['stop']);
    },
    async resume(name) {
      await composeRun(name, ['start']);
    },
    async remove(name) {
      if ((await compose()) && (await readFile(path.join(dirOf(name), 'docker-compose.yml')).then(() => true, () => false))) await composeRun(name, ['down', '-v', '--remove-orphans']);
      await rm(dirOf(name), { recursive: true, force: true });
    },
    services: async (name) => (await containers(name)).map(({ id: _id, ...state }) => state),
    async logs(name, { service, tail }) {
      const list = (await containers(name)).filter((c) => service === undefined || c.service === service);
      return Promise.all(list.map(async ({ id, ...state }) => {
        let buf: Buffer;
        try {
          buf = (await docker.getContainer(id).logs({ stdout: true, stderr: true, follow: false, tail })) as unknown as Buffer;
        } catch (err) {
          // Removed between the listing and this read: it has no output any more.
          if ((err as { statusCode?: number }).statusCode === 404) return { ...state, lines: [] };
          throw new AppError(503, 'UNAVAILABLE', `The Docker Engine did not give the output of ${name}/${state.service}: ${(err as Error).message}`);
        }
        const lines = splitLines(demuxLogBuffer(Buffer.isBuffer(buf) ? buf : Buffer.from(String(buf))));
        return { ...state, lines: lines.map(redactLogLine) };
      }));
    },
    async followLogs(name, service, onLine, tail) {
      const c = (await containers(name)).find((x) => x.service === service);
      if (!c) throw new NotFoundError('Plugin service', `${name}/${service}`);
      let stream: NodeJS.ReadableStream & { destroy(): void };
      try {
        stream = (await docker.getContainer(c.id).logs({ stdout: true, stderr: true, follow: true, tail })) as unknown as NodeJS.ReadableStream & { destroy(): void };
      } catch (err) {
        if ((err as { statusCode?: number }).statusCode === 404) throw new NotFoundError('Plugin service', `${name}/${service}`);
        throw new AppError(503, 'UNAVAILABLE', `The Docker Engine did not follow the output of ${name}/${service}: ${(err as Error).message}`);
      }
      const deliver = (line: string) => onLine(redactLogLine(line));
      docker.modem.demuxStream(stream, lineSink(deliver), lineSink(deliver));
      stream.on('error', () => undefined);
      return { close: () => stream.destroy() };
    },
    async shipped() {
      const files = (await readdir(opts.shippedDir).catch(() => [] as string[])).filter((f) => /\.(ya?ml|json)$/.test(f)).sort();
      return Promise.all(files.map(async (file) => ({ file, text: await readFile(path.join(opts.shippedDir, file), 'utf8') })));
    },
  };
}
