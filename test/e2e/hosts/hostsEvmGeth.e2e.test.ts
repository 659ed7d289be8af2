// Issue 38 item 3 on real geth 1.13.15: a Clique network with a sealer on each of two Docker
// hosts and a third sealer. This machine's Docker Engine runs two sealers (given config.externalIp,
// the address the other host reaches this machine at); a node host (a second Docker Engine in a
// network namespace the test makes, tcp with --tlsverify, only lnm-geth:local loaded into it) runs
// the third, its files uploaded into its volume there. All three run the lnm-geth:local image,
// whose command runs `geth init` in the container, then geth.
// - the three peer across the hosts and the chain has blocks sealed by the sealer on the host and
//   by those here (clique_getSigner);
// - a sealer's keystore password is a file in its node directory: on no command line (the
//   container's Cmd, geth's /proc cmdline), in no container environment, no log and no answer;
// - the host's engine stopped: its sealer goes down (node.downtime) and the two sealers here go on
//   sealing (each may sign one block in two);
// - the engine back: the sealer runs again (node.recovery, restart policy unless-stopped) and
//   catches up: its head reaches the others', with the same block hash.
// Skipped, saying why, without a Docker Engine, the geth image (.ci/docker.sh builds it where geth
// is found), or root to start the second engine.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Docker from 'dockerode';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { requiresAll } from '../../helpers/requirements.ts';
import { dockerSkipReason, imagesMissing } from '../../helpers/dockerAvailability.ts';
import { secondHostMissing, startSecondDockerHost, type SecondDockerHost } from '../../helpers/secondDockerHost.ts';
import { until } from '../evm/evmLifecycle.ts';

const GETH_IMAGE = 'lnm-geth:local';
const docker = new Docker();
const dockerMissing = await dockerSkipReason();
const t = requiresAll(
  suite('node hosts: geth Clique sealers on two Docker hosts'),
  ['docker', dockerMissing],
  ['geth-image', dockerMissing ? undefined : await imagesMissing([GETH_IMAGE])],
  ['docker-host', secondHostMissing()],
);
let host: SecondDockerHost;
let server: TestServer;
let hostId: number;
let networkId: number;
const nodes: { a?: any; b?: any; c?: any } = {};
const api = (method: string, p: string, body?: unknown) => call(server.api, method, p, { headers: adminAuth(), body });
const events = async (nodeId: number) => (await api('GET', `/nodes/${nodeId}/events?limit=500`)).json.items as Array<{ event: string }>;
async function rpc<T = any>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), signal: AbortSignal.timeout(3000) });
  const body = (await r.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}
const height = async (n: any) => Number(await rpc<string>(n.endpoints.rpc_http, 'eth_blockNumber'));
const hex = (n: number) => '0x' + n.toString(16);
const sealerOf = async (n: any, block: number) => (await rpc<string>(n.endpoints.rpc_http, 'clique_getSigner', [hex(block)])).toLowerCase();
const hashAt = async (n: any, block: number) => (await rpc<{ hash: string }>(n.endpoints.rpc_http, 'eth_getBlockByNumber', [hex(block), false])).hash;

/**
 * What a stalled chain stands on, for a time-out's message: each node's head (number, hash,
 * sealer) and Clique's recent signers there. Two sealers each on a head it sealed itself, at one
 * height, is the Clique stall docs/evm.md describes (equal-difficulty siblings, neither allowed to
 * seal the next block).
 */
async function chainState(): Promise<string> {
  const rows = await Promise.all(Object.values(nodes).map(async (n) => {
    try {
      const head = await height(n);
      const [hash, sealer, snap] = await Promise.all([hashAt(n, head), head ? sealerOf(n, head) : Promise.resolve('-'), rpc<{ recents: Record<string, string> }>(n.endpoints.rpc_http, 'clique_getSnapshot', ['latest'])]);
      return `${n.name} (${String(n.validator_address).toLowerCase()}): head ${head} ${hash} sealed by ${sealer}, recent signers ${JSON.stringify(snap.recents)}`;
    } catch (err) {
      return `${n.name}: ${(err as Error).message}`;
    }
  }));
  return rows.join('; ');
}
/** `until`, its time-out saying the chain's state on every node. */
const untilChain = <T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs: number) =>
  until(what, probe, timeoutMs).catch(async (err: Error) => {
    throw new Error(`${err.message}: ${await chainState()}`);
  });

/** The node once running; until then a throw saying its status and error, which a time-out reports. */
const running = async (id: number) => {
  const r = (await api('GET', `/nodes/${id}`)).json;
  if (r?.status !== 'running') throw new Error(`node ${id} is ${r?.status}${r?.error ? `: ${r.error}` : ''}`);
  return r;
};

t.before(async () => {
  host = await startSecondDockerHost({ images: [GETH_IMAGE] });
  server = await startServer({ env: { KEY_ENCRYPTION_KEY: 'hosts-geth-e2e-key-encryption-key-0123456', LNM_HOST_CHECK_SECONDS: '1', LNM_NODE_ENGINE: 'docker' } });
  assert.is((await api('POST', '/settings', { nodeHealthCheckIntervalSeconds: 1, nodeDowntimeThreshold: 2 })).status, 200);
  const h = await api('POST', '/hosts', { name: 'second', url: host.url, tls: host.pki });
  assert.is(h.status, 201, h.text);
  hostId = h.json.id;
  const n = await api('POST', '/networks/evm', { name: 'clique-two-hosts', validatorCount: 3, genesis: { chain_id: 43811, consensus: 'CLIQUE', block_time: 1 } });
  assert.is(n.status, 201, n.text);
  assert.is(n.json.client, 'geth', 'auto picks geth for Clique where the docker engine has its image');
  networkId = n.json.id;
});

t.after(async () => {
  for (const n of Object.values(nodes)) if (n) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  if (server) for (const c of await docker.listContainers({ all: true, filters: { label: [`lnm.data-dir=${server.dataDir}`] } })) await docker.getContainer(c.Id).remove({ force: true }).catch(() => undefined);
  await server?.stop();
  await host?.remove();
});

t('a sealer on each host and a third here peer across the hosts, and blocks are sealed on both hosts', async () => {
  const made = await Promise.all([
    api('POST', '/nodes', { name: 'sealer-a', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config: { externalIp: host.gateway } }),
    api('POST', '/nodes', { name: 'sealer-b', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config: { hostId } }),
    api('POST', '/nodes', { name: 'sealer-c', platform: 'EVM', nodeType: 'EVM_FULLNODE', networkId, config: { externalIp: host.gateway } }),
  ]);
  for (const r of made) assert.is(r.status, 201, r.text);
  [nodes.a, nodes.b, nodes.c] = made.map((r) => r.json);
  for (const n of Object.values(nodes)) assert.is(n.role, 'validator', JSON.stringify(n));
  nodes.a = await until('sealer-a running', () => running(nodes.a.id), 120_000);
  nodes.b = await until('sealer-b running on the host', () => running(nodes.b.id), 120_000);
  nodes.c = await until('sealer-c running', () => running(nodes.c.id), 120_000);
  assert.match(nodes.b.enode, new RegExp(`@${host.address.replace(/\./g, '\\.')}:\\d+$`));
  assert.match(nodes.a.enode, new RegExp(`@${host.gateway.replace(/\./g, '\\.')}:\\d+$`));
  // The sealer on the host runs under that engine only, from the geth image.
  assert.match(host.docker(['ps', '--filter', `label=lnm.node=node-${nodes.b.id}`, '--format', '{{.Image}}']), /lnm-geth:local/);
  assert.not.ok((await docker.listContainers({ filters: { label: [`lnm.node=node-${nodes.b.id}`] } })).length, 'not on the main engine');
  for (const n of Object.values(nodes)) await until(`node ${n.name} with two peers`, async () => Number(await rpc<string>(n.endpoints.rpc_http, 'net_peerCount')) >= 2, 60_000);

  const signerB = String(nodes.b.validator_address).toLowerCase();
  const here = [nodes.a, nodes.c].map((n) => String(n.validator_address).toLowerCase());
  const sealers = new Set<string>();
  let scanned = 0;
  await untilChain('blocks sealed by the sealer on the host and by one here', async () => {
    const top = await height(nodes.a);
    for (; scanned < top; scanned++) sealers.add(await sealerOf(nodes.a, scanned + 1));
    return sealers.has(signerB) && here.some((s) => sealers.has(s));
  }, 120_000);
  const top = Math.min(...(await Promise.all(Object.values(nodes).map(height))));
  assert.ok(top >= 2, `every node has blocks (lowest head ${top})`);
  assert.is(new Set(await Promise.all(Object.values(nodes).map((n) => hashAt(n, top)))).size, 1, `one chain at block ${top}`);
});

t("a sealer's keystore password is on no command line, in no container environment, log or answer", async () => {
  for (const n of Object.values(nodes)) {
    const password = readFileSync(path.join(server.dataDir, 'nodes', `node-${n.id}`, 'password'), 'utf8');
    assert.ok(password.length >= 32);
    const inspected = n.host_id ? host.docker(['inspect', `lnm-node-${n.id}`]) : JSON.stringify(await docker.getContainer(`lnm-node-${n.id}`).inspect());
    assert.ok(inspected.includes('--password'), 'geth is given the password file');
    assert.not.ok(inspected.includes(password), `the container of ${n.name} does not show the password`);
    if (!n.host_id) {
      const pid = (await docker.getContainer(`lnm-node-${n.id}`).inspect()).State.Pid;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      assert.ok(cmdline.includes('geth') && !cmdline.includes(password), "geth's process list entry holds no password");
    }
    for (const p of [`/nodes/${n.id}`, `/nodes/${n.id}/logs?tail=1000`, `/networks/evm/${networkId}/nodes`]) {
      const r = await api('GET', p);
      assert.is(r.status, 200, r.text);
      assert.not.ok(r.text.includes(password), p);
    }
  }
});

t("the host's engine stopped: its sealer goes down and the two sealers here go on; back: it catches up", async () => {
  await host.stop();
  await until('node.downtime of the sealer on the host', async () => (await events(nodes.b.id)).find((e) => e.event === 'node.downtime'), 30_000);
  assert.is((await api('GET', `/nodes/${nodes.b.id}`)).json.status, 'down');
  const before = await height(nodes.a);
  await untilChain('the chain goes on without the host', async () => (await height(nodes.a)) >= before + 4 && (await height(nodes.c)) >= before + 4, 30_000);
  const after = await height(nodes.a);
  const sealedWithout = new Set<string>();
  for (let b = before + 1; b <= after; b++) sealedWithout.add(await sealerOf(nodes.a, b));
  assert.not.ok(sealedWithout.has(String(nodes.b.validator_address).toLowerCase()), 'no block sealed by the sealer that is down');
  assert.is(sealedWithout.size, 2, `blocks ${before + 1}..${after} sealed by both sealers here`);

  await host.start();
  await until('node.recovery of the sealer on the host', async () => (await events(nodes.b.id)).find((e) => e.event === 'node.recovery'), 90_000);
  assert.is((await api('GET', `/nodes/${nodes.b.id}`)).json.status, 'running');
  const target = await height(nodes.a);
  await until(`the sealer on the host caught up to block ${target}`, async () => (await height(nodes.b).catch(() => 0)) >= target, 90_000);
  assert.is(await hashAt(nodes.b, target), await hashAt(nodes.a, target), `the same block ${target} on the returned sealer`);
});

t.run();
