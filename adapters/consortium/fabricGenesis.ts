// Block 0 of a channel for the channel participation API (no system channel), built as
// configtxgen builds it: one CONFIG envelope (unsigned) holding the whole config tree, data hash
// = SHA-256 over the data entries, LAST_CONFIG and SIGNATURES metadata pointing at block 0.
//   buildChannelGenesisBlock(input) -> Uint8Array (common.Block)
//   genesisBlockOf(channel, group, {headerVersion, lastConfigSlot}) -> the block of any config tree (ledgerX too)
//   channelGroupOf(input)           -> common.ConfigGroup (the tree, for tests and imports)
// A BFT channel (input.smartBft, Fabric 3.x): Orderer type BFT with every SmartBFT option, the
// Orderers value (ConsenterMapping: id, host, port, MSP id, identity, client and server TLS
// certificates), BlockValidation by a quorum of the consenters' own signatures, channel
// capability V3_0 and no global orderer addresses (the organizations' Endpoints only), as
// Fabric 3.1's configtxgen writes it.
// Defaults are configtx.yaml's: capabilities V2_0 (channel, orderer) and V2_5 (application),
// ImplicitMeta Readers/Writers ANY, Admins MAJORITY, BlockValidation ANY Writers, application
// LifecycleEndorsement/Endorsement MAJORITY Endorsement, etcdraft options, default ACLs.
import { createHash, randomBytes } from 'node:crypto';
import { common } from '@hyperledger/fabric-protos';
import type { ChannelGenesisInput, ChannelPolicy } from '../../domain/consortium/consortiumPorts.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { configGroup, ordererOrganizationGroup, peerOrganizationGroup } from './channelConfigGroups.ts';
import { bftBlockValidationPolicy, configPolicy } from './channelConfigPolicies.ts';
import { bftQuorum, MIN_BFT_CONSENTERS } from '../../domain/consortium/consortiumDefaults.ts';
import {
  acls,
  batchSize,
  batchTimeout,
  blockDataHashingStructure,
  capabilities,
  channelRestrictions,
  configValue,
  defaultAcls,
  etcdraftConsensus,
  hashingAlgorithm,
  orderersValue,
  smartBftConsensus,
} from './channelConfigValues.ts';
import { channelHeader, signatureHeader } from './fabricSigningEnvelope.ts';

const implicit = (rule: string): ChannelPolicy => ({ type: 'ImplicitMeta', rule });
const standardPolicies = { Readers: implicit('ANY Readers'), Writers: implicit('ANY Writers'), Admins: implicit('MAJORITY Admins') };

function policiesOf(entries: Record<string, ChannelPolicy>): Record<string, common.ConfigPolicy> {
  return Object.fromEntries(Object.entries(entries).map(([name, p]) => [name, configPolicy(p)]));
}

/** Fabric's channel name rule (configtx.ValidateChannelID). */
export function channelNameProblem(name: string): string | null {
  if (name.length === 0 || name.length > 249) return 'must be 1 to 249 characters';
  if (!/^[a-z][a-z0-9.-]*$/.test(name)) return 'must start with a lower-case letter and hold only a-z, 0-9, "." and "-"';
  return null;
}

function validate(input: ChannelGenesisInput): void {
  const issues: { field: string; message: string }[] = [];
  const nameProblem = channelNameProblem(input.channelName);
  if (nameProblem) issues.push({ field: 'channelName', message: nameProblem });
  if (input.peerOrganizations.length === 0) issues.push({ field: 'peerOrganizations', message: 'at least one organization with peers' });
  if (input.ordererOrganizations.length === 0) issues.push({ field: 'ordererOrganizations', message: 'at least one organization with orderers' });
  if (input.smartBft) {
    const n = input.smartBft.consenters.length;
    if (n < MIN_BFT_CONSENTERS) issues.push({ field: 'consenters', message: `SmartBFT needs at least ${MIN_BFT_CONSENTERS} consenters to tolerate one faulty orderer (f = floor((n - 1) / 3)); ${n} tolerate none` });
    const ids = input.smartBft.consenters.map((c) => c.id);
    if (new Set(ids).size !== ids.length || ids.some((id) => !Number.isInteger(id) || id < 1)) issues.push({ field: 'consenters', message: 'SmartBFT consenter ids must be distinct integers from 1' });
  } else if (input.consenters.length === 0) issues.push({ field: 'consenters', message: 'at least one raft consenter' });
  for (const [field, orgs] of [['peerOrganizations', input.peerOrganizations], ['ordererOrganizations', input.ordererOrganizations]] as const) {
    const ids = orgs.map((o) => o.mspId);
    const twice = ids.filter((id, i) => ids.indexOf(id) !== i);
    if (twice.length) issues.push({ field, message: `MSP id listed twice: ${[...new Set(twice)].join(', ')}` });
  }
  if (issues.length) throw new ValidationError(`Cannot build the genesis block of channel "${input.channelName}": ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`, issues);
}

export function channelGroupOf(input: ChannelGenesisInput): common.ConfigGroup {
  validate(input);
  const bft = input.smartBft;
  const ordererGroup = configGroup({
    values: {
      BatchSize: configValue(batchSize(input.batch)),
      BatchTimeout: configValue(batchTimeout(input.batch.batchTimeout)),
      ChannelRestrictions: configValue(channelRestrictions()),
      ConsensusType: configValue(bft ? smartBftConsensus(bft.options) : etcdraftConsensus(input.consenters)),
      ...(bft ? { Orderers: configValue(orderersValue(bft.consenters)) } : {}),
      Capabilities: configValue(capabilities(['V2_0'])),
    },
    policies: {
      ...policiesOf({ ...standardPolicies, BlockValidation: implicit('ANY Writers') }),
      ...(bft ? { BlockValidation: bftBlockValidationPolicy(bft.consenters, bftQuorum(bft.consenters.length)) } : {}),
    },
    groups: Object.fromEntries(input.ordererOrganizations.map((org) => [org.mspId, ordererOrganizationGroup(org)])),
  });
  const applicationGroup = configGroup({
    values: { ACLs: configValue(acls(defaultAcls)), Capabilities: configValue(capabilities(['V2_5'])) },
    policies: policiesOf({ ...standardPolicies, LifecycleEndorsement: implicit('MAJORITY Endorsement'), Endorsement: implicit('MAJORITY Endorsement') }),
    groups: Object.fromEntries(input.peerOrganizations.map((org) => [org.mspId, peerOrganizationGroup(org)])),
  });
  return configGroup({
    values: {
      HashingAlgorithm: configValue(hashingAlgorithm()),
      BlockDataHashingStructure: configValue(blockDataHashingStructure()),
      Capabilities: configValue(capabilities([bft ? 'V3_0' : 'V2_0'])),
    },
    policies: policiesOf({ ...standardPolicies, ...(input.policies ?? {}) }),
    groups: { Orderer: ordererGroup, Application: applicationGroup },
  });
}

export function blockDataHash(data: Uint8Array[]): Uint8Array {
  const hash = createHash('sha256');
  for (const entry of data) hash.update(entry);
  return hash.digest();
}

function metadataWithLastConfig(index: number): Uint8Array {
  const lastConfig = new common.LastConfig();
  lastConfig.setIndex(index);
  const metadata = new common.Metadata();
  metadata.setValue(lastConfig.serializeBinary());
  return metadata.serializeBinary();
}

function signaturesMetadata(lastConfigIndex: number): Uint8Array {
  const lastConfig = new common.LastConfig();
  lastConfig.setIndex(lastConfigIndex);
  const ordererMetadata = new common.OrdererBlockMetadata();
  ordererMetadata.setLastConfig(lastConfig);
  const metadata = new common.Metadata();
  metadata.setValue(ordererMetadata.serializeBinary());
  return metadata.serializeBinary();
}

export function buildChannelGenesisBlock(input: ChannelGenesisInput): Uint8Array {
  return genesisBlockOf(input.channelName, channelGroupOf(input));
}

export interface GenesisBlockOptions {
  /** The channel header's version: 0 as Fabric 2.5's configtxgen writes it, 1 for Fabric-X's. */
  headerVersion?: number;
  /** The older LAST_CONFIG metadata slot (Fabric 2.5 writes it; Fabric-X's configtxgen leaves it empty). */
  lastConfigSlot?: boolean;
  /** The header's data hash over the data entries: Fabric 2.5's (blockDataHash) unless given. */
  dataHash?: (data: Uint8Array[]) => Uint8Array;
}

/** Block 0 holding one unsigned CONFIG envelope of the given config tree (any platform's). */
export function genesisBlockOf(channelName: string, channelGroup: common.ConfigGroup, options: GenesisBlockOptions = {}): Uint8Array {
  const config = new common.Config();
  config.setSequence(0);
  config.setChannelGroup(channelGroup);
  const configEnvelope = new common.ConfigEnvelope();
  configEnvelope.setConfig(config);

  // configtxgen's genesis envelope: no creator, a random nonce, tx id from both, no signature.
  const nonce = randomBytes(24);
  const ctx = { nonce, creator: new Uint8Array(), txId: createHash('sha256').update(nonce).digest('hex') };
  const header = new common.Header();
  const chHeader = channelHeader(common.HeaderType.CONFIG, channelName, ctx.txId);
  if (options.headerVersion) chHeader.setVersion(options.headerVersion);
  header.setChannelHeader(chHeader.serializeBinary());
  header.setSignatureHeader(signatureHeader(ctx).serializeBinary());
  const payload = new common.Payload();
  payload.setHeader(header);
  payload.setData(configEnvelope.serializeBinary());
  const envelope = new common.Envelope();
  envelope.setPayload(payload.serializeBinary());
  const data = [envelope.serializeBinary()];

  const blockHeader = new common.BlockHeader();
  blockHeader.setNumber(0);
  blockHeader.setDataHash((options.dataHash ?? blockDataHash)(data));
  const blockData = new common.BlockData();
  blockData.setDataList(data);
  const metadata = new common.BlockMetadata();
  // One slot per BlockMetadataIndex (SIGNATURES, LAST_CONFIG, TRANSACTIONS_FILTER, ORDERER, COMMIT_HASH).
  const lastConfig = options.lastConfigSlot === false ? new Uint8Array() : metadataWithLastConfig(0);
  const slots: Uint8Array[] = [signaturesMetadata(0), lastConfig, new Uint8Array(), new Uint8Array(), new Uint8Array()];
  metadata.setMetadataList(slots);
  const block = new common.Block();
  block.setHeader(blockHeader);
  block.setData(blockData);
  block.setMetadata(metadata);
  return block.serializeBinary();
}
