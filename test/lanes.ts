// `npm test` runs its files in lanes, side by side (test/uvuEntry.ts starts them, test/lane.ts is
// one): most of a test's time is spent waiting for servers, nodes and blocks, so two lanes on two
// cores take about half the wall time of one.
//
// Two files side by side must not meet. Their servers, databases, directories and ports (freePort)
// are their own already; what they would share is the ports the service itself picks for nodes
// (the platforms' defaults, 7050, 7051, 8545, ..., each taken if free at create time) and the
// Docker Engine and Kubernetes cluster (container and volume names with the default prefix lnm-).
// So the first lane runs in this machine's network, every other lane in a network namespace of
// its own (`unshare --net`, as root: a loopback of its own, the same default ports free in each,
// and a veth pair inside it for Fabric's peer, which needs a non-loopback IPv4 interface),
// and a file that uses Docker or Kubernetes, whose containers and pods are in this machine's
// network, runs in the first lane only: one such file at a time, as before.
import { execFileSync } from 'node:child_process';
import type { SkipRecords } from './helpers/requirements.ts';

/** Lane -> coordinator. */
export type LaneAsk =
  | { type: 'ready' }
  | { type: 'done'; file: string; total: number; passed: number; skipped: number; failed: boolean; seconds: number; output: string }
  | { type: 'skips'; skips: SkipRecords };
/** Coordinator -> lane. */
export type LaneTell = { type: 'run'; name: string; file: string } | { type: 'end' };

export interface TestFile {
  /** The path under test/, as uvu names it. */
  name: string;
  file: string;
  /** Uses Docker or Kubernetes: only the lane in this machine's network runs it. */
  mainNetwork: boolean;
}

/**
 * Whether a file must run in this machine's network: a test other than a unit test that names
 * Docker or Kubernetes (its containers are on the host network, its cluster on the host's bridge;
 * the default container names are one per engine), or a unit test that talks to the Docker Engine.
 */
export function needsMainNetwork(name: string, source: string): boolean {
  if (name.includes('.unit.')) return /dockerode|dockerAvailab/.test(source);
  return /docker|kubernetes/i.test(source);
}

const rank = (f: string) => (f.includes('.e2e.') ? 0 : f.includes('.int.') ? 1 : 2);
/** Seconds assumed for a file with no measured time (new since test/durations.json was written), by kind. */
const GUESS_SECONDS = [60, 10, 1];

/** Measured seconds per file (test/durations.json: a whole run's, `LNM_TEST_DURATIONS_OUT`). */
export type Durations = Record<string, number>;

/**
 * The files still to run, handed out to lanes as they ask. The main-network lane takes its own
 * files first (no other lane can), then any; another lane takes only files that may run in a
 * namespace. Each queue goes longest first, by the seconds a whole run measured (a file with none
 * by its kind: end to end, then integration, then unit), so the lanes end at about the same time:
 * a 6-minute file picked up last would run alone at the end.
 */
export class LaneQueue {
  private main: TestFile[];
  private free: TestFile[];
  constructor(files: TestFile[], durations: Durations = {}) {
    const expected = (f: TestFile) => durations[f.name] ?? GUESS_SECONDS[rank(f.name)];
    const order = (a: TestFile, b: TestFile) => expected(b) - expected(a) || rank(a.name) - rank(b.name) || a.name.localeCompare(b.name);
    this.main = files.filter((f) => f.mainNetwork).sort(order);
    this.free = files.filter((f) => !f.mainNetwork).sort(order);
  }
  next(inMainNetwork: boolean): TestFile | null {
    if (inMainNetwork) return this.main.shift() ?? this.free.shift() ?? null;
    return this.free.shift() ?? null;
  }
  get left(): number {
    return this.main.length + this.free.length;
  }
}

/** test/durations.json's seconds per file; none (every file by its kind) when it is missing or not an object of numbers. */
export function readDurations(text: string | null): Durations {
  if (!text) return {};
  try {
    const raw = JSON.parse(text) as unknown;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return {};
    return Object.fromEntries(Object.entries(raw).filter(([, v]) => typeof v === 'number' && Number.isFinite(v) && v >= 0)) as Durations;
  } catch {
    return {};
  }
}

/**
 * How many lanes to run, and why no more: LNM_TEST_LANES (default 2); lanes beyond the first need
 * a network namespace, so root and `unshare` (util-linux) with `ip` (iproute2).
 */
export function laneCount(env: NodeJS.ProcessEnv, files: number): { lanes: number; note?: string } {
  const wanted = env.LNM_TEST_LANES === undefined ? 2 : Number(env.LNM_TEST_LANES);
  if (!Number.isInteger(wanted) || wanted < 1) return { lanes: 1, note: `LNM_TEST_LANES=${env.LNM_TEST_LANES} is not a whole number of at least 1: one lane` };
  const lanes = Math.min(wanted, Math.max(files, 1));
  if (lanes === 1) return { lanes };
  try {
    // What test/lane.ts does in its namespace: the loopback up, a veth pair (Fabric's peer needs a non-loopback IPv4 interface).
    execFileSync('unshare', ['--net', 'sh', '-c', 'ip link set lo up && ip link add lnmlane0 type veth peer name lnmlane1'], { stdio: 'pipe' });
  } catch (err) {
    const why = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim().split('\n')[0];
    return { lanes: 1, note: `one lane: a second one needs a network namespace of its own (root, unshare and ip), and \`unshare --net\` failed here: ${why}` };
  }
  return { lanes };
}
