// Kubernetes engine bench (issue 39): an anvil node's start to running (start() returned: pod
// Ready and its NodePort answering at the node address) on the test cluster, against the docker
// engine's start of the same image on this machine, in the same run; and one cluster check
// (version, nodes, a SelfSubjectAccessReview per verb, namespace, storage class). Needs the
// cluster of test/k8s/cluster.sh up and a Docker Engine with lnm-anvil:local. Prints one JSON object.
// `npx tsx bench/kubernetesStart.ts` (K8S_BENCH_STARTS, default 3)
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { createDockerEngine } from '../adapters/engines/dockerEngine.ts';
import { createKubernetesEngine } from '../adapters/engines/kubernetesEngine.ts';
import { probeKubernetesCluster } from '../adapters/engines/kubernetesCluster.ts';
import type { NodeEngine, NodeLaunchSpec } from '../domain/nodes/nodeEngine.ts';
import { kubernetesSkipReason, testCluster } from '../test/helpers/kubernetes.ts';

const STARTS = Number(process.env.K8S_BENCH_STARTS ?? 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (n: number) => Math.round(n);

function spec(nodeKey: string, port: number, host: string): NodeLaunchSpec {
  const args = ['--host', host, '--port', String(port), '--block-time', '1'];
  return { nodeKey, displayName: nodeKey, docker: { image: 'lnm-anvil:local', args }, files: [{ path: 'config/node.toml', content: `port = ${port}\n` }], ports: [port] };
}

async function timeStarts(engine: NodeEngine, host: string, base: number, tag: string, remove: (key: string) => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const s = spec(`bench${process.pid}-${tag}${i}`, base + i, host);
    await engine.prepare(s);
    const t0 = performance.now();
    await engine.start(s);
    times.push(performance.now() - t0);
    await remove(s.nodeKey);
  }
  return times;
}

async function main(): Promise<Record<string, unknown>> {
  const why = await kubernetesSkipReason();
  if (why) throw new Error(why);
  const cluster = testCluster()!;
  const t0 = performance.now();
  const seen = await probeKubernetesCluster(cluster.connection);
  const probeMs = performance.now() - t0;
  const k8sEngine = createKubernetesEngine({ cluster: cluster.connection, dataDir: '/var/lib/lnm-bench' });
  const base = 31000 + ((process.pid * 3) % 1000);
  const k8sTimes = await timeStarts(k8sEngine, '0.0.0.0', base, 'k', (k) => k8sEngine.remove(k, { deleteVolume: true }));
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lnm-k8s-bench-'));
  try {
    const docker = createDockerEngine({ dataDir, docker: new Docker() });
    const dockerTimes = await timeStarts(docker, '127.0.0.1', base + 100, 'd', (k) => docker.remove(k, { timeoutMs: 2000 }));
    return {
      kubernetesVersion: seen.version,
      clusterCheckMs: round(probeMs),
      startToRunningMs: { kubernetes: { median: round(median(k8sTimes)), all: k8sTimes.map(round) }, docker: { median: round(median(dockerTimes)), all: dockerTimes.map(round) } },
      loadAverage: os.loadavg()[0],
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (r) => {
    process.stdout.write(`${JSON.stringify(r)}\n`);
    process.exit(0);
  },
  (err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  },
);
