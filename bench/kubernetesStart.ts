// Kubernetes engine bench (issue 39), a child bench of `npm run bench` (`--only=kubernetes`):
//  (a) an anvil node's start to running (start() returned: pod Ready and its NodePort answering at
//      the node address) on the test cluster, against the docker engine's start of the same image
//      on this machine, in the same run (K8S_BENCH_STARTS each, default 3; the docker half is left
//      out, saying why, without a Docker Engine);
//      The start's reads for the deployment id, as a share of the start's median, two ways in the
//      same run: as the engine made them before the API's check's reads were kept for the start
//      (the node's five objects, then its claim and Service again; a replica with the same calls),
//      and as an API start makes them now (the check, assertNotOthers, timed: its five at once,
//      which the start then reuses instead of reading again), both just before each of those starts;
//  (b) one cluster check (version, nodes, a SelfSubjectAccessReview per verb, namespace, storage class);
//  (c) nodes watched per cluster at a 10 s probe interval: K8S_BENCH_WATCHED anvil nodes (default
//      4: the test cluster has 24 hostPath volumes, shared) running on the cluster, each probed every
//      10 s as the service's health saga does it (the engine's status: StatefulSet and pod read from
//      the API server; then the node's own JSON-RPC at its NodePort); the CPU of this process over
//      three intervals, less its CPU over three idle intervals with the same nodes running, per
//      watched node; and how many nodes one core would watch at that cost. This is the engine's
//      cost in the bench's process: nodes are not placed on a cluster through the service yet.
// Needs the cluster of test/k8s/cluster.sh up (a skipped row saying why otherwise) and
// lnm-anvil:local on it. Prints one JSON object ({rows}) on stdout.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { createDockerEngine } from '../adapters/engines/dockerEngine.ts';
import * as k8s from '@kubernetes/client-node';
import { createKubernetesEngine, kubeConfigOf, type KubernetesNodeEngine } from '../adapters/engines/kubernetesEngine.ts';
import { probeKubernetesCluster } from '../adapters/engines/kubernetesCluster.ts';
import type { NodeEngine, NodeLaunchSpec } from '../domain/nodes/nodeEngine.ts';
import { kubernetesSkipReason, testCluster } from '../test/helpers/kubernetes.ts';

const STARTS = Number(process.env.K8S_BENCH_STARTS ?? 3);
const WATCHED = Number(process.env.K8S_BENCH_WATCHED ?? 4);
const INTERVAL_MS = 10_000;
const WINDOW_INTERVALS = 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (n: number) => Math.round(n);

function spec(nodeKey: string, port: number, host: string): NodeLaunchSpec {
  const args = ['--host', host, '--port', String(port), '--block-time', '1'];
  return { nodeKey, displayName: nodeKey, docker: { image: 'lnm-anvil:local', args }, files: [{ path: 'config/node.toml', content: `port = ${port}\n` }], ports: [port] };
}

async function timeStarts(engine: NodeEngine, host: string, base: number, tag: string, remove: (key: string) => Promise<void>, before?: (nodeKey: string) => Promise<void>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const s = spec(`bench${process.pid}-${tag}${i}`, base + i, host);
    await engine.prepare(s);
    await before?.(s.nodeKey);
    const t0 = performance.now();
    await engine.start(s);
    times.push(performance.now() - t0);
    await remove(s.nodeKey);
  }
  return times;
}

interface Row {
  metric: string;
  value: number | null;
  unit: string;
  note?: string;
}

async function dockerSkipReason(): Promise<string | undefined> {
  try {
    await new Docker().ping();
  } catch (err) {
    return `no Docker Engine answers (${(err as Error).message}): run .ci/docker.sh`;
  }
  const image = await new Docker().getImage('lnm-anvil:local').inspect().catch(() => null);
  return image ? undefined : 'lnm-anvil:local is not in Docker: run .ci/docker.sh';
}

const rpcBlock = async (host: string, port: number) => {
  const r = await fetch(`http://${host}:${port}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }), signal: AbortSignal.timeout(5000) });
  return Number.parseInt(((await r.json()) as { result: string }).result, 16);
};
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The reads a start makes for the deployment id (kubernetesEngine.ts): the node's five objects read
 * at once (nodeObjects: another deployment's object is refused before anything is made), then its
 * claim and its Service read again before they are labelled when unlabelled (makeAndAwait). Made
 * here with the same client and calls, timed: the engine does not time its own calls.
 */
function deploymentReads(connection: Parameters<typeof kubeConfigOf>[0], names: KubernetesNodeEngine['objectNames']) {
  const kc = kubeConfigOf(connection);
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const namespace = connection.namespace;
  const read = (p: Promise<unknown>) => p.then(() => undefined, () => undefined);
  return async (nodeKey: string): Promise<number> => {
    const n = names(nodeKey);
    const t0 = performance.now();
    await Promise.all([
      read(apps.readNamespacedStatefulSet({ name: n.statefulSet, namespace })),
      read(core.readNamespacedService({ name: n.service, namespace })),
      read(core.readNamespacedSecret({ name: n.secret, namespace })),
      read(core.readNamespacedConfigMap({ name: n.configMap, namespace })),
      read(core.readNamespacedPersistentVolumeClaim({ name: n.claim, namespace })),
    ]);
    await read(core.readNamespacedPersistentVolumeClaim({ name: n.claim, namespace }));
    await read(core.readNamespacedService({ name: n.service, namespace }));
    return performance.now() - t0;
  };
}

/** (c): WATCHED nodes on the cluster, idle CPU then probing CPU over the same time, per node. */
async function watchedNodes(engine: KubernetesNodeEngine, host: string, base: number): Promise<{ cpuMsPerNodeProbe: number; cpuPercentPerNode: number; nodesPerCore: number; probeMs: number[]; idleCpuMs: number; probingCpuMs: number }> {
  const specs = Array.from({ length: WATCHED }, (_, i) => spec(`bench${process.pid}-w${i}`, base + i, '0.0.0.0'));
  try {
    for (const s of specs) {
      await engine.prepare(s);
      await engine.start(s);
    }
    const windowMs = INTERVAL_MS * WINDOW_INTERVALS;
    let c0 = cpuMs();
    await sleep(windowMs);
    const idleCpuMs = cpuMs() - c0;
    const probeMs: number[] = [];
    c0 = cpuMs();
    for (let round = 0; round < WINDOW_INTERVALS; round++) {
      const due = performance.now() + INTERVAL_MS;
      // Spread over the interval as the health saga's timers are (one per node, each its own due time).
      for (let i = 0; i < specs.length; i++) {
        const t0 = performance.now();
        const st = await engine.status(specs[i]!.nodeKey);
        if (st.state !== 'running') throw new Error(`watched node ${specs[i]!.nodeKey} is ${st.state}: ${st.reason ?? ''}`);
        await rpcBlock(host, specs[i]!.ports[0]!);
        probeMs.push(performance.now() - t0);
        await sleep(Math.max(0, INTERVAL_MS / specs.length - (performance.now() - t0)));
      }
      await sleep(Math.max(0, due - performance.now()));
    }
    const probingCpuMs = cpuMs() - c0;
    const perProbe = Math.max(0, probingCpuMs - idleCpuMs) / (WATCHED * WINDOW_INTERVALS);
    return {
      cpuMsPerNodeProbe: Math.round(perProbe * 100) / 100,
      cpuPercentPerNode: Math.round((perProbe / INTERVAL_MS) * 100 * 1000) / 1000,
      nodesPerCore: perProbe > 0 ? Math.floor(INTERVAL_MS / perProbe) : Number.POSITIVE_INFINITY,
      probeMs, idleCpuMs: round(idleCpuMs), probingCpuMs: round(probingCpuMs),
    };
  } finally {
    for (const s of specs) await engine.remove(s.nodeKey, { deleteVolume: true }).catch(() => undefined);
  }
}

async function main(): Promise<{ rows: Row[]; details: Record<string, unknown> }> {
  const why = await kubernetesSkipReason();
  if (why) {
    const skipped = (metric: string, unit: string): Row => ({ metric, value: null, unit, note: `skipped: ${why}` });
    return { rows: [skipped('Anvil node start to running on Kubernetes (pod Ready, NodePort answering), median', 'ms'), skipped('Kubernetes engine: CPU per watched node at a 10 s probe interval (idle subtracted)', '%')], details: { skipped: why } };
  }
  const cluster = testCluster()!;
  const t0 = performance.now();
  const seen = await probeKubernetesCluster(cluster.connection);
  const probeMs = performance.now() - t0;
  // With a deployment id, as the service runs it (its objects labelled lnm.deployment).
  const k8sEngine = createKubernetesEngine({ cluster: cluster.connection, dataDir: '/var/lib/lnm-bench', deploymentId: `bench-${process.pid}` });
  const base = 31000 + ((process.pid * 3) % 1000);
  const reads = deploymentReads(cluster.connection, k8sEngine.objectNames);
  const readTimes: number[] = [];
  const checkTimes: number[] = [];
  const k8sTimes = await timeStarts(k8sEngine, '0.0.0.0', base, 'k', (k) => k8sEngine.remove(k, { deleteVolume: true }), async (k) => {
    readTimes.push(await reads(k));
    // Last: the reads it keeps are those the start then goes from (within CHECK_REUSE_MS).
    const t0 = performance.now();
    await k8sEngine.assertNotOthers(k, 'start');
    checkTimes.push(performance.now() - t0);
  });
  const noDocker = await dockerSkipReason();
  let dockerTimes: number[] = [];
  if (!noDocker) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lnm-k8s-bench-'));
    try {
      const docker = createDockerEngine({ dataDir, docker: new Docker() });
      dockerTimes = await timeStarts(docker, '127.0.0.1', base + 100, 'd', (k) => docker.remove(k, { timeoutMs: 2000 }));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const watch = await watchedNodes(k8sEngine, cluster.connection.nodeAddress, base + 200);
  const k8sMedian = round(median(k8sTimes));
  const rows: Row[] = [
    { metric: `Anvil node start to running on Kubernetes ${seen.version} (pod Ready, NodePort answering), median of ${STARTS}`, value: k8sMedian, unit: 'ms', note: `runs ${k8sTimes.map(round).join(', ')} ms` },
    noDocker
      ? { metric: 'The same anvil node start to running under the docker engine, same run, median', value: null, unit: 'ms', note: `skipped: ${noDocker}` }
      : { metric: `The same anvil node start to running under the docker engine, same run, median of ${STARTS}`, value: round(median(dockerTimes)), unit: 'ms', note: `runs ${dockerTimes.map(round).join(', ')} ms; Kubernetes / docker ${(k8sMedian / median(dockerTimes)).toFixed(2)}x` },
    {
      metric: `The start's deployment-id reads as the engine made them before (the node's five objects at once, then its claim and Service again; a replica), against the start's median, same run, median of ${STARTS}`,
      value: Math.round((median(readTimes) / median(k8sTimes)) * 1000) / 10,
      unit: '%',
      note: `reads ${readTimes.map(round).join(', ')} ms (median ${round(median(readTimes))} ms) against a start of ${k8sMedian} ms`,
    },
    {
      metric: `An API start's deployment-id reads now (the check's five objects at once, assertNotOthers, kept for the start, which reads none again), against the start's median, same run, median of ${STARTS}`,
      value: Math.round((median(checkTimes) / median(k8sTimes)) * 1000) / 10,
      unit: '%',
      note: `check ${checkTimes.map(round).join(', ')} ms (median ${round(median(checkTimes))} ms) against a start of ${k8sMedian} ms`,
    },
    { metric: 'Kubernetes cluster check (version, nodes, 22 access reviews, namespace, storage class)', value: round(probeMs), unit: 'ms' },
    {
      metric: `Kubernetes engine: CPU per watched node at a 10 s probe interval (pod status from the API server + the node's JSON-RPC; ${WATCHED} anvil nodes, ${WINDOW_INTERVALS} intervals, idle subtracted)`,
      value: watch.cpuPercentPerNode, unit: '%',
      note: `${watch.cpuMsPerNodeProbe} ms CPU per node probe (${watch.probingCpuMs} ms probing vs ${watch.idleCpuMs} ms idle); probe p50 ${round(median(watch.probeMs))} ms`,
    },
    { metric: 'Kubernetes engine: nodes one core watches at a 10 s probe interval (derived: interval / CPU per node probe)', value: Number.isFinite(watch.nodesPerCore) ? watch.nodesPerCore : null, unit: 'nodes' },
  ];
  return { rows, details: { kubernetesVersion: seen.version, startToRunningMs: { kubernetes: k8sTimes.map(round), docker: dockerTimes.map(round) }, deploymentReadsMs: readTimes.map(round), watch, loadAverage: os.loadavg()[0] } };
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
