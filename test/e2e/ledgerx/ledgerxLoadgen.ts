// Fabric-X's own loadgen as an independent client of a ledgerX network the service made: it signs
// as the organization's admin (the MSP folder the service wrote for the committer's sidecar),
// reads the orderers from the genesis block, sends through the router and follows the sidecar.
// The same configuration as ledgerxOrderer.e2e.test.ts; returns loadgen's output and how many
// transactions it saw COMMITTED.
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { freePort } from '../../../adapters/postgres/embeddedPostgres.ts';
import type { Api } from '../consortium/consortiumApi.ts';

export async function runLoadgen(opts: { loadgen: string; api: Api; dataDir: string; networkId: number; channel: string; mspId: string; committer: { sidecarPort: number; roles: Array<{ role: string; nodeId: number }> }; transactions: number }): Promise<{ out: string; committed: number; log: string }> {
  const work = mkdtempSync(path.join(tmpdir(), 'lnm-ledgerx-loadgen-'));
  const block = path.join(work, 'genesis.block');
  writeFileSync(block, Buffer.from((await opts.api('GET', `/networks/ledgerx/${opts.networkId}/genesis`)).json.block, 'base64'));
  const sidecarId = opts.committer.roles.find((x) => x.role === 'sidecar')!.nodeId;
  const msp = path.join(opts.dataDir, 'nodes', `node-${sidecarId}`, 'msp');
  if (!existsSync(path.join(msp, 'signcerts'))) throw new Error(`no signcerts in ${msp} (sidecar ${sidecarId}; ${existsSync(msp) ? readdirSync(msp).join(', ') : 'no msp folder'}; node folder: ${readdirSync(path.dirname(msp)).join(', ')})`);
  const identity = `      msp-id: ${opts.mspId}\n      msp-dir: ${msp}`;
  writeFileSync(path.join(work, 'loadgen.yaml'), [
    `server:\n  endpoint: 127.0.0.1:${await freePort()}`,
    `monitoring:\n  endpoint: 127.0.0.1:${await freePort()}`,
    'orderer-client:',
    `  sidecar-client:\n    endpoint: 127.0.0.1:${opts.committer.sidecarPort}`,
    `  orderer:\n    fault-tolerance-level: BFT\n    latest-known-config-block-path: ${block}\n    identity:\n  ${identity.replace(/\n/g, '\n  ')}`,
    '  broadcast-parallelism: 1',
    'load-profile:\n  key:\n    size: 32\n  block:\n    max-size: 100\n    min-size: 10\n    preferred-rate: 1s\n  transaction:\n    read-write-count:\n      const: 2',
    `  policy:\n    channel-id: ${opts.channel}\n    identity:\n  ${identity.replace(/\n/g, '\n  ')}`,
    `    namespace-policies:\n      _meta:\n        scheme: MSP\n        msp-identities:\n          - msp-id: ${opts.mspId}\n            msp-dir: ${msp}\n      "0":\n        scheme: ECDSA\n        seed: 10`,
    '  seed: 12345\n  workers: 1',
    'stream:\n  rate-limit: 100\n  buffers-size: 10\n  gen-batch: 10',
    'generate:\n  config: false\n  namespaces: true\n  load: true',
    `limit:\n  transactions: ${opts.transactions}`,
    'logging:\n  logSpec: info',
  ].join('\n') + '\n');
  const run = await promisify(execFile)(opts.loadgen, ['start', `--config=${path.join(work, 'loadgen.yaml')}`], { timeout: 240_000 }).catch((e) => e);
  const out = `${run.stdout ?? ''}${run.stderr ?? ''}`.replace(/\x1b\[[0-9;]*m/g, '');
  const log = path.join(work, 'loadgen.log');
  writeFileSync(log, out);
  const committed = [...out.matchAll(/statuses \[COMMITTED x (\d+)\]/g)].reduce((n, m) => n + Number(m[1]), 0);
  return { out, committed, log };
}
