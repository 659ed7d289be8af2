// anvil prints the name of every JSON-RPC method it serves, one line each, and the service's own
// health probe and live reads ask every running node for eth_blockNumber (and net_peerCount,
// which anvil does not print) every few seconds: left in, a node's log is mostly the service's
// polling. anvil has no flag that drops the method lines and keeps the mined blocks (both are
// its `node::user` log; --quiet drops everything), so the log reader drops the lines of the
// methods the service polls with, and the blank line each left behind. Calls of those methods
// by other clients are dropped alike; every other method's line stays.
import type { LogFollower } from '../../domain/nodes/nodeEngine.ts';

/** The methods the service itself polls an anvil node with (jsonRpc.ts probeEvmNode). */
export const SERVICE_POLLED_METHODS: ReadonlySet<string> = new Set(['eth_blockNumber', 'net_peerCount']);

/** A line filter keeping state across calls: drops polled-method lines and repeated blank lines. */
export function anvilLogFilter(): (line: string) => boolean {
  let lastBlank = false;
  return (line) => {
    const trimmed = line.trim();
    if (SERVICE_POLLED_METHODS.has(trimmed)) return false;
    const blank = trimmed === '';
    if (blank && lastBlank) return false;
    lastBlank = blank;
    return true;
  };
}

/** The reader asks for this many raw lines to give `tail` lines of the node's own output. */
const rawTail = (tail: number) => Math.min(tail * 8, 80_000);

export function anvilLogs(lines: string[], tail: number): string[] {
  const keep = anvilLogFilter();
  return lines.filter(keep).slice(-tail);
}

export async function followAnvilLogs(
  follow: (onLine: (line: string) => void, rawTailLines: number) => Promise<LogFollower>,
  onLine: (line: string) => void,
  tail: number,
): Promise<LogFollower> {
  const keep = anvilLogFilter();
  // The existing lines come before follow resolves: keep the last `tail` of them, then pass on.
  let initial: string[] | null = [];
  const follower = await follow((line) => {
    if (!keep(line)) return;
    if (initial) initial.push(line);
    else onLine(line);
  }, rawTail(tail));
  const first = initial.slice(-tail);
  initial = null;
  for (const line of first) onLine(line);
  return follower;
}

export { rawTail as anvilRawTail };
