// Debian's nginx as the load balancer in front of several `lnm serve` instances (issue 25), for
// the several-instance tests and bench/instances.ts: one configuration, written into a temp dir
// of its own (pid, logs, temp paths there; never the system nginx), run as a child process.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../adapters/postgres/embeddedPostgres.ts';
import { call, type TestServer } from './server.ts';
import { onGlobalTeardown } from './globalTeardown.ts';

export const nginxBin = ['nginx', '/usr/sbin/nginx'].find((p) => spawnSync(p, ['-v']).status === 0);

export interface Nginx {
  /** The service's base URL through nginx (http://127.0.0.1:<port>). */
  url: string;
  /** Stops nginx (SIGQUIT, waits for it) and removes its directory. */
  stop(): Promise<void>;
}

/** nginx in front of the instances on `ports`; resolves once /health answers through it. */
export async function startNginx(ports: number[]): Promise<Nginx> {
  if (!nginxBin) throw new Error('no nginx on PATH or in /usr/sbin');
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-nginx-'));
  const port = await freePort();
  writeFileSync(
    path.join(dir, 'nginx.conf'),
    `daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream lnm {
${ports.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=10s;`).join('\n')}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $host;
    proxy_connect_timeout 1s;
    proxy_read_timeout 30s;
    proxy_next_upstream_tries 3;
    location / {
      proxy_pass http://lnm;
      # A GET cut off by an error or refused by a draining instance (503) goes to the next one.
      proxy_next_upstream error timeout http_503;
      proxy_intercept_errors on;
      error_page 503 = @refused;
    }
    # A POST that a draining instance refused (503 with Retry-After) was not run: it is sent once
    # more, to the others. Only on a 503: a POST cut off by an error (kill -9) may have run and is
    # not resent (its client sees nginx's 502).
    location @refused {
      proxy_pass http://lnm;
      proxy_next_upstream http_503 non_idempotent;
    }
  }
}
`,
  );
  let out = '';
  const child: ChildProcess = spawn(nginxBin, ['-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  onGlobalTeardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGQUIT');
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      if ((await call(`${url}/api/v1`, 'GET', '/health')).status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not start: ${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, stop };
}

/** The indexes of the instances whose GET /health says they hold one piece of the background work (the webhooks, sagas/workPieces.ts). */
export async function workHolders(list: TestServer[]): Promise<number[]> {
  const hs = await Promise.all(
    list.map(async (s) => {
      try {
        const r = await call(s.api, 'GET', '/health');
        return r.status === 200 ? (r.json.instance as { work: string[] }) : null;
      } catch {
        return null;
      }
    }),
  );
  return hs.flatMap((h, i) => (h?.work.includes('work:webhooks') ? [i] : []));
}
