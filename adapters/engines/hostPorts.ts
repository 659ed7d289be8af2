// Host port checks shared by both engines (docker nodes use the host network).
import net from 'node:net';

/** True when nothing may bind the port: someone listens on it on some address. */
function portTaken(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'EADDRINUSE' || err.code === 'EACCES'));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(false)));
  });
}

/** The ports of `ports` that are already in use on this host. */
export async function portsInUse(ports: number[]): Promise<number[]> {
  const taken: number[] = [];
  for (const port of ports) {
    // 0.0.0.0 conflicts with a listener on any IPv4 address, 127.0.0.1 included.
    if ((await portTaken(port, '0.0.0.0')) || (await portTaken(port, '127.0.0.1'))) taken.push(port);
  }
  return taken;
}

/** A port free on 127.0.0.1 now, chosen by the system. */
export function freeLocalPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function acceptsConnections(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    socket.setTimeout(500);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Waits until the node is up or gone: 'exited' as soon as `alive()` says no; 'up' once it has
 * stayed alive for `graceMs` and every port accepts connections; 'slow' when it stayed alive
 * for `readyTimeoutMs` but its ports never opened (some clients take long to open them).
 */
export async function awaitStartup(opts: { ports: number[]; alive: () => Promise<boolean>; graceMs: number; readyTimeoutMs: number; /** where the ports are (default 127.0.0.1) */ host?: string }): Promise<'up' | 'exited' | 'slow'> {
  const began = Date.now();
  for (;;) {
    if (!(await opts.alive())) return 'exited';
    const elapsed = Date.now() - began;
    if (elapsed >= opts.graceMs) {
      const open = await Promise.all(opts.ports.map((p) => acceptsConnections(p, opts.host)));
      if (open.every(Boolean)) return (await opts.alive()) ? 'up' : 'exited';
      if (elapsed >= opts.readyTimeoutMs) return 'slow';
    }
    await sleep(100);
  }
}
