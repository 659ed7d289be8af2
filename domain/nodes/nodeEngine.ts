// The node engine port: what the node lifecycle needs to run one ledger node, whatever runs
// it. Adapters: adapters/engines/processEngine.ts (local binaries, detached, pid files) and
// adapters/engines/dockerEngine.ts (containers through the local Docker Engine).
//
// Every node has a stable key ("node-12") and a directory <dataDir>/nodes/<nodeKey>/ that holds
// its config and key material (written by `prepare`) and, for the process engine, its pid file
// and log. Nodes outlive the service: a new engine over the same data directory finds them
// again, so nothing here may depend on in-memory state of the engine that started a node.
import { AppError, type FieldIssue } from '../shared/errors.ts';

export type NodeEngineKind = 'process' | 'docker';

/**
 * The kind an engine reports: a node's own engine setting (NodeEngineKind), or 'kubernetes' for
 * the engine of a registered cluster (adapters/engines/kubernetesEngine.ts), which runs the
 * node's docker launch (its image and args) in a pod the cluster schedules.
 */
export type EngineKind = NodeEngineKind | 'kubernetes';

/**
 * Placeholder accepted in args and env values; each engine replaces it with the absolute path
 * of the node's directory as the node sees it (the docker engine binds the directory at the
 * same path inside the container, so one spec serves both engines).
 */
export const NODE_DIR_PLACEHOLDER = '{nodeDir}';

export interface NodeFile {
  /** Relative path inside the node's directory; no "..", no absolute paths, no engine file. */
  path: string;
  content: string | Uint8Array;
  /** Unix permission bits; default 0o644, or 0o600 when `secret`. */
  mode?: number;
  /** Key material: written 0o600 and never echoed anywhere. */
  secret?: boolean;
}

export interface NodeLaunchSpec {
  /** Stable id, also the directory and container name: letters, digits, ".", "_", "-". */
  nodeKey: string;
  /** For messages a person reads ("validator-1 of network acme"). */
  displayName: string;
  /** How the process engine runs it: an absolute binary path. */
  process?: { command: string; args: string[]; env?: Record<string, string> };
  /**
   * How the docker engine runs it: the image's entrypoint gets `args`. `image` is an image
   * reference, or a software name ("besu") that the engine's configured image table maps.
   */
  docker?: { image: string; args: string[]; env?: Record<string, string> };
  files: NodeFile[];
  /** Host ports the node listens on: checked free before start, awaited after. */
  ports: number[];
  /**
   * The kubernetes engine only (its volume is out of this machine's reach): on a volume that
   * start made, the node first runs with these docker args until Ready, then its pod is replaced
   * by one with `docker.args`. anvil puts its genesis state into the volume so (anvilLaunch.ts).
   */
  seedArgs?: string[];
  /**
   * The kubernetes engine only: a step run to its end in an init container of every pod of the
   * node, before the node's container, with the node's volume at its directory; `image` is an
   * image reference or a software name of the engine's image table. anvil's state file is
   * cleaned so (anvilStateFile.ts), as the other engines do on this machine before each start.
   */
  podInit?: { image: string; command: string[] };
}

export interface NodeStarted {
  pid?: number;
  containerId?: string;
  /** ISO-8601 */
  startedAt: string;
}

export type NodeRunState =
  /** Running, and it is the process/container this engine started (not a reused pid). */
  | 'running'
  /** Stopped on purpose (stop()), or prepared and never started. */
  | 'stopped'
  /** Ended without stop(): crashed, killed from outside, exited on its own. */
  | 'exited'
  /** The engine cannot tell (node unknown to it, daemon unreachable). */
  | 'unknown';

export interface NodeStatus {
  state: NodeRunState;
  pid?: number;
  containerId?: string;
  /** Known when the engine saw the exit (docker always; process only from the same service run). */
  exitCode?: number;
  /** Signal that ended it, when known (SIGKILL, ...). */
  signal?: string;
  startedAt?: string;
  /** Why, in words a person can act on, for 'exited' and 'unknown'. */
  reason?: string;
}

export type EngineAvailability = { ok: true } | { ok: false; reason: string };

export interface LogFollower {
  close(): void;
}

export interface NodeEngine {
  readonly kind: EngineKind;
  available(): Promise<EngineAvailability>;
  /** Write the spec's files into the node's directory (creating it, 0o700). Idempotent. */
  prepare(spec: NodeLaunchSpec): Promise<void>;
  /**
   * Start the node and return once it is up: its ports accept connections, or it stayed alive
   * through a short grace period. Throws NodeStartFailedError (never reports running) when the
   * binary or image is missing, a port is taken, it is already running, or it exited at once.
   */
  start(spec: NodeLaunchSpec): Promise<NodeStarted>;
  /**
   * Restart a running node in place with this spec, returning once the new instance is up; an
   * engine without it is stopped and started by the caller. The kubernetes engine rolls the pod
   * of the node's StatefulSet (a new pod template revision, as `kubectl rollout restart`).
   */
  restart?(spec: NodeLaunchSpec): Promise<NodeStarted>;
  /** Graceful stop (SIGTERM), forced (SIGKILL) after timeoutMs. Stopping a stopped node is a no-op. */
  stop(nodeKey: string, opts?: { timeoutMs?: number }): Promise<void>;
  status(nodeKey: string): Promise<NodeStatus>;
  /** The last `tail` lines of the node's output (stdout and stderr interleaved). */
  logs(nodeKey: string, opts?: { tail?: number }): Promise<string[]>;
  /** New output lines as they come (after the last `tail` existing ones, default none). */
  followLogs(nodeKey: string, onLine: (line: string) => void, opts?: { tail?: number }): Promise<LogFollower>;
  /**
   * Stop it and delete everything it had: files, logs, container. A volume that outlives the node
   * apart from it (the kubernetes engine's claim) only with `deleteVolume`; the process and docker
   * engines delete theirs always.
   */
  remove(nodeKey: string, opts?: { timeoutMs?: number; deleteVolume?: boolean }): Promise<void>;
  /**
   * The image references (repository:tag, as `docker images` names them: lnm-fabric-peer:3.1.5)
   * of these repositories that the engine runs without pulling: a Docker host's images, a
   * cluster's images on its nodes (their status.images, docker.io/library/ dropped). The release
   * images a node on it can run (adapters/consortium/fabricReleaseImages.ts). Engines without
   * images (process) have none.
   */
  imageReferences?(repositories: string[]): Promise<string[]>;
  /**
   * Runs `args` to its end in a one-off container like the stopped node's (its image, environment,
   * user, working directory and node directory: the bound directory here, the node's volume on a
   * remote host), removed after; its output lines and exit code. The offline commands a program
   * runs only while the node is down (Fabric's `peer node unjoin`, `peer node rollback`). The
   * docker engines (a container) and the kubernetes engine (a one-off pod of the node's
   * StatefulSet's pod template on its claim, with the StatefulSet at 0); throws a ConflictError
   * while the node runs, when it has no container or StatefulSet, or when the one-off cannot run
   * or does not end within `timeoutMs` (default 60 s).
   */
  runWhileStopped?(nodeKey: string, args: string[], opts?: { env?: Record<string, string>; timeoutMs?: number }): Promise<{ exitCode: number; output: string[] }>;
}

export type NodeStartFailure = 'binary-missing' | 'image-missing' | 'port-in-use' | 'already-running' | 'exited' | 'engine-unavailable' | 'invalid-spec';

/**
 * A node that could not start, with the reason a person can act on. `lastLogLines` are the
 * node's own last words when it exited at once (secrets masked).
 */
export class NodeStartFailedError extends AppError {
  readonly failure: NodeStartFailure;
  readonly lastLogLines: string[];
  constructor(failure: NodeStartFailure, message: string, extra: { nodeKey: string; lastLogLines?: string[]; [k: string]: unknown }) {
    const status = failure === 'port-in-use' || failure === 'already-running' ? 409 : failure === 'engine-unavailable' ? 503 : failure === 'invalid-spec' ? 400 : 422;
    super(status, 'NODE_START_FAILED', message, { extra: { failure, ...extra } });
    this.failure = failure;
    this.lastLogLines = extra.lastLogLines ?? [];
  }
}

// Words of a line that says why a program stopped. Many clients end a refused start with
// usage hints (besu: "To display full help: besu [COMMAND] --help"), so the last line alone
// would hide the reason.
const FAILURE_LINE = /unknown option|invalid|error|exception|unable|failed|not found|cannot|refused|denied|does not contain/i;

/** The line of a node's last output that says why it stopped: the first that names a failure, else the last. */
export function failureLine(lines: string[]): string | undefined {
  return lines.find((l) => FAILURE_LINE.test(l)) ?? lines[lines.length - 1];
}

const HEX_SECRET = /\b(0x)?[0-9a-fA-F]{64}\b/g;

/**
 * Masks 32-byte hex strings (private keys look like that) in text bound for an error message.
 * Hashes are masked too: a lost block hash in an error is cheaper than a leaked key.
 */
export function maskSecrets(line: string): string {
  return line.replace(HEX_SECRET, (m) => `${m.startsWith('0x') ? '0x' : ''}<redacted>`);
}

/** Files the engines keep in the node directory (pid, output, exit, stop mark): not for specs. */
export const ENGINE_FILES: readonly string[] = ['node.pid.json', 'node.pid.json.tmp', 'node.log', 'node.log.1', 'node.exit.json', 'node.stopped.json'];

const NODE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export function isValidNodeKey(nodeKey: string): boolean {
  return NODE_KEY.test(nodeKey);
}

/** What is wrong with a spec before any engine touches the disk (empty when nothing is). */
export function launchSpecIssues(spec: NodeLaunchSpec, kind: NodeEngineKind): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (!isValidNodeKey(spec.nodeKey)) issues.push({ field: 'nodeKey', message: 'must be 1-63 letters, digits, ".", "_" or "-", starting with a letter or digit' });
  spec.files.forEach((f, i) => {
    const parts = f.path.split('/');
    if (f.path.startsWith('/') || parts.some((p) => p === '..' || p === '')) issues.push({ field: `files[${i}].path`, message: 'must be a relative path inside the node directory' });
    else if (ENGINE_FILES.includes(f.path)) issues.push({ field: `files[${i}].path`, message: `${f.path} is kept by the node engine itself` });
  });
  spec.ports.forEach((p, i) => {
    if (!Number.isInteger(p) || p < 1 || p > 65535) issues.push({ field: `ports[${i}]`, message: 'must be a port number 1-65535' });
  });
  if (kind === 'process') {
    if (!spec.process) issues.push({ field: 'process', message: 'the process engine needs process.command and process.args' });
    else if (!spec.process.command.startsWith('/')) issues.push({ field: 'process.command', message: 'must be an absolute path' });
  }
  if (kind === 'docker' && !spec.docker?.image) issues.push({ field: 'docker.image', message: 'the docker engine needs an image' });
  return issues;
}

const KEY_LIST_LINE = /^(\s*\(\d+\)\s+)(0x)?[0-9a-fA-F]{64}(\s*)$/;
const SECRET_CONTEXT = /private|secret|mnemonic|seed|passphrase|password/i;
const SECRET_VALUE = /\b(mnemonic|seed phrase|passphrase|password)(\s*[:=]\s*)(.+)$/i;

/**
 * Node output bound for a person (logs API, error details) with key material hidden: dev
 * chains print their private keys and mnemonic at startup (anvil's "(0) 0xac09..." list).
 * Line by line and without state, so any tail window is masked alike; hashes on other lines
 * stay readable.
 */
export function redactLogLine(line: string): string {
  const listed = KEY_LIST_LINE.exec(line);
  if (listed) return `${listed[1]}${listed[2] ?? ''}<redacted>${listed[3]}`;
  if (!SECRET_CONTEXT.test(line)) return line;
  return maskSecrets(line).replace(SECRET_VALUE, (_m, what: string, sep: string) => `${what}${sep}<redacted>`);
}
