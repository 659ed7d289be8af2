// The process engine: each node is a local binary run detached in its own process group, its
// output appended to <nodeDir>/node.log and its identity kept in <nodeDir>/node.pid.json.
// Nothing lives only in memory, so a new engine (a restarted service) over the same data
// directory sees, stops and removes the nodes an earlier one started.
import { spawn } from 'node:child_process';
import { constants, openSync, closeSync, writeFileSync } from 'node:fs';
import { access, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { NotFoundError } from '../../domain/shared/errors.ts';
import {
  failureLine,
  maskSecrets,
  NodeStartFailedError,
  redactLogLine,
  type LogFollower,
  type NodeEngine,
  type NodeLaunchSpec,
  type NodeStarted,
  type NodeStatus,
} from '../../domain/nodes/nodeEngine.ts';
import { keyedMutex } from './keyedMutex.ts';
import { assertLaunchSpec, envWithNodeDir, nodeDirectory, nodeLifecycle, withNodeDir } from './nodeDirectory.ts';
import { awaitStartup, portsInUse, sleep } from './hostPorts.ts';
import { followFile, lastLines, linesAfter } from './logFile.ts';
import { bootId, groupMembers, procCmdline, procStat } from './procfs.ts';

export interface ProcessEngineOptions {
  dataDir: string;
  /** How long a node must stay alive before start() calls it up. */
  graceMs?: number;
  /** How long start() waits for the node's ports to open; after that an alive node counts as started. */
  readyTimeoutMs?: number;
  /** A log bigger than this at start is moved to node.log.1 (one generation kept). */
  maxLogBytes?: number;
  /**
   * The only variables of the service's environment a node inherits: the service's own
   * secrets (database URL, vault token) must not leak into node processes.
   */
  passEnv?: string[];
}

interface PidRecord {
  pid: number;
  command: string;
  startTicks?: number;
  bootId?: string;
  startedAt: string;
}

interface ExitRecord {
  pid: number;
  exitCode: number | null;
  signal: string | null;
}

const PID_FILE = 'node.pid.json';
const LOG_FILE = 'node.log';
const EXIT_FILE = 'node.exit.json';

export function createProcessEngine(options: ProcessEngineOptions): NodeEngine {
  const graceMs = options.graceMs ?? 500;
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  const maxLogBytes = options.maxLogBytes ?? 50 * 1024 * 1024;
  const passEnv = options.passEnv ?? ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'JAVA_HOME'];
  const serial = keyedMutex();
  // Nodes seen running, by node key: while that very process lives (pid and start time), status()
  // answers from /proc alone, without the directory and pid-file reads (the health monitor asks
  // for every node at every interval). Forgotten on stop and remove, and once it is not ours.
  const seenRunning = new Map<string, PidRecord>();
  const dirOf = (nodeKey: string) => nodeDirectory(options.dataDir, nodeKey);

  async function readJson<T>(file: string): Promise<T | undefined> {
    try {
      return JSON.parse(await readFile(file, 'utf8')) as T;
    } catch {
      return undefined;
    }
  }

  /**
   * Alive, not a zombie, and the process we started rather than a stranger that got its pid.
   * Pid and start time name one process for the life of the machine, so they decide when
   * recorded; the command line is checked only without them, because wrapper scripts (besu's,
   * for one) exec into another program and change it.
   */
  async function isOurs(rec: PidRecord): Promise<boolean> {
    const s = await procStat(rec.pid);
    if (!s || s.state === 'Z') return false;
    if (rec.bootId !== undefined && rec.bootId !== (await bootId())) return false;
    if (rec.startTicks !== undefined) return s.startTicks === rec.startTicks;
    const argv = await procCmdline(rec.pid);
    if (!argv) return false;
    // argv[1] covers scripts run through their interpreter (#!/bin/sh puts sh first).
    return argv[0] === rec.command || argv[1] === rec.command;
  }

  async function checkBinary(spec: NodeLaunchSpec, command: string): Promise<void> {
    let info;
    try {
      info = await stat(command);
    } catch {
      throw new NodeStartFailedError('binary-missing', `Cannot start ${spec.displayName}: the binary ${command} does not exist. Install it or configure its path.`, { nodeKey: spec.nodeKey, command });
    }
    try {
      if (!info.isFile()) throw new Error('not a file');
      await access(command, constants.X_OK);
    } catch {
      throw new NodeStartFailedError('binary-missing', `Cannot start ${spec.displayName}: ${command} is not an executable file.`, { nodeKey: spec.nodeKey, command });
    }
  }

  async function rotateLog(file: string): Promise<void> {
    try {
      if ((await stat(file)).size > maxLogBytes) await rename(file, `${file}.1`);
    } catch {
      // No log yet.
    }
  }

  async function removeLeftovers(nodeKey: string): Promise<void> {
    // Retried: a program stopping a moment ago (Prometheus flushing its TSDB under load) or a
    // writer of the directory (the scrape targets) can add a file while it is removed, which
    // fails the removal with ENOTEMPTY (seen in a CI run as a 500 of POST /metrics/undeploy).
    await rm(dirOf(nodeKey), { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }

  async function startNode(spec: NodeLaunchSpec): Promise<NodeStarted> {
    assertLaunchSpec(spec, 'process');
    const run = spec.process!;
    const dir = dirOf(spec.nodeKey);
    const current = await engine.status(spec.nodeKey);
    if (current.state === 'running') {
      throw new NodeStartFailedError('already-running', `${spec.displayName} is already running (pid ${current.pid}).`, { nodeKey: spec.nodeKey, pid: current.pid });
    }
    await checkBinary(spec, run.command);
    const taken = await portsInUse(spec.ports);
    if (taken.length) {
      throw new NodeStartFailedError('port-in-use', `Cannot start ${spec.displayName}: port ${taken.join(', ')} ${taken.length > 1 ? 'are' : 'is'} already in use on this host.`, { nodeKey: spec.nodeKey, ports: taken });
    }

    await mkdir(dir, { recursive: true, mode: 0o700 });
    const logFile = path.join(dir, LOG_FILE);
    await rotateLog(logFile);
    await rm(path.join(dir, EXIT_FILE), { force: true });
    const out = openSync(logFile, 'a', 0o600);
    let offset = 0;
    try {
      offset = (await stat(logFile)).size;
    } catch {
      offset = 0;
    }
    const inherited = Object.fromEntries(passEnv.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]!]));
    let child;
    try {
      child = spawn(run.command, withNodeDir(run.args, dir), {
        cwd: dir,
        detached: true, // own session and process group: survives us, and stop() kills the group
        stdio: ['ignore', out, out],
        env: { ...inherited, ...envWithNodeDir(run.env, dir) },
      });
    } finally {
      closeSync(out);
    }
    if (child.pid === undefined) {
      const err = await new Promise<Error>((resolve) => child.once('error', resolve));
      throw new NodeStartFailedError('binary-missing', `Cannot start ${spec.displayName}: ${err.message}`, { nodeKey: spec.nodeKey, command: run.command });
    }
    const pid = child.pid;
    child.on('error', () => undefined);
    // Only this service run can learn the exit code; a later one sees just that it is gone.
    child.once('exit', (exitCode, signal) => {
      try {
        writeFileSync(path.join(dir, EXIT_FILE), JSON.stringify({ pid, exitCode, signal } satisfies ExitRecord));
      } catch {
        // The node directory was removed meanwhile.
      }
    });
    child.unref();

    const startedAt = new Date().toISOString();
    const record: PidRecord = { pid, command: run.command, startTicks: (await procStat(pid))?.startTicks, bootId: await bootId(), startedAt };
    await writeFile(path.join(dir, `${PID_FILE}.tmp`), JSON.stringify(record), { mode: 0o600 });
    await rename(path.join(dir, `${PID_FILE}.tmp`), path.join(dir, PID_FILE));
    seenRunning.delete(spec.nodeKey);

    const outcome = await awaitStartup({ ports: spec.ports, alive: () => isOurs(record), graceMs, readyTimeoutMs });
    if (outcome === 'exited') {
      // Give the exit event a moment to record the code.
      for (let i = 0; i < 20 && !(await readJson<ExitRecord>(path.join(dir, EXIT_FILE))); i++) await sleep(50);
      const exit = await readJson<ExitRecord>(path.join(dir, EXIT_FILE));
      const last = (await linesAfter(logFile, offset, 20)).map((l) => maskSecrets(redactLogLine(l)));
      const how = exit?.signal ? `killed by ${exit.signal}` : exit ? `exit code ${exit.exitCode}` : 'exit code unknown';
      throw new NodeStartFailedError(
        'exited',
        `${spec.displayName} exited right after starting (${how})${last.length ? `: ${failureLine(last)}` : ' and printed nothing'}`,
        { nodeKey: spec.nodeKey, exitCode: exit?.exitCode ?? undefined, lastLogLines: last },
      );
    }
    return { pid, startedAt };
  }

  async function stopNode(nodeKey: string, opts: { timeoutMs?: number }): Promise<void> {
    const dir = dirOf(nodeKey);
    const pidFile = path.join(dir, PID_FILE);
    seenRunning.delete(nodeKey);
    const rec = await readJson<PidRecord>(pidFile);
    if (!rec) return;
    if (await isOurs(rec)) {
      const signalGroup = (sig: NodeJS.Signals) => {
        try {
          process.kill(-rec.pid, sig);
        } catch {
          // Already gone.
        }
      };
      signalGroup('SIGTERM');
      const deadline = Date.now() + (opts.timeoutMs ?? 10_000);
      while (Date.now() < deadline && (await groupMembers(rec.pid)).length) await sleep(100);
      if ((await groupMembers(rec.pid)).length) {
        signalGroup('SIGKILL');
        for (let i = 0; i < 50 && (await groupMembers(rec.pid)).length; i++) await sleep(100);
      }
    }
    // No pid file means stopped on purpose (status 'stopped', not 'exited').
    await rm(pidFile, { force: true });
  }

  const engine: NodeEngine = {
    kind: 'process',

    async available() {
      try {
        await access('/proc/self/stat', constants.R_OK);
        return { ok: true };
      } catch {
        return { ok: false, reason: 'the process engine needs /proc (Linux) to tell its nodes from other processes' };
      }
    },

    ...nodeLifecycle('process', dirOf, serial, { startNode, stopNode, removeLeftovers }),

    async status(nodeKey): Promise<NodeStatus> {
      const seen = seenRunning.get(nodeKey);
      if (seen && (await isOurs(seen))) return { state: 'running', pid: seen.pid, startedAt: seen.startedAt };
      seenRunning.delete(nodeKey);
      const dir = dirOf(nodeKey);
      try {
        await stat(dir);
      } catch {
        return { state: 'unknown', reason: `node ${nodeKey} is not known to the process engine (no directory ${dir})` };
      }
      const rec = await readJson<PidRecord>(path.join(dir, PID_FILE));
      if (!rec) return { state: 'stopped' };
      if (await isOurs(rec)) {
        // Only a record that names its process by start time (no command-line comparison) is kept.
        if (rec.startTicks !== undefined) seenRunning.set(nodeKey, rec);
        return { state: 'running', pid: rec.pid, startedAt: rec.startedAt };
      }
      const exit = await readJson<ExitRecord>(path.join(dir, EXIT_FILE));
      const known = exit && exit.pid === rec.pid ? exit : undefined;
      const how = known ? (known.signal ? `was killed by ${known.signal}` : `exited with code ${known.exitCode}`) : 'is gone (its exit code is known only to the service run that started it)';
      return {
        state: 'exited',
        pid: rec.pid,
        startedAt: rec.startedAt,
        exitCode: known?.exitCode ?? undefined,
        signal: known?.signal ?? undefined,
        reason: `process ${rec.pid} ${how}`,
      };
    },

    async logs(nodeKey, opts = {}) {
      const dir = dirOf(nodeKey);
      try {
        await stat(dir);
      } catch {
        throw new NotFoundError('Node', nodeKey);
      }
      return (await lastLines(path.join(dir, LOG_FILE), opts.tail ?? 100)).map(redactLogLine);
    },

    async followLogs(nodeKey, onLine, opts = {}): Promise<LogFollower> {
      const dir = dirOf(nodeKey);
      try {
        await stat(dir);
      } catch {
        throw new NotFoundError('Node', nodeKey);
      }
      return followFile(path.join(dir, LOG_FILE), (line) => onLine(redactLogLine(line)), { tail: opts.tail });
    },
  };
  return engine;
}
