// Fabric-X's own loadgen (fabric-x-committer) as the independent check of a ledgerX network the
// service made: it signs as an organization's admin (the sidecar's client MSP the service wrote),
// reads the routers from the network's genesis block, sends `transactions` through them and
// counts the statuses the sidecar returns; the coordinator's metrics count what was committed
// to the database.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { freePort } from '../../../adapters/postgres/embeddedPostgres.ts';
import { until } from '../consortium/consortiumApi.ts';

export interface LoadgenRun {
  /** COMMITTED statuses loadgen saw. */
  seen: number;
  /** The coordinator's coordinator_grpc_committed_transaction_total{status="COMMITTED"}. */
  committed: number;
  log: string;
  lastLines: string;
}

/**
 * `mspId`/`mspDir` sign the transactions; `metaSigners` (default: that one) endorse the namespace
 * transaction, which the channel's LifecycleEndorsement (MAJORITY Endorsement) checks: with two
 * organizations both must sign it, or it is ABORTED_SIGNATURE_INVALID. `sidecarHost`: where the
 * sidecar answers (default 127.0.0.1; a sidecar on a Kubernetes cluster: the node address).
 */
export async function runLoadgen(opts: { loadgen: string; genesisBlock: Buffer; channel: string; mspId: string; mspDir: string; metaSigners?: { mspId: string; mspDir: string }[]; sidecarPort: number; sidecarHost?: string; coordinatorMetricsUrl: string; transactions: number; namespaces?: boolean; seed?: number; statusesOnChain?: number }): Promise<LoadgenRun> {
  const work = mkdtempSync(path.join(tmpdir(), 'lnm-ledgerx-loadgen-'));
  const block = path.join(work, 'genesis.block');
  writeFileSync(block, opts.genesisBlock);
  const identity = `      msp-id: ${opts.mspId}\n      msp-dir: ${opts.mspDir}`;
  writeFileSync(path.join(work, 'loadgen.yaml'), [
    `server:\n  endpoint: 127.0.0.1:${await freePort()}`,
    `monitoring:\n  endpoint: 127.0.0.1:${await freePort()}`,
    'orderer-client:',
    `  sidecar-client:\n    endpoint: ${opts.sidecarHost ?? '127.0.0.1'}:${opts.sidecarPort}`,
    `  orderer:\n    fault-tolerance-level: BFT\n    latest-known-config-block-path: ${block}\n    identity:\n  ${identity.replace(/\n/g, '\n  ')}`,
    '  broadcast-parallelism: 1',
    'load-profile:\n  key:\n    size: 32\n  block:\n    max-size: 100\n    min-size: 10\n    preferred-rate: 1s\n  transaction:\n    read-write-count:\n      const: 2',
    `  policy:\n    channel-id: ${opts.channel}\n    identity:\n  ${identity.replace(/\n/g, '\n  ')}`,
    `    namespace-policies:\n      _meta:\n        scheme: MSP\n        msp-identities:\n${(opts.metaSigners ?? [{ mspId: opts.mspId, mspDir: opts.mspDir }]).map((m) => `          - msp-id: ${m.mspId}\n            msp-dir: ${m.mspDir}\n`).join('')}      "0":\n        scheme: ECDSA\n        seed: 10`,
    `  seed: ${opts.seed ?? 12345}\n  workers: 1`,
    'stream:\n  rate-limit: 100\n  buffers-size: 10\n  gen-batch: 10',
    `generate:\n  config: false\n  namespaces: ${opts.namespaces ?? true}\n  load: true`,
    // loadgen's limit counts the statuses it receives, and the sidecar delivers from block 0: on a
    // chain that has statuses already (statusesOnChain), those count too.
    `limit:\n  transactions: ${opts.transactions + (opts.statusesOnChain ?? 0)}`,
    'logging:\n  logSpec: info',
  ].join('\n') + '\n');
  const run = await promisify(execFile)(opts.loadgen, ['start', `--config=${path.join(work, 'loadgen.yaml')}`], { timeout: 240_000 }).catch((e) => e);
  const out = `${run.stdout ?? ''}${run.stderr ?? ''}`.replace(/\x1b\[[0-9;]*m/g, '');
  const log = path.join(work, 'loadgen.log');
  writeFileSync(log, out);
  const seen = [...out.matchAll(/statuses \[COMMITTED x (\d+)\]/g)].reduce((n, m) => n + Number(m[1]), 0);
  const committedTotal = async () => {
    const text = await (await fetch(opts.coordinatorMetricsUrl)).text();
    return Number(/coordinator_grpc_committed_transaction_total\{status="COMMITTED"\} (\d+)/.exec(text)?.[1] ?? 0);
  };
  // The config block and the namespace transaction come before the load (on a network that has
  // the namespace already, namespaces: false, only the load is sent).
  const want = opts.transactions + (opts.namespaces === false ? 0 : 2);
  const committed = await until(`${opts.transactions} transactions committed`, async () => ((await committedTotal()) >= want ? committedTotal() : null), 60_000, 1000).catch(() => committedTotal());
  return { seen, committed, log, lastLines: out.split('\n').slice(-5).join(' | ') };
}
