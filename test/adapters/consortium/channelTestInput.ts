// Shared by the channel tests: a genesis input for two organizations and three consenters
// (certificates from the Fabric test helper), configtxlator runs that write to files (it cannot
// open /dev/stdout when its output is a pipe), and two waits: for a rejection of a given type
// and message, and for a probe to give a value.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import * as assert from 'uvu/assert';
import type { ChannelGenesisInput } from '../../../domain/consortium/consortiumPorts.ts';
import { fabricProgram, type TestOrganization } from '../../helpers/fabric.ts';
export { rejects } from '../../helpers/rejects.ts';

const run = promisify(execFile);

export const defaultBatch = { batchTimeout: '2s', maxMessageCount: 500, absoluteMaxBytes: 10 * 1024 * 1024, preferredMaxBytes: 2 * 1024 * 1024 };

export async function genesisInput(channelName: string, org1: TestOrganization, org2: TestOrganization): Promise<ChannelGenesisInput> {
  const tls = await Promise.all([org1.issue('orderer0.' + org1.domain, 'orderer'), org1.issue('orderer1.' + org1.domain, 'orderer'), org2.issue('orderer0.' + org2.domain, 'orderer')]);
  return {
    channelName,
    peerOrganizations: [{ ...org1.msp, anchorPeers: [{ host: 'peer0.' + org1.domain, port: 7051 }] }, org2.msp],
    ordererOrganizations: [
      { ...org1.msp, endpoints: ['orderer0.' + org1.domain + ':7050', 'orderer1.' + org1.domain + ':7050'] },
      { ...org2.msp, endpoints: ['orderer0.' + org2.domain + ':7050'] },
    ],
    consenters: tls.map((t, i) => ({ host: `orderer${i}.example.com`, port: 7050 + i, clientTlsCertPem: t.tls.certPem, serverTlsCertPem: t.tls.certPem })),
    batch: defaultBatch,
  };
}

export async function configtxlator(dir: string, name: string, args: string[], inputs: Record<string, Uint8Array>): Promise<any> {
  const flags: string[] = [];
  for (const [flag, bytes] of Object.entries(inputs)) {
    const file = path.join(dir, `${name}.${flag}.pb`);
    await writeFile(file, bytes);
    flags.push(`--${flag}`, file);
  }
  const output = path.join(dir, `${name}.out`);
  await run(fabricProgram('configtxlator'), [...args, ...flags, '--output', output]);
  return readFile(output);
}

export async function decodeWithConfigtxlator(dir: string, name: string, type: string, bytes: Uint8Array): Promise<any> {
  return JSON.parse((await configtxlator(dir, name, ['proto_decode', '--type', type], { input: bytes })).toString('utf8'));
}

export async function eventually<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}
