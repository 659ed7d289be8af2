// The cross-check of the service's ledgerX genesis block (adapters/ledgerx/ledgerxGenesis.ts):
// the same block built with Fabric-X's own tools from the same inputs, found like every Fabric-X
// program (LNM_FABRIC_X_BIN, else PATH): `armageddon createSharedConfigProto` (fabric-x-orderer)
// encodes the Arma shared config from a yaml, and `configtxgen` (fabric-x-common 0.2.x) wraps it
// in the channel's config block from a configtx.yaml profile. The service built its blocks this
// way before it encoded them itself; now only the tests run these programs. Both run in a
// temporary directory holding only certificates (no private key) and are removed after.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { ValidationError } from '../../domain/shared/errors.ts';
import { nodeOuConfigYaml } from '../../adapters/consortium/fabricMsp.ts';
import { findFabricXProgram } from '../../adapters/ledgerx/fabricXPrograms.ts';

const run = promisify(execFile);

import type { LedgerXGenesisParty } from '../../domain/ledgerx/ledgerxPorts.ts';
import { resolveLedgerXConsensus, type LedgerXConsensusSettings } from '../../domain/ledgerx/ledgerxConsensus.ts';

type GenesisParty = LedgerXGenesisParty;

export interface GenesisRequest {
  channel: string;
  parties: GenesisParty[];
  settings?: LedgerXConsensusSettings;
}

/** Missing programs: a 4xx naming them, before anything is recorded. */
export class GenesisToolsMissingError extends ValidationError {}

async function tool(name: 'armageddon' | 'configtxgen', env: Record<string, string | undefined>): Promise<string> {
  const found = await findFabricXProgram(name, env);
  if (!found.ok) throw new GenesisToolsMissingError(`Cannot build the genesis block of a ledgerX network: ${found.reason}.`, [{ field: 'programs', message: `${name} not found` }]);
  return found.path;
}

const policy = (rule: string) => ({ Type: 'Signature', Rule: rule });
const implicit = (rule: string) => ({ Type: 'ImplicitMeta', Rule: rule });

export async function buildLedgerXGenesisWithTools(req: GenesisRequest, env: Record<string, string | undefined> = process.env): Promise<Uint8Array> {
  const [armageddon, configtxgen] = [await tool('armageddon', env), await tool('configtxgen', env)];
  const dir = await mkdtemp(path.join(tmpdir(), 'lnm-ledgerx-genesis-'));
  try {
    const file = async (rel: string, content: string) => {
      const p = path.join(dir, rel);
      await mkdir(path.dirname(p), { recursive: true });
      await writeFile(p, content);
      return p;
    };
    const parties = [];
    const orgs = new Map<string, Record<string, unknown>>();
    const consenters = [];
    for (const p of req.parties) {
      const base = `party${p.partyId}`;
      const ca = await file(`${base}/ca.pem`, p.signCaCertPem);
      const tlsCa = await file(`${base}/tlsca.pem`, p.tlsCaCertPem);
      const cert = async (role: string, kind: string, pem: string) => file(`${base}/${role}-${kind}.pem`, pem);
      parties.push({
        PartyID: p.partyId,
        CACerts: [ca],
        TLSCACerts: [tlsCa],
        RouterConfig: { TLSCert: await cert('router', 'tls', p.router.tlsCertPem), Host: p.router.host, Port: p.router.port },
        BatchersConfig: [{ ShardID: 1, SignCert: await cert('batcher', 'sign', p.batcher.signCertPem), TLSCert: await cert('batcher', 'tls', p.batcher.tlsCertPem), Host: p.batcher.host, Port: p.batcher.port }],
        ConsenterConfig: { SignCert: await cert('consenter', 'sign', p.consenter.signCertPem), TLSCert: await cert('consenter', 'tls', p.consenter.tlsCertPem), Host: p.consenter.host, Port: p.consenter.port },
        AssemblerConfig: { TLSCert: await cert('assembler', 'tls', p.assembler.tlsCertPem), Host: p.assembler.host, Port: p.assembler.port },
      });
      consenters.push({ ID: p.partyId, Host: p.consenter.host, Port: p.consenter.port, MSPID: p.mspId, Identity: await cert('consenter', 'sign', p.consenter.signCertPem), ClientTLSCert: await cert('consenter', 'tls', p.consenter.tlsCertPem), ServerTLSCert: await cert('consenter', 'tls', p.consenter.tlsCertPem) });
      const endpoints = [`id=${p.partyId},msp-id=${p.mspId},broadcast,${p.router.host}:${p.router.port}`, `id=${p.partyId},msp-id=${p.mspId},deliver,${p.assembler.host}:${p.assembler.port}`];
      const existing = orgs.get(p.mspId);
      if (existing) (existing.OrdererEndpoints as string[]).push(...endpoints);
      else {
        const msp = `msp-${p.mspId}`;
        await file(`${msp}/cacerts/ca.pem`, p.signCaCertPem);
        await file(`${msp}/tlscacerts/tlsca.pem`, p.tlsCaCertPem);
        await file(`${msp}/config.yaml`, nodeOuConfigYaml());
        for (const [k, pem] of (p.knownCertPems ?? []).entries()) await file(`${msp}/knowncerts/cert${k}.pem`, pem);
        orgs.set(p.mspId, {
          Name: p.mspId, ID: p.mspId, MSPDir: path.join(dir, msp),
          Policies: { Readers: policy(`OR('${p.mspId}.member')`), Writers: policy(`OR('${p.mspId}.member')`), Admins: policy(`OR('${p.mspId}.admin')`), Endorsement: policy(`OR('${p.mspId}.member')`) },
          OrdererEndpoints: endpoints,
        });
      }
    }
    const { smartBft, batching } = req.settings ?? resolveLedgerXConsensus();
    const shared = {
      Parties: parties,
      // armageddon's shared config yaml spells the SmartBFT fields in lower case (the decoder's keys).
      Consensus: { SmartBFT: Object.fromEntries(Object.entries(smartBft).map(([k, v]) => [k.toLowerCase(), v])) },
      Batching: {
        BatchTimeouts: { BatchCreationTimeout: batching.batchCreationTimeout, FirstStrikeThreshold: batching.firstStrikeThreshold, SecondStrikeThreshold: batching.secondStrikeThreshold, AutoRemoveTimeout: batching.autoRemoveTimeout },
        BatchSize: { MaxMessageCount: batching.maxMessageCount, AbsoluteMaxBytes: batching.absoluteMaxBytes },
        RequestMaxBytes: batching.requestMaxBytes,
      },
      MaxPartyID: Math.max(...req.parties.map((p) => p.partyId)),
    };
    const sharedYaml = await file('shared_config.yaml', stringify(shared));
    await run(armageddon, ['createSharedConfigProto', `--sharedConfigYaml=${sharedYaml}`, `--output=${dir}`], { timeout: 60_000 }).catch((e) => {
      throw new Error(`armageddon createSharedConfigProto failed: ${String(e.stderr || e.message).trim().split('\n').slice(-3).join(' ')}`);
    });
    const organizations = [...orgs.values()];
    const ordererPolicies = { Readers: implicit('ANY Readers'), Writers: implicit('ANY Writers'), Admins: implicit('MAJORITY Admins'), BlockValidation: implicit('ANY Writers') };
    const configtx = {
      Profiles: {
        LedgerX: {
          Policies: { Readers: implicit('ANY Readers'), Writers: implicit('ANY Writers'), Admins: implicit('MAJORITY Admins') },
          Capabilities: { V3_0: true },
          Orderer: {
            OrdererType: 'arma',
            BatchTimeout: '2s',
            BatchSize: { MaxMessageCount: 500, AbsoluteMaxBytes: '10 MB', PreferredMaxBytes: '2 MB' },
            MaxChannels: 0,
            ConsenterMapping: consenters,
            Arma: { Path: path.join(dir, 'shared_config.binpb') },
            Organizations: organizations,
            Policies: ordererPolicies,
            Capabilities: { V2_0: true },
          },
          Application: {
            Organizations: organizations.map(({ OrdererEndpoints: _e, ...o }) => o),
            Policies: {
              Readers: implicit('ANY Readers'), Writers: implicit('ANY Writers'), Admins: implicit('MAJORITY Admins'),
              LifecycleEndorsement: implicit('MAJORITY Endorsement'), Endorsement: implicit('MAJORITY Endorsement'),
            },
            Capabilities: { V2_0: true },
          },
        },
      },
    };
    await file('configtx.yaml', stringify(configtx));
    const out = path.join(dir, 'genesis.block');
    await run(configtxgen, ['-profile', 'LedgerX', '-channelID', req.channel, '-outputBlock', out, '-configPath', dir], { timeout: 60_000 }).catch((e) => {
      const lines = String(e.stderr || e.message).trim().split('\n');
      throw new Error(`configtxgen failed: ${(lines.find((l) => /Error|panic|FATA/i.test(l)) ?? lines[lines.length - 1]).trim()}`);
    });
    return new Uint8Array(await readFile(out));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
