// The managed metrics stack: Debian's prometheus under the process engine, or the configured
// image (LNM_IMAGE_PROMETHEUS) under the docker engine, run like a node (its own directory,
// config written by prepare). Implements domain/metrics/metricsStackPorts.ts with the node
// exporter and the scrape token check, which the composition root adds.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { access, constants, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import Docker from 'dockerode';
import type { NodeEngineKind } from '../../domain/nodes/nodeEngine.ts';
import type { MetricsStackDeps } from '../../domain/metrics/metricsStackPorts.ts';
import type { MetricsStackSettings } from '../../domain/metrics/metricsStack.ts';
import { METRICS_STACK_DEFAULTS } from '../../domain/metrics/metricsStack.ts';
import { localEngines } from '../engines/localEngines.ts';
import { nodeDirectory } from '../engines/nodeDirectory.ts';
import { dockerPrefixFromEnv, nodeImagesFromEnv } from '../engines/nodeImages.ts';
import { portsInUse } from '../engines/hostPorts.ts';
import { PROMETHEUS_KEY, SCRAPE_TOKEN_FILE, prometheusConfig, prometheusLaunchSpec } from './prometheusLaunch.ts';
import { writeTargets, type ScrapeNode } from './prometheusTargets.ts';
import { prometheusApi } from './prometheusApi.ts';

export interface MetricsStackRuntimeOptions {
  dataDir: string;
  defaultEngine: NodeEngineKind;
  /** LNM_PROMETHEUS_BIN, else `prometheus` on PATH. */
  binary: string | null;
  env: Record<string, string | undefined>;
  /** host:port where Prometheus reaches this service (known once it listens). */
  serviceAddress: () => string;
  /** The managed nodes to scrape, and the host ports they hold. */
  scrapeNodes: () => Promise<ScrapeNode[]>;
  nodePorts: () => Promise<Set<number>>;
}

/** The engine side; exportNode and the ownership (owner, reported, alone) are the composition root's. */
type Runtime = Omit<MetricsStackDeps, 'exportNode' | 'owner' | 'reported' | 'alone'>;

async function executable(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile() && (await access(file, constants.X_OK).then(() => true));
  } catch {
    return false;
  }
}

async function onPath(binary: string, env: Record<string, string | undefined>): Promise<string | null> {
  for (const dir of (env.PATH ?? '').split(':').filter(Boolean)) if (await executable(path.join(dir, binary))) return path.join(dir, binary);
  return null;
}

export function createMetricsStackRuntime(o: MetricsStackRuntimeOptions): Runtime {
  const dir = nodeDirectory(o.dataDir, PROMETHEUS_KEY);
  const images = nodeImagesFromEnv(o.env);
  const { of: engineOf } = localEngines({ dataDir: o.dataDir, images, namePrefix: dockerPrefixFromEnv(o.env), readyTimeoutMs: 30_000 });
  const binary = () => (o.binary ? executable(o.binary).then((ok) => (ok ? o.binary : null)) : onPath('prometheus', o.env));
  const api = (s: MetricsStackSettings) => prometheusApi(`http://127.0.0.1:${s.port}`);
  let chain: Promise<unknown> = Promise.resolve();
  /** Deploy, start, stop and remove one at a time. */
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = chain.then(fn, fn);
    chain = run.catch(() => undefined);
    return run;
  };

  async function spec(s: MetricsStackSettings, withToken: boolean) {
    const base = prometheusLaunchSpec(dir, s, await binary());
    const files = [{ path: 'prometheus.yml', content: prometheusConfig(dir, s, o.serviceAddress()) }];
    if (withToken) files.push({ path: SCRAPE_TOKEN_FILE, content: randomBytes(32).toString('base64url'), secret: true } as (typeof files)[number]);
    return { ...base, files };
  }

  async function syncTargets(): Promise<boolean> {
    try {
      await stat(path.join(dir, 'prometheus.yml'));
    } catch {
      return false; // not deployed
    }
    return writeTargets(dir, await o.scrapeNodes(), o.serviceAddress());
  }

  async function run(s: MetricsStackSettings, withToken: boolean): Promise<void> {
    const engine = engineOf(s.engine);
    const launch = await spec(s, withToken);
    await engine.prepare(launch);
    await syncTargets();
    await engine.start(launch);
  }

  return {
    defaultEngine: o.defaultEngine,
    async scrapeTokenMatches(token) {
      const stored = await readFile(path.join(dir, SCRAPE_TOKEN_FILE)).catch(() => null);
      const given = Buffer.from(token);
      return stored !== null && stored.length === given.length && timingSafeEqual(stored, given);
    },
    async available(kind) {
      if (kind === 'process') {
        const found = await binary();
        const what = o.binary ?? 'prometheus (on PATH)';
        return found ? { ok: true, what: found } : { ok: false, what, reason: `the process engine runs the prometheus program and ${o.binary ? `${o.binary} is not an executable file` : 'none is on the PATH'}: install Debian's package (apt-get install prometheus) or set LNM_PROMETHEUS_BIN` };
      }
      const image = images.prometheus;
      const engine = await engineOf('docker').available();
      if (!engine.ok) return { ok: false, what: image, reason: engine.reason };
      try {
        await new Docker().getImage(image).inspect();
        return { ok: true, what: image };
      } catch {
        return { ok: false, what: image, reason: `the image ${image} is not on this Docker host: docker pull ${image}, or set LNM_IMAGE_PROMETHEUS` };
      }
    },
    async freePort() {
      const held = await o.nodePorts();
      for (let p: number = METRICS_STACK_DEFAULTS.port; p < METRICS_STACK_DEFAULTS.port + 200; p++) {
        if (!held.has(p) && !(await portsInUse([p])).length) return p;
      }
      return METRICS_STACK_DEFAULTS.port;
    },
    deploy: (s) =>
      exclusive(async () => {
        // Leftovers of an attempt that never recorded its deploy (the service died midway).
        await engineOf(s.engine).remove(PROMETHEUS_KEY);
        try {
          await run(s, true);
        } catch (err) {
          await engineOf(s.engine).remove(PROMETHEUS_KEY).catch(() => undefined);
          throw err;
        }
      }),
    start: (s) => exclusive(() => run(s, false)),
    stop: (s) => exclusive(() => engineOf(s.engine).stop(PROMETHEUS_KEY, { timeoutMs: 15_000 })),
    remove: (s) => exclusive(() => engineOf(s.engine).remove(PROMETHEUS_KEY, { timeoutMs: 15_000 })),
    status: (s) => engineOf(s.engine).status(PROMETHEUS_KEY),
    syncTargets,
    url: (s) => `http://127.0.0.1:${s.port}`,
    version: (s) => api(s).version(),
    targets: (s) => api(s).targets(),
    scalar: (s, q) => api(s).scalar(q),
    range: (s, q, start, end, step) => api(s).range(q, start, end, step),
  };
}
