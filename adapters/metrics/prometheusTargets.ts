// The file-based service discovery of the managed Prometheus: one target group per managed
// node, rewritten (atomically, only when it changed) as nodes come and go; Prometheus notices
// the files itself, without a restart or a reload.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EXPORTED_TARGETS_FILE, NODE_TARGETS_FILE } from './prometheusLaunch.ts';
import { GETH_METRICS_PATH } from '../../domain/evm/evmClient.ts';

/** A managed node as the scrape configuration needs it. */
export interface ScrapeNode {
  id: number;
  name: string;
  platform: string;
  nodeType: string;
  client: string;
  networkId: number | null;
  /** host:port serving /metrics (besu metrics port, Fabric operations port); null: the service exports it. */
  metricsAddress: string | null;
}

export interface TargetGroup {
  targets: string[];
  labels: Record<string, string>;
}

export function targetGroups(nodes: ScrapeNode[], serviceAddress: string): { direct: TargetGroup[]; exported: TargetGroup[] } {
  const labels = (n: ScrapeNode) => ({
    node_id: String(n.id),
    node_name: n.name,
    platform: n.platform,
    node_type: n.nodeType,
    client: n.client,
    ...(n.networkId !== null ? { network_id: String(n.networkId) } : {}),
  });
  return {
    // geth serves Prometheus metrics at /debug/metrics/prometheus, not /metrics.
    direct: nodes.filter((n) => n.metricsAddress).map((n) => ({ targets: [n.metricsAddress!], labels: { ...labels(n), ...(n.client === 'geth' ? { __metrics_path__: GETH_METRICS_PATH } : {}) } })),
    exported: nodes
      .filter((n) => !n.metricsAddress)
      .map((n) => ({ targets: [serviceAddress], labels: { ...labels(n), instance: `node-${n.id}`, __metrics_path__: `/metrics/nodes/${n.id}` } })),
  };
}

async function writeIfChanged(file: string, content: string): Promise<boolean> {
  const current = await readFile(file, 'utf8').catch(() => null);
  if (current === content) return false;
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(`${file}.tmp`, content, { mode: 0o600 });
  await rename(`${file}.tmp`, file);
  return true;
}

/** Writes both discovery files into the Prometheus directory; true when either changed. */
export async function writeTargets(dir: string, nodes: ScrapeNode[], serviceAddress: string): Promise<boolean> {
  const groups = targetGroups(nodes, serviceAddress);
  const a = await writeIfChanged(path.join(dir, NODE_TARGETS_FILE), JSON.stringify(groups.direct, null, 2) + '\n');
  const b = await writeIfChanged(path.join(dir, EXPORTED_TARGETS_FILE), JSON.stringify(groups.exported, null, 2) + '\n');
  return a || b;
}

/** Where a node serves metrics itself, from its record: Fabric's operations port, a ledgerX role's monitoring port, besu's and geth's metrics port; null otherwise (anvil, bootnodes, ledgerX groups). */
export function metricsAddressOf(node: { platform: string; client: string; config: Record<string, unknown> }): string | null {
  const c = node.config;
  // A node on a node host (docs/hosts.md) is scraped at that host's address.
  const onHost = typeof c.externalIp === 'string' ? c.externalIp : null;
  if (node.platform === 'CONSORTIUM' && typeof c.operationsPort === 'number') {
    const host = onHost ?? (typeof c.listenAddress === 'string' && c.listenAddress !== '0.0.0.0' ? c.listenAddress : '127.0.0.1');
    return `${host}:${c.operationsPort}`;
  }
  // A ledgerX role (arma role or committer service) serves /metrics on its monitoring port; its group node serves none.
  if (node.platform === 'LEDGERX' && typeof c.monitoringPort === 'number' && c.monitoringPort > 0) return `127.0.0.1:${c.monitoringPort}`;
  if (node.platform === 'EVM' && (node.client === 'besu' || node.client === 'geth') && typeof c.metricsPort === 'number' && !c.isBootnode) return `${onHost ?? '127.0.0.1'}:${c.metricsPort}`;
  return null;
}
