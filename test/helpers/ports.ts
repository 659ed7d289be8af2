// Port blocks for tests that give a node its ports (ledgerX gRPC bases and their +100..
// monitoring ports). One helper instead of a copy per test file: the blocks are picked below the
// kernel's ephemeral range (32768-60999 here), where any process's outgoing connection could take
// a port between the check and the node's start, and a block handed out in this process is never
// handed out again (two bases picked before either node listens would otherwise overlap).
import net from 'node:net';

const LOW = 20000;
const HIGH = 32000;
const handedOut = new Set<number>();

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '0.0.0.0', () => s.close(() => resolve(true)));
  });
}

/** A base port p such that p + every offset is free now and was not handed out before. */
export async function freePortBlock(offsets: readonly number[]): Promise<number> {
  const span = Math.max(...offsets) + 1;
  for (let attempt = 0; attempt < 10_000; attempt++) {
    const p = LOW + Math.floor(Math.random() * (HIGH - LOW - span));
    const ports = offsets.map((o) => p + o);
    if (ports.some((q) => handedOut.has(q))) continue;
    if (!(await Promise.all(ports.map(listenable))).every(Boolean)) continue;
    for (const q of ports) handedOut.add(q);
    return p;
  }
  throw new Error(`no free block of ports for offsets ${offsets.join(',')} between ${LOW} and ${HIGH}`);
}

/** n consecutive gRPC ports and their +100.. monitoring ports (a ledgerX group: 4, a committer: 5). */
export const freeGrpcBase = (n: number): Promise<number> =>
  freePortBlock(Array.from({ length: n }, (_, i) => [i, 100 + i]).flat());
