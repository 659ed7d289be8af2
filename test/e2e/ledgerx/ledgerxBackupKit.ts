// Shared by the ledgerX backup end-to-end tests (ledgerxBackup, ledgerxExternalDatabaseBackup):
// a quick-start network with loadgen's transactions committed, an s3rver backup target, waiting
// for a backup, a snapshot read with restic alone, `lnm restore` run as the operator runs it,
// the explorer's view of the chain, the groups stopped with their server and started again, and
// the teardown of a test.
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestServer } from '../../helpers/server.ts';
import type { S3Server } from '../../helpers/s3Server.ts';
import { fabricXProgram } from '../../helpers/programs.ts';
import { freePortBlock } from '../../helpers/ports.ts';
import { until, type Api } from '../consortium/consortiumApi.ts';
import { runLoadgen } from './ledgerxLoadgen.ts';

const run = promisify(execFile);

/** Where a test's backups go: a bucket path of the s3rver bucket `backups`, and the restic repository's password. */
export interface BackupRepository {
  s3: S3Server;
  bucketPath: string;
  password: string;
}

/** The backup target of `repo`, made over the API; its id. */
export async function s3BackupTarget(api: Api, repo: BackupRepository, name: string): Promise<number> {
  const { s3 } = repo;
  const target = await api('POST', '/backups/targets', { name, endpoint: s3.endpoint, bucket_name: 'backups', bucket_path: repo.bucketPath, region: 'us-east-1', access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey, force_path_style: true, repository_password: repo.password, ca_certificate: s3.caPem });
  assert.is(target.status, 201, target.text);
  return target.json.id;
}

/** `lnm restore` from `repo` into `out`, in a process of its own with only the environment given. */
export async function lnmRestore(repo: BackupRepository, out: string, extra: string[] = [], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  const { s3 } = repo;
  const args = ['--endpoint', s3.endpoint, '--bucket', 'backups', '--bucket-path', repo.bucketPath, '--access-key', s3.accessKeyId, '--cacert', s3.caFile, '--output-dir', out, '--force-path-style', ...extra];
  try {
    const r = await run(process.execPath, ['--import', 'tsx', path.resolve('bin/lnm.ts'), 'restore', ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, LNM_RESTORE_PASSWORD: repo.password, ...env }, maxBuffer: 20_000_000,
    });
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

/** A snapshot's files, with restic alone, in a new directory pushed on `scratch`. */
export async function rawSnapshot(repo: BackupRepository, snapshotId: string, scratch: string[]): Promise<string> {
  const { s3 } = repo;
  const dir = mkdtempSync(path.join(tmpdir(), 'lnm-lx-raw-'));
  scratch.push(dir);
  await run('restic', ['-r', `s3:${s3.endpoint}/backups/${repo.bucketPath}`, '--cacert', s3.caFile, '-o', 's3.bucket-lookup=path', 'restore', snapshotId, '--target', dir], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', RESTIC_PASSWORD: repo.password, AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, RESTIC_CACHE_DIR: path.join(tmpdir(), 'lnm-restic-cache-e2e') }, maxBuffer: 20_000_000,
  });
  return dir;
}

export { filesHolding } from '../../helpers/files.ts';

export async function waitBackup(api: Api, id: number) {
  return until(`backup ${id} to end`, async () => {
    const r = await api('GET', `/backups/${id}`);
    return r.json.status !== 'IN_PROGRESS' ? r.json : null;
  }, 180_000, 500);
}

export type Chain = { height: number; head: string; blocks: { number: number; hash: string; txs: string[] }[] };

/** Every block (number, hash) and every transaction's id and status, as the explorer shows them. */
export async function chain(api: Api, networkId: number): Promise<Chain> {
  const info = (await api('GET', `/networks/ledgerx/${networkId}/info`)).json;
  const blocks: Chain['blocks'] = [];
  for (let n = 0; n < info.height; n++) {
    const b = await api('GET', `/networks/ledgerx/${networkId}/blocks/${n}`);
    assert.is(b.status, 200, b.text);
    blocks.push({ number: n, hash: b.json.hash, txs: b.json.transactions.map((x: any) => `${x.id}:${x.status}`) });
  }
  return { height: info.height as number, head: info.current_block_hash as string, blocks };
}

export interface CommittedNetwork {
  group: any;
  committer: any;
  networkId: number;
  channel: string;
  genesis: Buffer;
  mspId: string;
  /** The sidecar's client MSP, which loadgen signs with. */
  mspDir: string;
  before: Chain;
  committed: string[];
}

/** A quick start of one organization (its committer on `committerDatabaseUrl` when given), and loadgen's `transactions` committed and shown by the explorer. */
export async function quickstartCommitted(api: Api, server: TestServer, opts: { name: string; org: string; mspId: string; transactions: number; committerDatabaseUrl?: string }): Promise<CommittedNetwork> {
  const base = await freePortBlock(Array.from({ length: 2 }, (_, g) => Array.from({ length: 5 }, (_, i) => [10 * g + i, 10 * g + 100 + i]).flat()).flat());
  const r = await api('POST', '/networks/ledgerx/quickstart', { name: opts.name, organizations: [{ name: opts.org, mspId: opts.mspId }], grpcPort: base, ...(opts.committerDatabaseUrl ? { committerDatabaseUrl: opts.committerDatabaseUrl } : {}) });
  assert.is(r.status, 202, r.text);
  const q = await until('the quick start ends', async () => {
    const x = (await api('GET', `/networks/ledgerx/quickstart/${r.json.id}`)).json;
    return x.status === 'IN_PROGRESS' ? null : x;
  }, 300_000, 500);
  assert.is(q.status, 'COMPLETED', JSON.stringify(q));
  const group = (await api('GET', `/nodes/${q.steps[1].resource_id}`)).json;
  const committer = (await api('GET', `/nodes/${q.steps[2].resource_id}`)).json;
  const network = (await api('GET', `/networks/ledgerx/${q.network_id}`)).json;
  const genesis = Buffer.from((await api('GET', `/networks/ledgerx/${q.network_id}/genesis`)).json.block, 'base64');
  const mspDir = path.join(server.dataDir, 'nodes', `node-${committer.ledgerXCommitter.roles.find((x: any) => x.role === 'sidecar').nodeId}`, 'msp');
  const loadgen = await fabricXProgram('loadgen');
  assert.ok(loadgen, 'loadgen is with the Fabric-X programs');
  const c = committer.ledgerXCommitter;
  const lg = await runLoadgen({ loadgen: loadgen!, genesisBlock: genesis, channel: network.channel_name, mspId: opts.mspId, mspDir, sidecarPort: c.sidecarPort, coordinatorMetricsUrl: c.coordinatorMetricsUrl, transactions: opts.transactions });
  assert.ok(lg.committed >= opts.transactions + 2, `the coordinator counts ${lg.committed} committed; loadgen: ${lg.lastLines}`);
  // The explorer's blocks hold the last transactions once the sidecar has them.
  const before = await until('the explorer shows loadgen\'s transactions', async () => {
    const ch = await chain(api, network.id);
    return ch.blocks.flatMap((b) => b.txs).filter((x) => x.endsWith(':COMMITTED')).length >= opts.transactions + 1 ? ch : null;
  }, 60_000, 1000);
  const committed = before.blocks.flatMap((b) => b.txs).filter((x) => x.endsWith(':COMMITTED')).map((x) => x.split(':')[0]);
  return { group, committer, networkId: network.id, channel: network.channel_name, genesis, mspId: opts.mspId, mspDir, before, committed };
}

/** The groups stopped over the API, then their server stopped (and any process left under its data directory ended). */
export async function stopGroupsAndServer(api: Api, server: TestServer, groupIds: number[]): Promise<void> {
  for (const id of groupIds) assert.ok((await api('POST', `/nodes/${id}/stop`)).status < 300);
  await until('the groups stopped', async () => {
    for (const id of groupIds) if ((await api('GET', `/nodes/${id}`)).json.status !== 'stopped') return null;
    return true;
  }, 60_000, 500);
  server.reapNodes();
  await server.stop();
}

/** The end of a backup test: the network's group and committer stopped (when made) and any process left under the server's data directory ended, the server and the s3rver stopped, then `also` (another resource of the test), then the scratch directories removed. */
export async function tearDownBackupTest(api: Api, t: { server?: TestServer; made?: CommittedNetwork; s3?: S3Server; scratch: string[]; also?: () => Promise<void> }): Promise<void> {
  if (t.server) {
    for (const id of [t.made?.group?.id, t.made?.committer?.id].filter(Boolean)) await api('POST', `/nodes/${id}/stop`).catch(() => undefined);
    t.server.reapNodes();
    await t.server.stop();
  }
  await t.s3?.stop();
  t.s3?.remove();
  await t.also?.();
  for (const d of t.scratch) rmSync(d, { recursive: true, force: true });
}

/** The groups started over the API and running. */
export async function startGroups(api: Api, groupIds: number[]): Promise<void> {
  for (const id of groupIds) {
    const s = await api('POST', `/nodes/${id}/start`);
    assert.ok(s.status < 300, s.text);
  }
  await until('the groups running again', async () => {
    for (const id of groupIds) if ((await api('GET', `/nodes/${id}`)).json.status !== 'running') return null;
    return true;
  }, 240_000, 1000);
}

/** loadgen's `transactions` more through the network, signed with the sidecar's MSP under `dataDir` (a restored one), after `statusesOnChain` statuses already on the chain. */
export async function moreTransactions(made: CommittedNetwork, dataDir: string, opts: { transactions: number; seed: number; statusesOnChain: number }) {
  const c = made.committer.ledgerXCommitter;
  const mspDir = path.join(dataDir, 'nodes', path.basename(path.dirname(made.mspDir)), 'msp');
  return runLoadgen({ loadgen: (await fabricXProgram('loadgen'))!, genesisBlock: made.genesis, channel: made.channel, mspId: made.mspId, mspDir, sidecarPort: c.sidecarPort, coordinatorMetricsUrl: c.coordinatorMetricsUrl, namespaces: false, ...opts });
}

/** After a restore and the groups' start: the explorer shows the same height, head, blocks and statuses as `made.before`, and sampled transactions read COMMITTED from the query service (the restored database). */
export async function sameChainRestored(api: Api, made: CommittedNetwork): Promise<void> {
  const after = await until('the explorer answers', async () => {
    const i = await api('GET', `/networks/ledgerx/${made.networkId}/info`);
    return i.status === 200 && i.json.height >= made.before.height ? chain(api, made.networkId) : null;
  }, 120_000, 1000);
  assert.is(after.height, made.before.height);
  assert.is(after.head, made.before.head);
  assert.equal(after.blocks, made.before.blocks);
  for (const id of made.committed.filter((_, i) => i % 10 === 0)) {
    const tx = await api('GET', `/networks/ledgerx/${made.networkId}/transactions/${id}`);
    assert.is(tx.status, 200, tx.text);
    assert.is(tx.json.status, 'COMMITTED', tx.text);
  }
}

/** 50 new transactions through the restored network (`dataDir`) commit in a block after the restored ones. */
export async function newTransactionsCommit(api: Api, made: CommittedNetwork, dataDir: string, seed: number) {
  const more = await moreTransactions(made, dataDir, { transactions: 50, seed, statusesOnChain: made.before.blocks.reduce((n, b) => n + b.txs.length, 0) });
  assert.ok(more.committed >= 50, `after the restore the coordinator counts ${more.committed} committed; loadgen: ${more.lastLines}`);
  const grown = await until('the explorer shows the new blocks', async () => {
    const i = (await api('GET', `/networks/ledgerx/${made.networkId}/info`)).json;
    return i.height > made.before.height ? i : null;
  }, 60_000, 1000);
  const newest = (await api('GET', `/networks/ledgerx/${made.networkId}/blocks/${grown.height - 1}`)).json;
  assert.ok(newest.transactions.some((x: any) => x.status === 'COMMITTED'), JSON.stringify(newest.transactions.slice(0, 3)));
  return { more, height: grown.height as number };
}
