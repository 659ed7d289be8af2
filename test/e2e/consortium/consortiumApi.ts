// Helpers of the consortium end-to-end tests: the server with the Fabric programs the tests find,
// organizations and nodes made over the API, waiting for what the service reports.
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import pg from 'pg';
import { connect, hash, signers } from '@hyperledger/fabric-gateway';
import { adminAuth, call, startServer, type TestServer } from '../../helpers/server.ts';
import { fabricProgram, fabricReleaseOf, fabricServiceEnv } from '../../helpers/programs.ts';

export const execFileAsync = promisify(execFile);
export const auth = adminAuth();

export function consortiumEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { ...fabricServiceEnv(), KEY_ENCRYPTION_KEY: 'consortium-e2e-key-encryption-key', ...extra };
}

export function apiOf(server: () => TestServer) {
  return (method: string, path: string, body?: unknown) => call(server().api, method, path, { headers: auth, body });
}

export type Api = ReturnType<typeof apiOf>;

/**
 * The Fabric 3.1 release the SmartBFT suites run on (found through LNM_FABRIC_RELEASES or
 * LNM_FABRIC_BIN): `skip` is why a suite skips without it, `env` the server environment that runs
 * it under the process engine (one release only, so every node made takes it).
 */
const release31 = fabricReleaseOf('3.1');
export const fabric31 = {
  skip: release31.ok ? undefined : release31.reason,
  version: release31.ok ? release31.release.version : '',
  /** The release's bin/ directory (its osnadmin, for a check beside the service's). */
  binDir: release31.ok ? release31.release.binDir : '',
  env: (extra: Record<string, string> = {}) => consortiumEnv({ LNM_FABRIC_RELEASES: release31.ok ? release31.release.binDir : '', LNM_NODE_ENGINE: 'process', ...extra }),
};

type SuiteHooks = { before: (f: () => Promise<void>) => void; after: (f: () => Promise<void>) => void };

/** One server on Fabric 3.1 for a whole suite (started before it; its nodes removed and the server stopped after). */
export function fabric31Server(t: SuiteHooks): { api: Api; server: () => TestServer } {
  return suiteServer(t, () => fabric31.env());
}

/** One consortium server for a whole suite, of environment `env` (default consortiumEnv()): started before it; its nodes removed and the server stopped after. */
export function suiteServer(t: SuiteHooks, env: () => Record<string, string> = () => consortiumEnv()): { api: Api; server: () => TestServer } {
  let server: TestServer | undefined;
  const api = apiOf(() => server!);
  t.before(async () => {
    server = await startServer({ env: env() });
  });
  t.after(async () => {
    if (!server) return;
    await removeConsortiumNodes(api, server.dataDir);
    await server.stop();
  });
  return { api, server: () => server! };
}

/**
 * A Fabric gateway connection built from a connection profile alone (GET
 * /organizations/{id}/connection-profile?channel=...): the organization's first peer, its url, TLS
 * root and name override, and an identity's certificate and exported private key.
 */
export function profileGateway(p: any, identity: { certificate: string; privateKey: string }) {
  const peerName = p.organizations[p.client.organization].peers[0];
  const peer = p.peers[peerName];
  const url = new URL(peer.url);
  assert.is(url.protocol, 'grpcs:');
  const client = new grpc.Client(url.host, grpc.credentials.createSsl(Buffer.from(peer.tlsCACerts.pem)), { 'grpc.ssl_target_name_override': peer.grpcOptions['ssl-target-name-override'] });
  const gateway = connect({
    client,
    identity: { mspId: p.client.organization, credentials: Buffer.from(identity.certificate) },
    signer: signers.newPrivateKeySigner(createPrivateKey(identity.privateKey)),
    hash: hash.sha256,
    evaluateOptions: () => ({ deadline: Date.now() + 30_000 }),
    endorseOptions: () => ({ deadline: Date.now() + 30_000 }),
    submitOptions: () => ({ deadline: Date.now() + 30_000 }),
    commitStatusOptions: () => ({ deadline: Date.now() + 60_000 }),
  });
  return {
    network: gateway.getNetwork(Object.keys(p.channels)[0]),
    close: () => {
      gateway.close();
      client.close();
    },
  };
}

/**
 * The fault of the rollback tests: once network `networkId`'s migration runs in `phase` (phase
 * backup stops every orderer), takes `port` (an orderer's) as another program would; close() gives
 * it back.
 */
export async function portTakenInPhase(api: Api, networkId: number, port: number, phase = 'backup'): Promise<net.Server> {
  await until(`the migration in phase ${phase}`, async () => {
    const p = await api('GET', `/networks/consortium/${networkId}/consensus/migration`);
    return p.status === 200 && p.json.status === 'running' && p.json.phase === phase ? true : null;
  }, 600_000, 250);
  return occupyPort(port);
}

type Answer = { status: number; text: string; json: any };

/**
 * The rollback tests' first answer: 409 MIGRATION_FAILED of a migration that failed in `phase` and
 * whose rollback did not complete, the message and its `rollback incomplete:` step naming each of
 * `causes` (in sentences that end once: no doubled full stop), no `restored:` step, the channel's
 * state unknown, and the record failed in phase rollback with that step. Answers the record (GET
 * .../consensus/migration).
 */
export async function rollbackIncomplete(api: Api, networkId: number, channel: string, failed: Answer, phase: string, causes: Array<string | RegExp>): Promise<Answer> {
  assert.is(failed.status, 409, failed.text);
  assert.is(failed.json.code, 'MIGRATION_FAILED');
  console.log(`  failed: ${failed.json.message}`);
  assert.match(failed.json.message, `failed in phase ${phase}: `);
  assert.match(failed.json.message, /rollback incomplete: /);
  // (`.../consensus/migrate`, the route named in what to do, is no full stop.)
  assert.not.match(failed.json.message.replaceAll('.../', ''), /\.\./, `a doubled full stop: ${failed.json.message}`);
  const steps = failed.json.context.steps as string[];
  const incomplete = steps.find((s) => s.startsWith('rollback incomplete: '));
  assert.ok(incomplete, JSON.stringify(steps));
  for (const cause of causes) {
    assert.match(failed.json.message, cause);
    assert.match(incomplete!, cause);
  }
  assert.ok(!steps.some((s) => s.startsWith('restored:')), JSON.stringify(steps));
  assert.equal(failed.json.context.channels, [{ network_id: networkId, channel_name: channel, consensus: 'unknown', state: 'unknown' }]);
  const recorded = await api('GET', `/networks/consortium/${networkId}/consensus/migration`);
  assert.is(recorded.status, 200, recorded.text);
  assert.equal([recorded.json.status, recorded.json.phase], ['failed', 'rollback']);
  assert.ok((recorded.json.steps as string[]).includes(incomplete!), recorded.text);
  return recorded;
}

/**
 * The rollback tests' retry once the fault is cleared: a dry run says it takes the rollback of the
 * `recorded` migration up again and records nothing; the POST answers 409 MIGRATION_FAILED saying
 * the backups were put back and the channel left maintenance on etcdraft (a `resumed:` step,
 * `restored:` last), the channel etcdraft in STATE_NORMAL (the answer, the record, the channel
 * config); it commits (`commits`), its blocks before keep their `hashes`, and a new migration's dry
 * run is answered (not stuck). Answers the POST's answer.
 */
export async function rollbackTakenUpAgain(api: Api, opts: { networkId: number; channel: string; recorded: Answer; commits: (what: string) => Promise<number>; hashes: string[] }): Promise<Answer> {
  const { networkId, channel, recorded, hashes } = opts;
  const migrate = (query = '') => api('POST', `/networks/consortium/${networkId}/consensus/migrate${query}`, { to: 'smartbft' });
  const progress = () => api('GET', `/networks/consortium/${networkId}/consensus/migration`);
  const dry = await migrate('?dry_run=true');
  assert.is(dry.status, 200, dry.text);
  assert.is(dry.json.status, 'dry_run');
  assert.match(dry.json.steps[0], `takes up the rollback of migration ${recorded.json.migration_id} (it did not complete) again`);
  assert.equal((await progress()).json.steps, recorded.json.steps, 'the dry run recorded nothing');

  const again = await migrate();
  assert.is(again.status, 409, again.text);
  assert.is(again.json.code, 'MIGRATION_FAILED');
  console.log(`  taken up again: ${again.json.message}`);
  assert.match(again.json.message, /taken up again: restored: backups put back, channels left maintenance on etcdraft/);
  assert.equal(again.json.context.channels, [{ network_id: networkId, channel_name: channel, consensus: 'etcdraft', state: 'normal' }]);
  const steps = again.json.context.steps as string[];
  console.log(`  steps: ${JSON.stringify(steps.slice(-4))}`);
  assert.ok(steps.some((s) => s.startsWith('resumed: the rollback of migration')), JSON.stringify(steps));
  assert.ok(steps[steps.length - 1].startsWith('restored: backups put back'), JSON.stringify(steps));
  const after = await progress();
  assert.equal([after.json.status, after.json.phase, after.json.migration_id], ['failed', 'rollback', recorded.json.migration_id]);
  assert.equal(after.json.channels, again.json.context.channels);

  const consensus = (await api('GET', `/networks/${networkId}/channels/${channel}/config`)).json.config.channel_group.groups.Orderer.values.ConsensusType.value;
  assert.equal([consensus.type, consensus.state], ['etcdraft', 'STATE_NORMAL']);
  await opts.commits('after the rollback taken up again');
  assert.equal(await blockHashes(api, networkId, hashes.length), hashes, 'the blocks before the migration keep their hashes');
  const fresh = await migrate('?dry_run=true');
  assert.is(fresh.status, 200, fresh.text);
  assert.equal(fresh.json.networks.map((n: { channel_name: string }) => n.channel_name), [channel]);
  return again;
}

/**
 * Holds the server whose database is `databaseUrl` at an exact point, without a race: a trigger on
 * its event store makes the INSERT of the event matching `when` (an SQL condition on NEW, e.g.
 * `NEW.type = 'ConsensusMigrationPhaseReached' AND NEW.data->>'phase' = 'normal'`) wait on an
 * advisory lock held here. `post` is sent; once the server waits there (pg_locks), `atHold` makes
 * the fault and the server goes on. Answers `post`'s answer; the trigger is gone after.
 */
export async function heldAtEvent<T>(databaseUrl: string, when: string, post: () => Promise<T>, atHold: () => Promise<void>): Promise<T> {
  const key = 0x17b700 + (process.pid % 0xff);
  const db = new pg.Client({ connectionString: databaseUrl });
  // A connection lost is the query's error here, not an uncaught one that ends the test process.
  db.on('error', () => undefined);
  await db.connect();
  try {
    await db.query(`CREATE FUNCTION lnm_test_hold() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF ${when} THEN
          PERFORM pg_advisory_lock(${key});
          PERFORM pg_advisory_unlock(${key});
        END IF;
        RETURN NEW;
      END $$`);
    await db.query('CREATE TRIGGER lnm_test_hold BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION lnm_test_hold()');
    await db.query('SELECT pg_advisory_lock($1)', [key]);
    let answered = false;
    const posting = post().finally(() => { answered = true; });
    await until('the server held at the event', async () => {
      if (answered) return true;
      const w = await db.query('SELECT count(*)::int AS n FROM pg_locks WHERE locktype = $1 AND objid = $2 AND NOT granted', ['advisory', key]);
      return w.rows[0].n > 0 ? true : null;
    }, 900_000, 200);
    // (The answer read only when there is one: awaited while the server is held, it never comes.)
    if (answered) assert.unreachable(`the server answered before it reached the event (${when}): ${JSON.stringify(await posting).slice(0, 2000)}`);
    await atHold();
    await db.query('SELECT pg_advisory_unlock($1)', [key]);
    return await posting;
  } finally {
    await db.query('SELECT pg_advisory_unlock_all()').catch(() => undefined);
    await db.query('DROP TRIGGER IF EXISTS lnm_test_hold ON events').catch(() => undefined);
    await db.query('DROP FUNCTION IF EXISTS lnm_test_hold()').catch(() => undefined);
    await db.end();
  }
}

/**
 * A real fault for a node's restart: listens on the port (as another program would) once it is
 * free, e.g. while a migration has the orderer stopped; close() gives it back.
 */
export async function occupyPort(port: number): Promise<net.Server> {
  return until(`port ${port} free to take`, () => new Promise<net.Server | null>((resolve) => {
    // The other orderers dial the port: their connections are dropped (and do not hold close() up).
    const s = net.createServer((c) => c.destroy());
    s.once('error', () => resolve(null));
    s.listen({ port, host: '127.0.0.1', exclusive: true }, () => resolve(s));
  }), 300_000, 100);
}

/** A client identity of the organization issued from its CA (role client or admin), with its private key exported. */
export async function issuedIdentity(api: Api, orgId: number, name: string, role: 'client' | 'admin' = 'client', attributes: Array<{ name: string; value: string }> = []): Promise<{ id: number; certificate: string; privateKey: string }> {
  const r = await api('POST', `/organizations/${orgId}/identities`, { name, role, attributes });
  assert.is(r.status, 201, r.text);
  const k = await api('POST', `/organizations/${orgId}/identities/${r.json.id}/key/export`);
  assert.is(k.status, 200, k.text);
  return { id: r.json.id, certificate: k.json.certificate, privateKey: k.json.privateKey };
}

export async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000, everyMs = 500): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export async function organization(api: Api, name: string, mspId: string): Promise<{ id: number; mspId: string; adminKeyId: number; tlsKeyId: number }> {
  const r = await api('POST', '/organizations', { name, mspId });
  assert.is(r.status, 201, r.text);
  return r.json;
}

export async function node(api: Api, name: string, nodeType: 'CONSORTIUM_PEER' | 'CONSORTIUM_ORDERER', organizationId: number, config: Record<string, unknown> = {}) {
  const r = await api('POST', '/nodes', { name, platform: 'CONSORTIUM', nodeType, organizationId, config });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.status, 'running', `${name}: ${r.json.status} ${r.json.error ?? ''}`);
  return r.json;
}

export async function events(api: Api, nodeId: number): Promise<string[]> {
  const r = await api('GET', `/nodes/${nodeId}/events?limit=500`);
  return (r.json?.items ?? []).map((e: { event: string }) => e.event);
}

/** `osnadmin channel list` against an orderer, as an independent check of joins. */
export async function osnadminList(adminPort: number, files: { ca: string; cert: string; key: string }): Promise<string> {
  const { stdout, stderr } = await execFileAsync(fabricProgram('osnadmin'), ['channel', 'list', '-o', `127.0.0.1:${adminPort}`, '--ca-file', files.ca, '--client-cert', files.cert, '--client-key', files.key], { timeout: 20_000 });
  return stdout + stderr;
}

/**
 * A node that runs. Other test runs on this host start Fabric nodes too, from the same default
 * ports upwards: a port free when allocated can be taken by the time the node starts. Such a
 * node is deleted and made again (the allocator then skips the taken port).
 */
export async function runningNode(api: Api, name: string, nodeType: 'CONSORTIUM_PEER' | 'CONSORTIUM_ORDERER', organizationId: number, config: Record<string, unknown> = {}): Promise<any> {
  for (let attempt = 1; ; attempt++) {
    const r = await api('POST', '/nodes', { name, platform: 'CONSORTIUM', nodeType, organizationId, config });
    assert.is(r.status, 201, r.text);
    if (r.json.status === 'running' || attempt === 3 || !/already in use/.test(r.json.error ?? '')) {
      assert.is(r.json.status, 'running', `${name}: ${r.json.status} ${r.json.error ?? ''}`);
      return r.json;
    }
    await api('DELETE', `/nodes/${r.json.id}`);
    await until(`${name} deleted`, async () => ((await api('GET', `/nodes/${r.json.id}`)).status === 404 ? true : null), 10_000);
  }
}

/**
 * The smallest channel: Org1MSP with one raft orderer and one peer (made with `nodeConfig`, e.g.
 * { fabricVersion } to pick a release), the peer joined and its organization's anchor peer.
 */
export async function oneOrganizationChannel(api: Api, name: string, channelName: string, nodeConfig: Record<string, unknown> = {}) {
  const org1 = await organization(api, 'Org1', 'Org1MSP');
  const [orderer, peer] = await Promise.all([runningNode(api, 'orderer0', 'CONSORTIUM_ORDERER', org1.id, nodeConfig), runningNode(api, 'peer0-org1', 'CONSORTIUM_PEER', org1.id, nodeConfig)]);
  const r = await api('POST', '/networks/consortium', { name, channelName, ordererIds: [orderer.id], peerIds: [peer.id] });
  assert.is(r.status, 201, r.text);
  const network = r.json;
  assert.is((await api('POST', `/networks/consortium/${network.id}/orderers/${orderer.id}/join`)).status, 200);
  await until('the orderer to serve the channel', async () => ((await api('POST', `/networks/consortium/${network.id}/peers/${peer.id}/join`)).status === 200 ? true : null), 60_000, 1000);
  // Retried while the single raft orderer elects itself leader (SERVICE_UNAVAILABLE until then).
  await until('the anchor peer of Org1MSP', async () => {
    const a = await api('POST', `/networks/consortium/${network.id}/anchor-peers`, { organizationId: 'Org1MSP', anchorPeers: [{ host: '127.0.0.1', port: peer.config.port }] });
    if (a.status !== 200 && a.status !== 409 && a.status !== 503) assert.unreachable(a.text);
    return a.status === 200 ? a : null;
  }, 90_000, 1000);
  return { org1, orderer, peer, network };
}

/**
 * A channel SmartBFT can take over (docs/consortium.md "Migrating to SmartBFT"): Org1MSP with four
 * raft orderers (3f + 1, f = 1) and one peer, all made with `nodeConfig` (e.g. { fabricVersion }
 * of a 3.x release), every orderer and the peer joined (the caller checks that it commits, e.g.
 * with channelCommits); `height` is the peer's ledger height.
 */
export async function fourOrdererRaftChannel(api: Api, prefix: string, name: string, channelName: string, nodeConfig: Record<string, unknown> = {}) {
  const org1 = await organization(api, 'Org1', 'Org1MSP');
  const orderers = [];
  for (const i of [0, 1, 2, 3]) orderers.push(await runningNode(api, `${prefix}-orderer${i}`, 'CONSORTIUM_ORDERER', org1.id, nodeConfig));
  const peer = await runningNode(api, `${prefix}-peer`, 'CONSORTIUM_PEER', org1.id, nodeConfig);
  const r = await api('POST', '/networks/consortium', { name, channelName, ordererIds: orderers.map((o) => o.id), peerIds: [peer.id], batchTimeout: '500ms' });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.consensus, 'etcdraft');
  const network = r.json;
  for (const o of orderers) assert.is((await api('POST', `/networks/consortium/${network.id}/orderers/${o.id}/join`)).status, 200);
  await until('the orderers to serve the channel', async () => ((await api('POST', `/networks/consortium/${network.id}/peers/${peer.id}/join`)).status === 200 ? true : null), 90_000, 1000);
  const height = async () => {
    const h = await api('GET', `/networks/consortium/${network.id}/info`);
    return h.status === 200 ? Number(h.json.height) : null;
  };
  return { org1, orderers, peer, network, height };
}

/**
 * `count` raft networks (2 or more), one channel each (`<prefix>channel1`, `<prefix>channel2`,
 * ...), on the same four orderers and peer of Org1 (fourOrdererRaftChannel, then each further
 * network all of them join), each committing and raised to channel capability V3_0: what a
 * migration of several channels at once (one POST, Fabric's one maintenance window per orderer)
 * starts from. `commits(id, what)` is each network's channelCommits, patient across a migration
 * (what the orderers say when it fails).
 */
export async function raftChannels(api: Api, prefix: string, count: number, nodeConfig: Record<string, unknown> = {}) {
  const made = await fourOrdererRaftChannel(api, prefix, `${prefix}net1`, `${prefix}channel1`, nodeConfig);
  const { orderers, peer } = made;
  const nets = [{ id: made.network.id as number, channel: `${prefix}channel1` }];
  for (let i = 2; i <= count; i++) {
    const b = await api('POST', '/networks/consortium', { name: `${prefix}net${i}`, channelName: `${prefix}channel${i}`, ordererIds: orderers.map((o) => o.id), peerIds: [peer.id], batchTimeout: '500ms' });
    assert.is(b.status, 201, b.text);
    for (const o of orderers) assert.is((await api('POST', `/networks/consortium/${b.json.id}/orderers/${o.id}/join`)).status, 200);
    await until(`the orderers to serve channel ${i}`, async () => ((await api('POST', `/networks/consortium/${b.json.id}/peers/${peer.id}/join`)).status === 200 ? true : null), 90_000, 1000);
    nets.push({ id: b.json.id, channel: `${prefix}channel${i}` });
  }
  const committers = new Map<number, (what: string) => Promise<number>>();
  const commits = (id: number, what: string): Promise<number> => {
    if (!committers.has(id)) committers.set(id, channelCommits(api, () => id, 'Org1MSP', () => peer.config.port, () => peerHeight(api, id), { heightMs: 120_000, updateMs: 180_000, everyMs: 3000, explain: () => orderersSay(api, id, orderers) }));
    return committers.get(id)!(what);
  };
  for (const n of nets) {
    await commits(n.id, `after the joins (${n.channel})`);
    const raised = await api('PUT', `/networks/${n.id}/channels/${n.channel}/config`, { capabilities: { channel: 'V3_0' } });
    assert.is(raised.status, 200, raised.text);
  }
  return { orderers, peer, nets, commits };
}

/**
 * The fault after one channel of a running migration left maintenance on BFT: once `read` (the
 * server running it, or another of its database) shows the progress step `normal: channel <c> ...`
 * on `networkId`, the `victims` (process engine orderers of the server whose data directory is
 * `dataDir`) crash, SIGKILL through their pid files: with two of four gone the BFT orderers have
 * no quorum and the other channel cannot leave maintenance. Answers the channel that left.
 */
export async function crashOnceOneChannelLeft(read: Api, networkId: number, dataDir: string, victims: Array<{ id: number }>): Promise<string> {
  const firstLeft = await until('one channel out of maintenance on BFT', async () => {
    const p = await read('GET', `/networks/consortium/${networkId}/consensus/migration`);
    const step = p.status === 200 ? (p.json.steps as string[]).find((s) => s.startsWith('normal: channel ')) : undefined;
    return step ?? (p.status === 200 && p.json.status !== 'running' ? `ended: ${p.text}` : null);
  }, 900_000, 25);
  for (const o of victims) {
    const { pid } = JSON.parse(await readFile(path.join(dataDir, 'nodes', `node-${o.id}`, 'node.pid.json'), 'utf8')) as { pid: number };
    process.kill(pid, 'SIGKILL');
  }
  const channel = /^normal: channel (\S+) /.exec(firstLeft)?.[1];
  assert.ok(channel, `struck once a channel left maintenance: ${firstLeft}`);
  return channel!;
}

/**
 * Org1MSP and Org2MSP, one raft orderer (Org1's) and one or two peers each, on a channel with every
 * peer joined and the first peer of each organization as its anchor peer. Second peers are made
 * after the first ones, so each organization's first peer (the one its calls go through first)
 * has the lower id.
 */
export async function twoOrganizationChannel(api: Api, name: string, channelName: string, opts: { peersPerOrganization?: 1 | 2 } = {}) {
  const org1 = await organization(api, 'Org1', 'Org1MSP');
  const org2 = await organization(api, 'Org2', 'Org2MSP');
  const [orderer, peer1, peer2] = await Promise.all([
    runningNode(api, 'orderer0', 'CONSORTIUM_ORDERER', org1.id),
    runningNode(api, 'peer0-org1', 'CONSORTIUM_PEER', org1.id),
    runningNode(api, 'peer0-org2', 'CONSORTIUM_PEER', org2.id),
  ]);
  const seconds = opts.peersPerOrganization === 2
    ? await Promise.all([runningNode(api, 'peer1-org1', 'CONSORTIUM_PEER', org1.id), runningNode(api, 'peer1-org2', 'CONSORTIUM_PEER', org2.id)])
    : [];
  const [peer1b, peer2b] = seconds;
  const r = await api('POST', '/networks/consortium', { name, channelName, ordererIds: [orderer.id], peerIds: [peer1.id, peer2.id, ...seconds.map((p) => p.id)] });
  assert.is(r.status, 201, r.text);
  const network = r.json;
  assert.is((await api('POST', `/networks/consortium/${network.id}/orderers/${orderer.id}/join`)).status, 200);
  await until('the orderer to serve the channel', async () => {
    const j = await api('POST', `/networks/consortium/${network.id}/peers/${peer1.id}/join`);
    return j.status === 200 ? j : null;
  }, 60_000, 1000);
  for (const p of [peer2, ...seconds]) assert.is((await api('POST', `/networks/consortium/${network.id}/peers/${p.id}/join`)).status, 200);
  for (const [msp, p] of [['Org1MSP', peer1], ['Org2MSP', peer2]] as const) {
    // Retried while the single raft orderer elects itself leader (SERVICE_UNAVAILABLE until then).
    await until(`anchor peer of ${msp}`, async () => {
      const a = await api('POST', `/networks/consortium/${network.id}/anchor-peers`, { organizationId: msp, anchorPeers: [{ host: '127.0.0.1', port: p.config.port }] });
      if (a.status !== 200 && a.status !== 409 && a.status !== 503) assert.unreachable(a.text);
      return a.status === 200 ? a : null;
    }, 60_000, 1000);
  }
  return { org1, org2, orderer, peer1, peer2, peer1b, peer2b, network };
}

/** GET /networks/{id}/channels/{channelName}/config: the config sequence and the channel group (configtxlator's JSON). */
export async function channelConfigOf(api: Api, networkId: number, channelName: string): Promise<{ sequence: number; group: any }> {
  const r = await api('GET', `/networks/${networkId}/channels/${channelName}/config`);
  assert.is(r.status, 200, r.text);
  return { sequence: r.json.sequence, group: r.json.config.channel_group };
}

/** PUT /networks/{id}/channels/{channelName}/config, retried while the orderer is not yet serving (503); any other refusal fails the test. */
export async function configUpdate(api: Api, networkId: number, channelName: string, body: unknown, what = 'the config update') {
  return until(what, async () => {
    const u = await api('PUT', `/networks/${networkId}/channels/${channelName}/config`, body);
    if (u.status !== 200 && u.status !== 503) assert.unreachable(u.text);
    return u.status === 200 ? u : null;
  }, 60_000, 1000);
}

/**
 * What orderer `o` (of the server whose data directory is `dataDir`) says of `channel` through its
 * own channel participation API (Fabric 3.1's `osnadmin channel list --channelID`, its TLS
 * files as client): its status, consensus relation and height; null when it does not hold the
 * channel. A check beside the service's: the service's join is idempotent and would join it.
 */
export async function ordererHolds(dataDir: string, o: { id: number; config: { adminPort: number } }, channel: string): Promise<{ status: string; consensusRelation: string; height: number } | null> {
  const tlsDir = path.join(dataDir, 'nodes', `node-${o.id}`, 'tls');
  const args = ['channel', 'list', '--channelID', channel, '-o', `127.0.0.1:${o.config.adminPort}`, '--ca-file', path.join(tlsDir, 'ca.crt'), '--client-cert', path.join(tlsDir, 'server.crt'), '--client-key', path.join(tlsDir, 'server.key'), '--no-status'];
  const { stdout } = await execFileAsync(path.join(fabric31.binDir, 'osnadmin'), args, { timeout: 20_000 }).catch((err: Error & { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  if (/cannot find channel|not exist/i.test(stdout)) return null;
  const info = JSON.parse(stdout) as { status: string; consensusRelation: string; height: number };
  return { status: info.status, consensusRelation: info.consensusRelation, height: Number(info.height) };
}

/** The ledger height at a joined peer of the network (GET /networks/consortium/{id}/info), null while none answers. */
export async function peerHeight(api: Api, networkId: number): Promise<number | null> {
  const r = await api('GET', `/networks/consortium/${networkId}/info`);
  return r.status === 200 ? Number(r.json.height) : null;
}

/** How long channelCommits waits, and what it reports when an update never commits. */
export interface CommitPatience {
  /** For a peer's height, before and after the update (default 60 s). */
  heightMs?: number;
  /** For the update to be accepted, retried every `everyMs` (defaults 120 s, 2 s). */
  updateMs?: number;
  everyMs?: number;
  /** Added to the error when the update never commits (what the orderers say, say). */
  explain?: () => Promise<string>;
}

/**
 * The probe that a channel orders: each call commits an anchor peer update of `mspId` (its entries
 * alternating between the peer's 127.0.0.1 and localhost endpoints, retried while the orderer
 * elects a leader) and waits until `height` (a peer's ledger height) grows; answers the new height.
 */
export function channelCommits(api: Api, networkId: () => number, mspId: string, peerPort: () => number, height: () => Promise<number | null>, patience: CommitPatience = {}) {
  const { heightMs = 60_000, updateMs = 120_000, everyMs = 2000, explain } = patience;
  let toggle = 0;
  return async (what: string): Promise<number> => {
    const before = await until('the height at a peer', height, heightMs, 1000);
    toggle++;
    const anchors = [{ host: '127.0.0.1', port: peerPort() }, ...(toggle % 2 ? [{ host: 'localhost', port: peerPort() }] : [])];
    let last = '';
    await until(`an anchor peer update ${what}`, async () => {
      const a = await api('POST', `/networks/consortium/${networkId()}/anchor-peers`, { organizationId: mspId, anchorPeers: anchors });
      if (a.status !== 200 && a.status !== 503 && a.status !== 409) assert.unreachable(a.text);
      last = `${a.status} ${a.text.slice(0, 600)}`;
      return a.status === 200 && a.json.status === 'updated' ? a : null;
    }, updateMs, everyMs).catch(async (err: Error) => {
      throw new Error(`${err.message}; the last answer: ${last}${explain ? `\n  ${await explain().catch((e: Error) => e.message)}` : ''}`);
    });
    return until(`the new config block at a peer ${what}`, async () => {
      const h = (await height()) ?? 0;
      return h > before ? h : null;
    }, heightMs, 1000);
  };
}

/** The hashes of a network's blocks 0 .. h-1 (GET .../blocks/{n}): a chain kept is a chain whose hashes did not change. */
export async function blockHashes(api: Api, networkId: number, h: number): Promise<string[]> {
  const hashes: string[] = [];
  for (let i = 0; i < h; i++) {
    const r = await api('GET', `/networks/consortium/${networkId}/blocks/${i}`);
    assert.is(r.status, 200, r.text);
    hashes.push(r.json.hash);
  }
  return hashes;
}

/**
 * A consensus migration's 409 after a real fault in phase normal (two orderers killed): the
 * backups put back, no peer left behind, and `peerName` rolled back on `channel` from the switch
 * block to block h-1 of the restored chain (height h + 1 before). The restored chain's height.
 */
export function migrationRolledBack(failed: { status: number; text: string; json: any }, peerName: string, channel: string, h: number): number {
  assert.is(failed.status, 409, failed.text);
  assert.is(failed.json.code, 'MIGRATION_FAILED');
  assert.match(failed.json.message, /failed in phase normal/);
  assert.match(failed.json.message, /restored: backups put back/);
  console.log(`  steps: ${JSON.stringify(failed.json.context.steps)}`);
  assert.ok(failed.json.context.steps.some((s: string) => s.startsWith('backup:')), failed.text);
  assert.is(failed.json.context.peers_not_rolled_back, undefined, failed.text);
  const rolledBack = failed.json.context.steps.find((s: string) => s.startsWith(`rollback: peer ${peerName} `));
  assert.ok(rolledBack, JSON.stringify(failed.json.context.steps));
  const restoredHeight = Number(/restored chain's height (\d+)/.exec(rolledBack)?.[1]);
  assert.is(restoredHeight, h + 1, rolledBack);
  assert.match(rolledBack, `rolled back on channel ${channel} to block ${h}`);
  assert.match(rolledBack, /stopped, peer node rollback, started/);
  return restoredHeight;
}

/** The orderers started again after a crash (POST /nodes/{id}/restart until each reads running). */
export async function restartedOrderers(api: Api, orderers: Array<{ id: number; name: string }>): Promise<void> {
  for (const o of orderers) {
    await until(`orderer ${o.name} started again`, async () => {
      const r = await api('POST', `/nodes/${o.id}/restart`);
      const n = await api('GET', `/nodes/${o.id}`);
      return r.status === 200 && n.json.status === 'running' ? true : null;
    }, 180_000, 3000);
  }
}

/**
 * Test (a) of the migration suites: the migration asked (`migrate`), and once its record says
 * phase normal (the orderers restarted as BFT) `strike` makes the fault; a POST answered before
 * that (a refusal) is not struck, and the assertions on the answer fail on it. Answers the POST's answer.
 */
export async function migrationStruckInPhaseNormal(api: Api, networkId: number, migrate: () => Promise<{ status: number; text: string; json: any }>, strike: () => Promise<void>, timeoutMs: number) {
  let answered = false;
  const posting = migrate().finally(() => { answered = true; });
  const seen = await until('the migration in phase normal', async () => {
    if (answered) return { early: true };
    const p = await api('GET', `/networks/consortium/${networkId}/consensus/migration`);
    return p.status === 200 && p.json.status === 'running' && p.json.phase === 'normal' ? p.json : null;
  }, timeoutMs, 100);
  if (!('early' in seen)) await strike();
  return posting;
}

/**
 * Test (b) of the migration suites: the migration asked again after a failed one (retried while a
 * node still busy from the rollback's restarts answers 503) goes through its five phases; the
 * channel is BFT in STATE_NORMAL with `consenters` as its ConsenterMapping (id and port, and the
 * host where given), a config update commits after it (`commits`), every block before it kept its
 * hash, the network says smartbft and the migration's record says done.
 */
export async function migratedAgain(api: Api, opts: { networkId: number; channel: string; migrate: () => Promise<{ status: number; text: string; json: any }>; height: () => Promise<number | null>; commits: (what: string) => Promise<number>; consenters: Array<{ id: number; host?: string; port: number }> }) {
  const { networkId, channel } = opts;
  const h = (await opts.height())!;
  const hashes = await blockHashes(api, networkId, h);
  const r = await until('the migration', async () => {
    const x = await opts.migrate();
    return x.status === 503 ? null : x;
  }, 120_000, 3000);
  assert.is(r.status, 200, r.text);
  assert.is(r.json.status, 'migrated', r.text);
  console.log(`  steps: ${JSON.stringify(r.json.steps)}`);
  for (const phase of ['maintenance:', 'backup:', 'switch:', 'restart:', 'normal:']) assert.ok(r.json.steps.some((s: string) => s.startsWith(phase)), `${phase} in ${r.text}`);
  const config = (await api('GET', `/networks/${networkId}/channels/${channel}/config`)).json.config;
  const consensus = config.channel_group.groups.Orderer.values.ConsensusType.value;
  assert.is(consensus.type, 'BFT');
  assert.is(consensus.state, 'STATE_NORMAL');
  const mapping = config.channel_group.groups.Orderer.values.Orderers.value.consenter_mapping as Array<{ id: number; host: string; port: number }>;
  assert.equal(mapping.map((m, i) => ({ id: m.id, port: m.port, ...(opts.consenters[i]?.host !== undefined ? { host: m.host } : {}) })), opts.consenters.map((c) => ({ id: c.id, port: c.port, ...(c.host !== undefined ? { host: c.host } : {}) })));
  const hAfter = await opts.commits('after the migration');
  assert.ok(hAfter > h, `height ${hAfter} after ${h}`);
  assert.equal(await blockHashes(api, networkId, h), hashes, 'every block before the migration kept its hash');
  assert.is((await api('GET', `/networks/consortium/${networkId}`)).json.consensus, 'smartbft');
  const p = await api('GET', `/networks/consortium/${networkId}/consensus/migration`);
  assert.is(p.json.status, 'done', p.text);
  return r;
}

/** What each orderer says of a network's channel (an idempotent join through its channel participation API) and its last warnings: for an error. */
export async function orderersSay(api: Api, networkId: number, orderers: Array<{ id: number; name: string }>): Promise<string> {
  const said = [];
  for (const o of orderers) {
    const j = await api('POST', `/networks/consortium/${networkId}/orderers/${o.id}/join`);
    const logs = await api('GET', `/nodes/${o.id}/logs?tail=400`);
    const lines = logs.text.split(/\\n|","/).filter((l) => /ERRO|WARN/.test(l)).slice(-8).map((l) => l.slice(0, 300));
    said.push(`${o.name}: ${j.status} ${JSON.stringify(j.json?.orderer ?? j.text.slice(0, 200))}\n    ${lines.join('\n    ')}`);
  }
  return said.join('\n  ');
}

/** POST .../peers/{id}/leave, retried while the service answers 503 (a node busy); any other answer but 200 fails. */
export function peerLeaves(api: Api, networkId: number, peerId: number, what = 'the peer to leave') {
  return until(what, async () => {
    const x = await api('POST', `/networks/consortium/${networkId}/peers/${peerId}/leave`);
    if (x.status !== 200 && x.status !== 503) assert.unreachable(x.text);
    return x.status === 200 ? x : null;
  }, 90_000, 2000);
}

/** An orderer added to a network after its channel was made, joined (a follower), once it has pulled the chain. */
export async function joinedFollower(api: Api, networkId: number, organizationId: number, name = 'orderer1') {
  const made = await api('POST', `/networks/consortium/${networkId}/nodes`, { name, nodeType: 'CONSORTIUM_ORDERER', organizationId });
  assert.is(made.status, 201, made.text);
  assert.is(made.json.status, 'running', made.text);
  const joined = await api('POST', `/networks/consortium/${networkId}/orderers/${made.json.id}/join`);
  assert.is(joined.status, 200, joined.text);
  assert.is(joined.json.orderer.consensus_relation, 'follower', joined.text);
  await until('the follower to pull the chain', async () => {
    const j = await api('POST', `/networks/consortium/${networkId}/orderers/${made.json.id}/join`);
    return j.json?.orderer?.status === 'active' && j.json.orderer.height >= 3 ? j : null;
  }, 90_000, 1000);
  return made.json;
}

/**
 * Deletes every consortium node and waits until the engine removed their directories (after
 * their processes ended), so no Fabric process or chaincode server outlives the test.
 */
export async function removeConsortiumNodes(api: Api, dataDir: string): Promise<void> {
  const all = (await api('GET', '/nodes/platform/CONSORTIUM?limit=100')).json?.items ?? [];
  for (const n of all) await api('DELETE', `/nodes/${n.id}`).catch(() => undefined);
  await until('every node removed', async () => ((await api('GET', '/nodes/platform/CONSORTIUM')).json?.total === 0 ? true : null), 30_000).catch(() => undefined);
  const nodesDir = path.join(dataDir, 'nodes');
  await until('every node directory removed', async () => (!existsSync(nodesDir) || readdirSync(nodesDir).length === 0 ? true : null), 30_000).catch(() => undefined);
}

/**
 * What a chaincode server's port answers an HTTP/2 (gRPC) client preface: 'h2' (its SETTINGS
 * frame), else how it refused. Plain text without tls; with tls (ca, cert, key) a TLS client.
 */
export function http2Answer(address: string, tlsOptions?: tls.ConnectionOptions): Promise<string> {
  const [, host, port] = address.match(/^(.+):(\d+)$/)!;
  return new Promise((resolve) => {
    const socket = tlsOptions ? tls.connect({ host, port: Number(port), ALPNProtocols: ['h2'], ...tlsOptions }) : net.connect({ host, port: Number(port) });
    let got = Buffer.alloc(0);
    const done = (answer: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done('no answer'), 30_000);
    socket.once(tlsOptions ? 'secureConnect' : 'connect', () => socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
    socket.on('data', (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (got.length >= 9) done(got[3] === 0x04 ? 'h2' : `bytes ${got.subarray(0, 9).toString('hex')}`);
    });
    socket.once('error', (err) => done(`error: ${err.message}`));
    socket.once('close', () => done(got.length ? `closed after ${got.toString('hex')}` : 'closed'));
  });
}

/**
 * The certificate a chaincode server presents to a TLS client holding the peers' client
 * certificate (connection.json's root_cert, client_cert, client_key), as a peer dials it.
 */
export function presentedCertificate(address: string, connection: { root_cert: string; client_cert: string; client_key: string }): Promise<X509Certificate> {
  const [, host, port] = address.match(/^(.+):(\d+)$/)!;
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host, port: Number(port), ALPNProtocols: ['h2'], ca: connection.root_cert, cert: connection.client_cert, key: connection.client_key, rejectUnauthorized: false }, () => {
      const raw = socket.getPeerCertificate().raw;
      socket.destroy();
      resolve(new X509Certificate(raw));
    });
    socket.once('error', reject);
    socket.setTimeout(20_000, () => (socket.destroy(), reject(new Error(`no TLS answer from ${address}`))));
  });
}

/** A certificate serial number as hex without separators or leading zeros, lower case: X509Certificate's and the API's compare equal. */
export const hexSerial = (s: string) => s.replace(/[^0-9a-f]/gi, '').toLowerCase().replace(/^0+/, '');

/** connection.json of a chaincode package as a peer keeps it installed (<peer dir>/data/lifecycle/chaincodes/<label>.<hash>.tar.gz). */
export async function installedConnection(dataDir: string, peerId: number, packageId: string): Promise<any> {
  const [label, hash] = packageId.split(':');
  const file = path.join(dataDir, 'nodes', `node-${peerId}`, 'data', 'lifecycle', 'chaincodes', `${label}.${hash}.tar.gz`);
  const dir = await mkdtemp(path.join(tmpdir(), 'lnm-ccpkg-'));
  try {
    await execFileAsync('tar', ['-xzf', file, '-C', dir]);
    await execFileAsync('tar', ['-xzf', path.join(dir, 'code.tar.gz'), '-C', dir]);
    return JSON.parse(await readFile(path.join(dir, 'connection.json'), 'utf8'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
