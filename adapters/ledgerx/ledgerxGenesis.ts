// The genesis (bootstrap) block of a ledgerX network, encoded here (no Fabric-X program runs):
// one channel whose orderer type is Arma, the block fabric-x-common 0.2's configtxgen would
// write for the profile the service used to hand it (test/helpers/ledgerxGenesisTools.ts builds
// that one, and test/adapters/ledgerx/ledgerxGenesis.int.test.ts compares the two, decoded by
// Fabric-X's configtxlator, field by field):
//   Channel      HashingAlgorithm SHA256, BlockDataHashingStructure, Capabilities V3_0;
//                Readers/Writers ANY, Admins MAJORITY
//   Orderer      ConsensusType "arma" (metadata: the Arma shared config, armaSharedConfig.ts),
//                Orderers (the consenter mapping: party id, consenter host/port, MSP id,
//                identity and TLS certificates), BatchSize 500 / 10 MB / 2 MB, BatchTimeout 2s,
//                ChannelRestrictions, Capabilities V2_0; BlockValidation = a BFT quorum
//                (ceil((n+f+1)/2), f = floor((n-1)/3)) of the consenters' identities
//   each orderer organization: MSP (NodeOUs, the admin's certificate among known_certs),
//                Endpoints "id=<party>,msp-id=<msp>,broadcast,<router>" and "...,deliver,<assembler>"
//   Application  Capabilities V2_0; LifecycleEndorsement and Endorsement MAJORITY Endorsement;
//                each organization's MSP with Readers/Writers/Endorsement member, Admins admin
// The groups, values, policies and the block itself are the consortium platform's helpers
// (adapters/consortium/channelConfig*.ts, fabricGenesis.ts); only what Fabric 2.5 lacks is here.
import { createHash, X509Certificate } from 'node:crypto';
import { common, orderer } from '@hyperledger/fabric-protos';
import googleProtobuf from 'google-protobuf';
import { ValidationError } from '../../domain/shared/errors.ts';
import type { LedgerXGenesisParty, LedgerXGenesisRequest } from '../../domain/ledgerx/ledgerxPorts.ts';
import { LEDGERX_ORDERER_ROLES } from '../../domain/ledgerx/ledgerxNode.ts';
import { resolveLedgerXConsensus } from '../../domain/ledgerx/ledgerxConsensus.ts';
import { configGroup } from '../consortium/channelConfigGroups.ts';
import { bftBlockValidationPolicy, configPolicy } from '../consortium/channelConfigPolicies.ts';
import { batchSize, batchTimeout, blockDataHashingStructure, capabilities, channelRestrictions, configValue, hashingAlgorithm, mspConfig, ordererAddresses } from '../consortium/channelConfigValues.ts';
import { channelNameProblem, genesisBlockOf } from '../consortium/fabricGenesis.ts';
import { encodeArmaSharedConfig } from './armaSharedConfig.ts';

const { BinaryWriter } = googleProtobuf;

const implicit = (rule: string) => configPolicy({ type: 'ImplicitMeta', rule });
const signature = (rule: string) => configPolicy({ type: 'Signature', rule });
const standardPolicies = () => ({ Readers: implicit('ANY Readers'), Writers: implicit('ANY Writers'), Admins: implicit('MAJORITY Admins') });

/** A certificate the block would carry that is absent or not one: 400 naming the party and role. */
function checkParties(channel: string, parties: LedgerXGenesisParty[]): void {
  const issues: { field: string; message: string }[] = [];
  const problem = channelNameProblem(channel);
  if (problem) issues.push({ field: 'channelName', message: problem });
  if (!parties.length) issues.push({ field: 'ordererGroupIds', message: 'at least one orderer group' });
  const cert = (field: string, pem: string | undefined) => {
    if (!pem) return issues.push({ field, message: 'certificate missing' });
    try {
      new X509Certificate(pem);
    } catch {
      issues.push({ field, message: 'not a PEM certificate' });
    }
  };
  const ids = new Set<number>();
  for (const p of parties) {
    const at = `parties[${p.partyId}]`;
    if (!Number.isInteger(p.partyId) || p.partyId < 1 || p.partyId > 0xffff || ids.has(p.partyId)) issues.push({ field: `${at}.partyId`, message: 'party ids are distinct, 1 to 65535' });
    ids.add(p.partyId);
    if (!p.mspId) issues.push({ field: `${at}.mspId`, message: 'MSP id missing' });
    cert(`${at}.signCaCert`, p.signCaCertPem);
    cert(`${at}.tlsCaCert`, p.tlsCaCertPem);
    for (const role of LEDGERX_ORDERER_ROLES) {
      const r = p[role];
      if (!r?.host) issues.push({ field: `${at}.${role}.host`, message: 'host missing' });
      if (!Number.isInteger(r?.port) || r.port < 1 || r.port > 65535) issues.push({ field: `${at}.${role}.port`, message: 'a port 1 to 65535' });
      cert(`${at}.${role}.tlsCert`, r?.tlsCertPem);
      if (role === 'batcher' || role === 'consenter') cert(`${at}.${role}.signCert`, r?.signCertPem);
    }
  }
  if (issues.length) throw new ValidationError(`Cannot build the genesis block of ledgerX channel "${channel}": ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, issues);
}

/** fabric-x-common's FabricMSPConfig = Fabric's plus known_certs (field 12), appended in field order. */
function mspValue(p: LedgerXGenesisParty): common.ConfigValue {
  const config = mspConfig({ mspId: p.mspId, signCaCertPem: p.signCaCertPem, tlsCaCertPem: p.tlsCaCertPem, adminCertPem: '' });
  const known = new BinaryWriter();
  for (const pem of p.knownCertPems ?? []) known.writeBytes(12, Buffer.from(pem));
  config.setConfig(Buffer.concat([config.getConfig_asU8(), known.getResultBuffer()]));
  return configValue(config);
}

function consenterMapping(parties: LedgerXGenesisParty[]): common.Orderers {
  const orderers = new common.Orderers();
  orderers.setConsenterMappingList(parties.map((p) => {
    const c = new common.Consenter();
    c.setId(p.partyId);
    c.setHost(p.consenter.host);
    c.setPort(p.consenter.port);
    c.setMspId(p.mspId);
    c.setIdentity(Buffer.from(p.consenter.signCertPem));
    c.setClientTlsCert(Buffer.from(p.consenter.tlsCertPem));
    c.setServerTlsCert(Buffer.from(p.consenter.tlsCertPem));
    return c;
  }));
  return orderers;
}

/** fabric-x-common's BFT block verification policy: a quorum of the consenters' identities. */
function blockValidationPolicy(parties: LedgerXGenesisParty[]): common.ConfigPolicy {
  const n = parties.length;
  const f = Math.floor((n - 1) / 3);
  const quorum = Math.ceil((n + f + 1) / 2);
  // fabric-x-common's msppb.Identity {msp_id = 1, certificate = 2} has the wire layout of Fabric's
  // SerializedIdentity: the same policy as a Fabric 3 BFT channel's.
  return bftBlockValidationPolicy(parties.map((p) => ({ mspId: p.mspId, identityCertPem: p.consenter.signCertPem })), quorum);
}

function armaConsensus(req: LedgerXGenesisRequest): common.ConfigValue {
  const settings = req.settings ?? resolveLedgerXConsensus();
  const metadata = encodeArmaSharedConfig({
    parties: req.parties.map((p) => ({
      partyId: p.partyId,
      caCertPems: [p.signCaCertPem],
      tlsCaCertPems: [p.tlsCaCertPem],
      router: p.router,
      batchers: [{ ...p.batcher, shardId: 1 }],
      consenter: p.consenter,
      assembler: p.assembler,
    })),
    settings,
    maxPartyId: Math.max(...req.parties.map((p) => p.partyId)),
  });
  const message = new orderer.ConsensusType();
  message.setType('arma');
  message.setMetadata(metadata);
  message.setState(orderer.ConsensusType.State.STATE_NORMAL);
  return configValue(message);
}

/** The channel's config tree (for tests; buildLedgerXGenesis wraps it in block 0). */
export function ledgerXChannelGroup(req: LedgerXGenesisRequest): common.ConfigGroup {
  checkParties(req.channel, req.parties);
  const byOrg = new Map<string, LedgerXGenesisParty[]>();
  for (const p of req.parties) byOrg.set(p.mspId, [...(byOrg.get(p.mspId) ?? []), p]);
  const orgPolicies = (id: string) => ({
    Readers: signature(`OR('${id}.member')`),
    Writers: signature(`OR('${id}.member')`),
    Admins: signature(`OR('${id}.admin')`),
    Endorsement: signature(`OR('${id}.member')`),
  });
  const ordererOrgs = Object.fromEntries([...byOrg].map(([id, parties]) => [id, configGroup({
    values: {
      MSP: mspValue(parties[0]),
      Endpoints: configValue(ordererAddresses(parties.flatMap((p) => [`id=${p.partyId},msp-id=${id},broadcast,${p.router.host}:${p.router.port}`, `id=${p.partyId},msp-id=${id},deliver,${p.assembler.host}:${p.assembler.port}`]))),
    },
    policies: orgPolicies(id),
  })]));
  const applicationOrgs = Object.fromEntries([...byOrg].map(([id, parties]) => [id, configGroup({ values: { MSP: mspValue(parties[0]) }, policies: orgPolicies(id) })]));
  const ordererGroup = configGroup({
    values: {
      BatchSize: configValue(batchSize({ maxMessageCount: 500, absoluteMaxBytes: 10 * 1024 * 1024, preferredMaxBytes: 2 * 1024 * 1024, batchTimeout: '2s' })),
      BatchTimeout: configValue(batchTimeout('2s')),
      ChannelRestrictions: configValue(channelRestrictions()),
      ConsensusType: armaConsensus(req),
      Orderers: configValue(consenterMapping(req.parties)),
      Capabilities: configValue(capabilities(['V2_0'])),
    },
    policies: { ...standardPolicies(), BlockValidation: blockValidationPolicy(req.parties) },
    groups: ordererOrgs,
  });
  const applicationGroup = configGroup({
    values: { Capabilities: configValue(capabilities(['V2_0'])) },
    policies: { ...standardPolicies(), LifecycleEndorsement: implicit('MAJORITY Endorsement'), Endorsement: implicit('MAJORITY Endorsement') },
    groups: applicationOrgs,
  });
  return configGroup({
    values: {
      HashingAlgorithm: configValue(hashingAlgorithm()),
      BlockDataHashingStructure: configValue(blockDataHashingStructure()),
      Capabilities: configValue(capabilities(['V3_0'])),
    },
    policies: standardPolicies(),
    groups: { Orderer: ordererGroup, Application: applicationGroup },
  });
}

/**
 * fabric-x-common's protoutil.ComputeBlockDataHash: SHA-256 over each entry preceded by its
 * length (4 bytes, big-endian), where Fabric 2.5 hashes the bare concatenation. Arma's
 * consenters compute block 1's previous hash from it, and its assemblers refuse a block 0
 * whose header says otherwise.
 */
export function fabricXBlockDataHash(data: Uint8Array[]): Uint8Array {
  const hash = createHash('sha256');
  const size = Buffer.alloc(4);
  for (const entry of data) {
    size.writeUInt32BE(entry.length);
    hash.update(size);
    hash.update(entry);
  }
  return hash.digest();
}

export function buildLedgerXGenesis(req: LedgerXGenesisRequest): Uint8Array {
  // Fabric-X's configtxgen: channel header version 1, only the SIGNATURES metadata slot, its data hash.
  return genesisBlockOf(req.channel, ledgerXChannelGroup(req), { headerVersion: 1, lastConfigSlot: false, dataHash: fabricXBlockDataHash });
}
