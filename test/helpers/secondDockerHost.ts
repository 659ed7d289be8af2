// A second Docker Engine for the hosts tests: dockerd (with its own managed containerd) in a
// network namespace this helper creates, reached from the host over a veth pair with its own
// /24 (10.213.N.0/24), listening on tcp://10.213.N.2:2376 with --tlsverify and certificates
// made here with openssl. Its data root, exec root, pid file and socket live under a temp
// directory. The main engine (/var/run/docker.sock) is only read from (docker save of images).
// stop() ends the engine (the "host goes away" of the tests), start() brings it back on the
// same data; remove() ends it and deletes the namespace, the veth and the directory.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onGlobalTeardown } from './globalTeardown.ts';

export interface HostPki {
  caCertificate: string;
  clientCertificate: string;
  clientKey: string;
}

export interface SecondDockerHost {
  /** tcp://10.213.N.2:2376 */
  url: string;
  /** 10.213.N.2: where the engine and its host-network containers are reached from the host. */
  address: string;
  /** 10.213.N.1: the host's side of the veth, how the namespace reaches the host. */
  gateway: string;
  /** The client's TLS material the engine trusts. */
  pki: HostPki;
  /** Client material from a CA the engine does not trust (the "wrong certificate" case). */
  foreignPki: HostPki;
  /** The docker CLI against this engine (its unix socket). */
  docker(args: string[], input?: Buffer): string;
  stop(): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
  log(): string;
}

/** Why the second engine cannot be started here, or undefined. */
export function secondHostMissing(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root (a network namespace and a dockerd need root)';
  for (const [bin, dirs] of [['dockerd', ['/usr/sbin', '/usr/bin']], ['ip', ['/usr/sbin', '/sbin', '/usr/bin']], ['nsenter', ['/usr/bin', '/bin']], ['openssl', ['/usr/bin']], ['docker', ['/usr/bin']]] as const) {
    if (!dirs.some((d) => existsSync(path.join(d, bin)))) return `${bin} is not installed`;
  }
  return undefined;
}

function run(cmd: string, args: string[], opts: { input?: Buffer; cwd?: string } = {}): string {
  return execFileSync(cmd, args, { input: opts.input, cwd: opts.cwd, stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 1 << 30 }).toString();
}

function makePki(dir: string, name: string, serverIp: string | null): HostPki & { serverCert?: string; serverKey?: string; caFile: string } {
  const f = (n: string) => path.join(dir, `${name}-${n}`);
  run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', f('ca-key.pem'), '-out', f('ca.pem'), '-days', '2', '-subj', `/CN=${name} test CA`]);
  const issue = (who: string, subject: string, ext: string) => {
    writeFileSync(f(`${who}.ext`), ext);
    run('openssl', ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', f(`${who}-key.pem`), '-out', f(`${who}.csr`), '-subj', subject]);
    run('openssl', ['x509', '-req', '-in', f(`${who}.csr`), '-CA', f('ca.pem'), '-CAkey', f('ca-key.pem'), '-CAcreateserial', '-out', f(`${who}.pem`), '-days', '2', '-extfile', f(`${who}.ext`)]);
  };
  issue('client', '/CN=lnm test client', 'extendedKeyUsage=clientAuth\n');
  if (serverIp) issue('server', `/CN=${serverIp}`, `subjectAltName=IP:${serverIp}\nextendedKeyUsage=serverAuth\n`);
  const read = (n: string) => readFileSync(f(n), 'utf8');
  return { caCertificate: read('ca.pem'), clientCertificate: read('client.pem'), clientKey: read('client-key.pem'), caFile: f('ca.pem'), ...(serverIp ? { serverCert: f('server.pem'), serverKey: f('server-key.pem') } : {}) };
}

async function waitFor(check: () => boolean, timeoutMs: number, what: string, log: () => string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} within ${timeoutMs / 1000} s; dockerd said:\n${log().slice(-3000)}`);
}

export async function startSecondDockerHost(opts: { images?: string[] } = {}): Promise<SecondDockerHost> {
  const n = 1 + (process.pid % 250);
  const ns = `lnm-host-${process.pid}`;
  const vethHost = `lnmh${process.pid}a`.slice(0, 15);
  const vethNs = `lnmh${process.pid}b`.slice(0, 15);
  const gateway = `10.213.${n}.1`;
  const address = `10.213.${n}.2`;
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-host-'));
  const sock = path.join(dir, 'docker.sock');
  const logFile = path.join(dir, 'dockerd.log');
  let child: ChildProcess | null = null;
  let removed = false;

  const cleanup = () => {
    if (removed) return;
    removed = true;
    if (child?.pid && child.exitCode === null) {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch { /* gone */ }
    }
    // Containers of the second engine run under its own containerd: kill what is left in the namespace.
    try {
      for (const pid of run('ip', ['netns', 'pids', ns]).split(/\s+/).filter(Boolean)) {
        try {
          process.kill(Number(pid), 'SIGKILL');
        } catch { /* gone */ }
      }
    } catch { /* no namespace */ }
    try {
      run('ip', ['link', 'del', vethHost]);
    } catch { /* gone with the namespace */ }
    try {
      run('ip', ['netns', 'del', ns]);
    } catch { /* never made */ }
    for (const m of run('sh', ['-c', `grep ' ${dir}' /proc/self/mounts | cut -d' ' -f2 | sort -r || true`]).split('\n').filter(Boolean)) {
      try {
        run('umount', ['-l', m]);
      } catch { /* not mounted */ }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  onGlobalTeardown(async () => cleanup());

  try {
    run('ip', ['netns', 'add', ns]);
    run('ip', ['link', 'add', vethHost, 'type', 'veth', 'peer', 'name', vethNs]);
    run('ip', ['link', 'set', vethNs, 'netns', ns]);
    run('ip', ['addr', 'add', `${gateway}/24`, 'dev', vethHost]);
    run('ip', ['link', 'set', vethHost, 'up']);
    run('ip', ['netns', 'exec', ns, 'ip', 'addr', 'add', `${address}/24`, 'dev', vethNs]);
    run('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', vethNs, 'up']);
    run('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);
    run('ip', ['netns', 'exec', ns, 'ip', 'route', 'add', 'default', 'via', gateway]);

    const pki = makePki(dir, 'host', address);
    const foreign = makePki(dir, 'foreign', null);
    writeFileSync(path.join(dir, 'daemon.json'), '{}\n');

    const launch = async () => {
      const out = await import('node:fs').then((fs) => fs.openSync(logFile, 'a'));
      // nsenter, not `ip netns exec`: that remounts /sys, and dockerd needs the host's cgroup mounts.
      child = spawn('nsenter', [`--net=/var/run/netns/${ns}`, 'dockerd',
        '--config-file', path.join(dir, 'daemon.json'),
        '-H', `unix://${sock}`, '-H', `tcp://${address}:2376`,
        '--tlsverify', '--tlscacert', pki.caFile, '--tlscert', pki.serverCert!, '--tlskey', pki.serverKey!,
        '--data-root', path.join(dir, 'root'), '--exec-root', path.join(dir, 'exec'), '--pidfile', path.join(dir, 'docker.pid'),
        '--storage-driver=vfs', '--iptables=false', '--ip6tables=false', '--bridge=none',
      ], { stdio: ['ignore', out, out] });
      const started = child;
      await waitFor(() => {
        if (started.exitCode !== null) throw new Error(`the second dockerd exited (${started.exitCode}): ${readFileSync(logFile, 'utf8').slice(-2000)}`);
        try {
          run('docker', ['-H', `unix://${sock}`, 'version', '--format', '{{.Server.Version}}']);
          return true;
        } catch {
          return false;
        }
      }, 30_000, 'the second dockerd did not answer', () => readFileSync(logFile, 'utf8'));
    };
    await launch();

    // Only the images the test needs, from the main engine into this one.
    for (const image of opts.images ?? []) {
      run('docker', ['-H', `unix://${sock}`, 'load'], { input: execFileSync('docker', ['save', image], { maxBuffer: 1 << 30 }) });
    }

    const host: SecondDockerHost = {
      url: `tcp://${address}:2376`,
      address,
      gateway,
      pki: { caCertificate: pki.caCertificate, clientCertificate: pki.clientCertificate, clientKey: pki.clientKey },
      foreignPki: { caCertificate: foreign.caCertificate, clientCertificate: foreign.clientCertificate, clientKey: foreign.clientKey },
      docker: (args, input) => run('docker', ['-H', `unix://${sock}`, ...args], { input }),
      async stop() {
        const c = child as ChildProcess | null;
        if (!c || c.exitCode !== null) return;
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
        if (c.exitCode === null) c.kill('SIGKILL');
      },
      start: launch,
      async remove() {
        await host.stop().catch(() => undefined);
        cleanup();
      },
      log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    };
    return host;
  } catch (err) {
    cleanup();
    throw err;
  }
}
