// The managed metrics stack under the docker engine: the image of LNM_IMAGE_PROMETHEUS
// (.ci/docker.sh builds lnm-prometheus:local from Debian's prometheus) scrapes the service and an
// anvil node container; stop keeps its data, undeploy removes the container. Skipped, saying
// why, where no Docker Engine runs containers or the image is missing.
import { test as uvuTest } from 'uvu';
import * as assert from 'uvu/assert';
import Docker from 'dockerode';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { adminAuth, call, startServer, type TestServer } from '../helpers/server.ts';
import { dockerSkipReason, imagesMissing } from '../helpers/dockerAvailability.ts';
import { requiresAll } from '../helpers/requirements.ts';
import { freePort } from '../../adapters/postgres/embeddedPostgres.ts';
import { until } from './evm/evmLifecycle.ts';

const docker = new Docker();
const image = process.env.LNM_PROMETHEUS_IMAGE ?? 'lnm-prometheus:local';
let s: TestServer | undefined;
const test = requiresAll(uvuTest, ['docker', await dockerSkipReason()], ['docker', await imagesMissing([image])]);
const auth = adminAuth();
const api = (method: string, p: string, body?: unknown) => call(s!.api, method, p, { headers: auth, body });

test.before(async () => {
  s = await startServer({ env: { LNM_NODE_ENGINE: 'docker', LNM_IMAGE_PROMETHEUS: image } });
});

test.after(async () => {
  await s?.stop();
  if (s) for (const c of await docker.listContainers({ all: true, filters: { label: [`lnm.data-dir=${s.dataDir}`] } })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
});

test('Prometheus in a container scrapes the service and an anvil container; stop, start and undeploy', async () => {
  let r = await api('POST', '/networks', { name: 'metrics-docker', type: 'evm', genesis: { chain_id: 31903, consensus: 'QBFT', block_time: 1 } });
  assert.is(r.status, 201, r.text);
  r = await api('POST', `/networks/${r.json.id}/start`);
  const nodeId = r.json.nodes[0].id;
  assert.is(r.json.nodes[0].status, 'running', r.text);

  assert.is((await api('GET', '/metrics/defaults')).json.engine, 'docker');
  r = await api('POST', '/metrics/deploy', { port: await freePort(), scrapeIntervalSeconds: 5 });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.settings.engine, 'docker');
  assert.match(r.json.version, /^2\./);
  const first = await until('the anvil container to be scraped', async () => {
    const n = await api('GET', `/metrics/node/${nodeId}`);
    return n.status === 200 && n.json.blockHeight !== null && n.json;
  }, 90_000);
  await until('the service to be scraped', async () => {
    const st = (await api('GET', '/metrics/status')).json;
    return st.targets.up >= 2 && st;
  }, 60_000);
  await until('the block height to grow', async () => (await api('GET', `/metrics/node/${nodeId}`)).json.blockHeight > first.blockHeight, 60_000);

  r = await api('POST', '/metrics/stop');
  assert.is(r.json.status, 'stopped', r.text);
  assert.ok(existsSync(path.join(s!.dataDir, 'nodes', 'metrics-prometheus', 'data')));
  r = await api('POST', '/metrics/start');
  assert.is(r.json.status, 'running', r.text);
  r = await api('POST', '/metrics/undeploy');
  assert.is(r.json.status, 'not_deployed', r.text);
  const left = await docker.listContainers({ all: true, filters: { name: ['metrics-prometheus'] } });
  assert.is(left.filter((c) => c.Labels['lnm.data-dir'] === s!.dataDir).length, 0, 'no container left');
});

test.run();
