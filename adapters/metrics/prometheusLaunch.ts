// The managed Prometheus as a node engine runs it: its directory <dataDir>/nodes/metrics-prometheus/
// holds prometheus.yml, the scrape token (0600), the file-based service discovery files under
// targets/ and the TSDB under data/ (kept by stop, removed by undeploy). The docker engine binds
// the directory at the same path, so one config serves both engines.
import path from 'node:path';
import YAML from 'yaml';
import type { NodeLaunchSpec } from '../../domain/nodes/nodeEngine.ts';
import type { MetricsStackSettings } from '../../domain/metrics/metricsStack.ts';

export const PROMETHEUS_KEY = 'metrics-prometheus';
export const SCRAPE_TOKEN_FILE = 'scrape-token';
/** Nodes that serve /metrics themselves (besu, Fabric operations). */
export const NODE_TARGETS_FILE = 'targets/nodes.json';
/** Nodes the service exports (anvil, besu without metrics): scraped at the service's /metrics/nodes/{id}. */
export const EXPORTED_TARGETS_FILE = 'targets/exported.json';

export function prometheusConfig(dir: string, s: MetricsStackSettings, serviceAddress: string): string {
  const auth = { type: 'Bearer', credentials_file: path.join(dir, SCRAPE_TOKEN_FILE) };
  const fileSd = (file: string) => [{ files: [path.join(dir, file)], refresh_interval: '30s' }];
  const timeout = `${Math.min(10, s.scrapeIntervalSeconds)}s`;
  return YAML.stringify({
    global: { scrape_interval: `${s.scrapeIntervalSeconds}s`, scrape_timeout: timeout, evaluation_interval: `${s.scrapeIntervalSeconds}s` },
    scrape_configs: [
      { job_name: 'lnm', metrics_path: '/metrics', authorization: auth, static_configs: [{ targets: [serviceAddress], labels: { instance: 'lnm' } }] },
      { job_name: 'lnm-node-exporter', authorization: auth, file_sd_configs: fileSd(EXPORTED_TARGETS_FILE) },
      { job_name: 'nodes', file_sd_configs: fileSd(NODE_TARGETS_FILE) },
    ],
  });
}

export function prometheusLaunchSpec(dir: string, s: MetricsStackSettings, binary: string | null): NodeLaunchSpec {
  const args = [
    `--config.file=${path.join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${path.join(dir, 'data')}`,
    `--storage.tsdb.retention.time=${s.retentionDays}d`,
    `--web.listen-address=127.0.0.1:${s.port}`,
  ];
  return {
    nodeKey: PROMETHEUS_KEY,
    displayName: 'the managed Prometheus',
    ...(binary ? { process: { command: binary, args } } : {}),
    docker: { image: 'prometheus', args },
    files: [],
    ports: [s.port],
  };
}
