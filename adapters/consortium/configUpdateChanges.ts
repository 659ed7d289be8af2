// Desired channel configs derived from the current one; each returns a new common.Config and
// leaves its input untouched. configUpdateCompute.ts turns (current, desired) into the update.
//   withAnchorPeers(config, mspId, anchors)   sets (or, given none, removes) an org's AnchorPeers
//   withOrganization(config, org)             adds an application organization (kept if present)
//   withoutOrganization(config, mspId)        removes an application organization
//   withPolicies(config, policies, group = ['Application'])  sets policies of a group
//   withAcls(config, acls)                    sets Application ACLs per resource (others kept)
//   withBatch(config, batch)                  sets the orderer's BatchTimeout / BatchSize (others kept)
//   withRevocationList(config, mspId, crls)   sets an org's MSP revocation_list wherever it is defined
//   withConsenterAdded(config, consenter, mspId, identity?)  adds an etcdraft or BFT consenter and its endpoint
//   withConsenterRemoved(config, host, port, mspId?)  removes one (and its endpoint)
//   withConsenterCertificate(config, consenter, identity?)   replaces one's TLS certificates (same host:port; BFT: identity too)
//     (BFT: the ConsenterMapping changes and BlockValidation is recomputed in the same update)
//   withSmartBftOptions(config, options)      sets a BFT channel's SmartBFT options (others kept)
//   withRaftOptions(config, options)          sets an etcdraft channel's options (others and the consenters kept)
//   withMspUpdate(config, mspId, update)      adds CAs to an org's MSP (wherever defined), sets its admins
//   withOrdererEndpoints(config, mspId, endpoints)  sets an orderer organization's Endpoints
//   withoutOrdererOrganization(config, mspId) removes an orderer organization (BFT: BlockValidation recomputed)
//   withCapabilities(config, capabilities)    sets the Capabilities of /Channel, /Channel/Orderer, /Channel/Application
//   withConsensusState(config, state)         sets the ConsensusType's State alone (maintenance / normal)
//   withBftMigration(config, options, identities)  an etcdraft channel in maintenance switched to BFT (same consenters)
//   applyChange(config, change | changes)     ChannelConfigChanges of the port, in order
import { common, msp, orderer, peer } from '@hyperledger/fabric-protos';
import { AsnConvert } from '@peculiar/asn1-schema';
import { AuthorityKeyIdentifier, CRLNumber, CertificateList, id_ce_authorityKeyIdentifier, id_ce_cRLNumber } from '@peculiar/asn1-x509';
import type { ChannelConfigChange, MspUpdate } from '../../domain/consortium/consortiumChannelPorts.ts';
import { CAPABILITY_LEVELS, type ChannelCapabilities } from '../../domain/consortium/capabilityRules.ts';
import type { ChannelBatchSettings, ChannelOrganization, ChannelPolicy, OrdererOrganization, RaftConsenter, RaftOptions, SmartBftOptions } from '../../domain/consortium/consortiumPorts.ts';
import { bftQuorum } from '../../domain/consortium/consortiumDefaults.ts';
import { smartBftOptionIssues } from '../../domain/consortium/smartBftOptions.ts';
import { raftOptionIssues } from '../../domain/consortium/raftOptions.ts';
import { ValidationError } from '../../domain/shared/errors.ts';
import { ordererOrganizationGroup, peerOrganizationGroup } from './channelConfigGroups.ts';
import { bftBlockValidationPolicy, configPolicy } from './channelConfigPolicies.ts';
import { acls as aclsMessage, anchorPeersMessage, batchSize, batchTimeout, bftConsenterMessage, capabilities as capabilitiesMessage, configValue, ordererAddresses, raftConsenterMessage, smartBftOptionsMessage, smartBftOptionsOf } from './channelConfigValues.ts';

function cloneConfig(config: common.Config): common.Config {
  return common.Config.deserializeBinary(config.serializeBinary());
}

function subGroup(config: common.Config, path: string[]): common.ConfigGroup {
  let group = config.getChannelGroup();
  for (const name of path) {
    group = group?.getGroupsMap().get(name);
    if (!group) throw new ValidationError(`The channel config has no group /Channel/${path.join('/')}.`, [{ field: 'group', message: `no /Channel/${path.join('/')}` }]);
  }
  return group!;
}

function application(config: common.Config): common.ConfigGroup {
  return subGroup(config, ['Application']);
}

export function withAnchorPeers(config: common.Config, mspId: string, anchors: { host: string; port: number }[]): common.Config {
  const desired = cloneConfig(config);
  const org = application(desired).getGroupsMap().get(mspId);
  if (!org) throw new ValidationError(`Organization ${mspId} is not an application organization of the channel.`, [{ field: 'organizationId', message: `${mspId} is not in the channel` }]);
  if (anchors.length === 0) org.getValuesMap().del('AnchorPeers');
  else {
    const modPolicy = org.getValuesMap().get('AnchorPeers')?.getModPolicy() || 'Admins';
    org.getValuesMap().set('AnchorPeers', configValue(anchorPeersMessage(anchors), modPolicy));
  }
  return desired;
}

export function withOrganization(config: common.Config, organization: ChannelOrganization): common.Config {
  const desired = cloneConfig(config);
  const orgs = application(desired).getGroupsMap();
  if (!orgs.has(organization.mspId)) orgs.set(organization.mspId, peerOrganizationGroup(organization));
  return desired;
}

export function withoutOrganization(config: common.Config, mspId: string): common.Config {
  const desired = cloneConfig(config);
  application(desired).getGroupsMap().del(mspId);
  return desired;
}

export function withPolicies(config: common.Config, policies: Record<string, ChannelPolicy>, groupPath: string[] = ['Application']): common.Config {
  const desired = cloneConfig(config);
  const target = groupPath.length ? subGroup(desired, groupPath) : desired.getChannelGroup()!;
  for (const [name, policy] of Object.entries(policies)) {
    const modPolicy = target.getPoliciesMap().get(name)?.getModPolicy() || 'Admins';
    target.getPoliciesMap().set(name, configPolicy(policy, modPolicy));
  }
  return desired;
}

/** The Application group's ACLs: the given resources set to their policy references, the others kept. */
export function withAcls(config: common.Config, entries: Record<string, string>): common.Config {
  const desired = cloneConfig(config);
  const values = application(desired).getValuesMap();
  const value = values.get('ACLs');
  const now = value ? peer.ACLs.deserializeBinary(value.getValue_asU8()).getAclsMap() : null;
  const merged: Record<string, string> = {};
  now?.forEach((v, k) => (merged[k] = v.getPolicyRef()));
  Object.assign(merged, entries);
  values.set('ACLs', configValue(aclsMessage(merged), value?.getModPolicy() || 'Admins'));
  return desired;
}

/** The Orderer group's batch settings: the given ones set, the others kept as the channel has them. */
export function withBatch(config: common.Config, batch: Partial<ChannelBatchSettings>): common.Config {
  const desired = cloneConfig(config);
  const values = subGroup(desired, ['Orderer']).getValuesMap();
  const modPolicy = (name: string) => values.get(name)?.getModPolicy() || 'Admins';
  if (batch.batchTimeout !== undefined) values.set('BatchTimeout', configValue(batchTimeout(batch.batchTimeout), modPolicy('BatchTimeout')));
  if (batch.maxMessageCount !== undefined || batch.absoluteMaxBytes !== undefined || batch.preferredMaxBytes !== undefined) {
    const raw = values.get('BatchSize')?.getValue_asU8();
    const now = raw ? orderer.BatchSize.deserializeBinary(raw) : new orderer.BatchSize();
    const next = {
      batchTimeout: '',
      maxMessageCount: batch.maxMessageCount ?? now.getMaxMessageCount(),
      absoluteMaxBytes: batch.absoluteMaxBytes ?? now.getAbsoluteMaxBytes(),
      preferredMaxBytes: batch.preferredMaxBytes ?? now.getPreferredMaxBytes(),
    };
    if (next.preferredMaxBytes > next.absoluteMaxBytes) {
      throw new ValidationError(`The preferred batch size (${next.preferredMaxBytes} bytes) must not exceed the absolute maximum (${next.absoluteMaxBytes} bytes).`, [{ field: 'batch.preferredMaxBytes', message: 'greater than absoluteMaxBytes' }]);
    }
    values.set('BatchSize', configValue(batchSize(next), modPolicy('BatchSize')));
  }
  return desired;
}

/** Which CRL a PEM is: its issuer's key identifier and its CRL number (null when it has not both). The same pair means the same CRL content. */
function crlIdentity(pem: string | Uint8Array): string | null {
  try {
    const text = typeof pem === 'string' ? pem : Buffer.from(pem).toString('utf8');
    const crl = AsnConvert.parse(Buffer.from(text.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64'), CertificateList);
    const extensions = crl.tbsCertList.crlExtensions ?? [];
    const number = extensions.find((e) => e.extnID === id_ce_cRLNumber);
    const aki = extensions.find((e) => e.extnID === id_ce_authorityKeyIdentifier);
    const keyId = aki ? AsnConvert.parse(aki.extnValue.buffer, AuthorityKeyIdentifier).keyIdentifier : undefined;
    if (!number || !keyId) return null;
    return `${Buffer.from(keyId.buffer).toString('hex')}#${AsnConvert.parse(number.extnValue.buffer, CRLNumber).value}`;
  } catch {
    return null;
  }
}

/**
 * The organization's MSP with `crlPems` as its revocation_list (replacing the CRLs it had), in
 * the Application and Orderer groups that define it: peers and orderers then refuse the
 * certificates the CRLs list. The rest of the MSP (roots, NodeOUs, admins) is kept byte for byte;
 * CRLs with the issuer and numbers of those already there are not written again (unchanged).
 */
export function withRevocationList(config: common.Config, mspId: string, crlPems: string[]): common.Config {
  const desired = cloneConfig(config);
  let found = 0;
  for (const section of ['Application', 'Orderer']) {
    const org = desired.getChannelGroup()?.getGroupsMap().get(section)?.getGroupsMap().get(mspId);
    const value = org?.getValuesMap().get('MSP');
    if (!org || !value) continue;
    const mspConfig = msp.MSPConfig.deserializeBinary(value.getValue_asU8());
    if (mspConfig.getType() !== 0) throw new ValidationError(`The MSP of ${mspId} is not an X.509 (FABRIC) MSP; it has no revocation list.`, [{ field: 'organizationId', message: 'not a FABRIC MSP' }]);
    const fabric = msp.FabricMSPConfig.deserializeBinary(mspConfig.getConfig_asU8());
    found++;
    // The same CRLs (issuer and CRL number) already there: kept as they are, so pushing again changes nothing.
    const current = fabric.getRevocationListList_asU8();
    const same = current.length === crlPems.length && crlPems.every((p, i) => {
      const id = crlIdentity(p);
      return id !== null && id === crlIdentity(current[i]);
    });
    if (same) continue;
    fabric.setRevocationListList(crlPems.map((p) => Buffer.from(p)));
    mspConfig.setConfig(fabric.serializeBinary());
    org.getValuesMap().set('MSP', configValue(mspConfig, value.getModPolicy() || 'Admins'));
  }
  if (!found) throw new ValidationError(`Organization ${mspId} is not an organization of the channel.`, [{ field: 'organizationId', message: `${mspId} is not in the channel` }]);
  return desired;
}

/** The Orderer group's ConsensusType, with its type (etcdraft or BFT). */
function consensusOf(config: common.Config): { values: ReturnType<common.ConfigGroup['getValuesMap']>; value: common.ConfigValue; consensus: orderer.ConsensusType } {
  const values = subGroup(config, ['Orderer']).getValuesMap();
  const value = values.get('ConsensusType');
  const consensus = value ? orderer.ConsensusType.deserializeBinary(value.getValue_asU8()) : null;
  const type = consensus?.getType() || 'unknown';
  if (!value || !consensus || (type !== 'etcdraft' && type !== 'BFT')) {
    throw new ValidationError(`The channel's consensus is ${type}: consenter changes here are for etcdraft and BFT channels.`, [{ field: 'consensus', message: `not etcdraft or BFT: ${type}` }]);
  }
  return { values, value, consensus };
}

/** A consenter of either kind: what the edits below read and write. */
interface ConsenterEntry {
  host: string;
  port: number;
  bft: common.Consenter | null;
  raft: orderer.etcdraft.Consenter | null;
}

/**
 * The channel's consenters changed by `edit`, whatever its consensus: etcdraft's metadata
 * consenters (the ConsensusType's other fields kept), or a BFT channel's ConsenterMapping (the
 * Orderers value) with the BlockValidation policy recomputed for the new set in the same update,
 * as Fabric 3.1's ConfigBlockValidator requires (NOutOf ComputeBFTQuorum(n, f) of the consenters'
 * identities, in ConsenterMapping order; any other policy fails the update).
 */
function withConsenters(config: common.Config, edit: (consenters: ConsenterEntry[], bft: boolean) => ConsenterEntry[]): common.Config {
  const desired = cloneConfig(config);
  const { values, value, consensus } = consensusOf(desired);
  if (consensus.getType() === 'etcdraft') {
    const metadata = orderer.etcdraft.ConfigMetadata.deserializeBinary(consensus.getMetadata_asU8());
    const entries = metadata.getConsentersList().map((c) => ({ host: c.getHost(), port: c.getPort(), bft: null, raft: c }));
    metadata.setConsentersList(edit(entries, false).map((e) => e.raft!));
    consensus.setMetadata(metadata.serializeBinary());
    values.set('ConsensusType', configValue(consensus, value.getModPolicy() || 'Admins'));
    return desired;
  }
  const orderersValue = values.get('Orderers');
  if (!orderersValue) throw new ValidationError('The BFT channel has no Orderers value (ConsenterMapping).', [{ field: 'consensus', message: 'no /Channel/Orderer/Orderers' }]);
  const orderers = common.Orderers.deserializeBinary(orderersValue.getValue_asU8());
  const entries = orderers.getConsenterMappingList().map((c) => ({ host: c.getHost(), port: c.getPort(), bft: c, raft: null }));
  const next = edit(entries, true).map((e) => e.bft!);
  orderers.setConsenterMappingList(next);
  values.set('Orderers', configValue(orderers, orderersValue.getModPolicy() || 'Admins'));
  const policies = subGroup(desired, ['Orderer']).getPoliciesMap();
  const identities = next.map((c) => ({ mspId: c.getMspId(), identityCertPem: Buffer.from(c.getIdentity_asU8()).toString('utf8') }));
  policies.set('BlockValidation', bftBlockValidationPolicy(identities, bftQuorum(next.length), policies.get('BlockValidation')?.getModPolicy() || 'Admins'));
  return desired;
}

/** The entry for `c` in a channel of that kind: a BFT one needs its MSP id, identity and SmartBFT id. */
function consenterEntry(c: RaftConsenter, bft: { id: number; mspId: string; identityCertPem?: string } | null): ConsenterEntry {
  if (!bft) return { host: c.host, port: c.port, bft: null, raft: raftConsenterMessage(c) };
  if (!bft.identityCertPem) throw new ValidationError(`A BFT consenter needs its identity certificate (${c.host}:${c.port}).`, [{ field: 'nodeId', message: 'no identity certificate' }]);
  return { host: c.host, port: c.port, raft: null, bft: bftConsenterMessage({ ...c, id: bft.id, mspId: bft.mspId, identityCertPem: bft.identityCertPem }) };
}

/** An orderer organization's Endpoints with `endpoint` added or removed (a group without Endpoints is left alone). */
function withOrdererEndpoint(config: common.Config, mspId: string, endpoint: string, present: boolean): common.Config {
  const org = subGroup(config, ['Orderer']).getGroupsMap().get(mspId);
  const value = org?.getValuesMap().get('Endpoints');
  if (!org || !value) return config;
  const now = common.OrdererAddresses.deserializeBinary(value.getValue_asU8()).getAddressesList();
  const next = present ? (now.includes(endpoint) ? now : [...now, endpoint]) : now.filter((a) => a !== endpoint);
  if (next.length === 0) return config;
  org.getValuesMap().set('Endpoints', configValue(ordererAddresses(next), value.getModPolicy() || 'Admins'));
  return config;
}

export function withConsenterAdded(config: common.Config, consenter: RaftConsenter, mspId: string, identityCertPem?: string): common.Config {
  const desired = withConsenters(config, (list, bft) => {
    if (list.some((c) => c.host === consenter.host && c.port === consenter.port)) return list;
    // A BFT id is never reused: the next one above every id the set has.
    const id = bft ? Math.max(0, ...list.map((c) => c.bft!.getId())) + 1 : 0;
    return [...list, consenterEntry(consenter, bft ? { id, mspId, identityCertPem } : null)];
  });
  return withOrdererEndpoint(desired, mspId, `${consenter.host}:${consenter.port}`, true);
}

export function withConsenterRemoved(config: common.Config, host: string, port: number, mspId?: string): common.Config {
  const desired = withConsenters(config, (list) => list.filter((c) => !(c.host === host && c.port === port)));
  return mspId ? withOrdererEndpoint(desired, mspId, `${host}:${port}`, false) : desired;
}

export function withConsenterCertificate(config: common.Config, consenter: RaftConsenter, identityCertPem?: string): common.Config {
  return withConsenters(config, (list, bft) =>
    list.map((c) => {
      if (c.host !== consenter.host || c.port !== consenter.port) return c;
      if (!bft) return consenterEntry(consenter, null);
      const identity = identityCertPem ?? Buffer.from(c.bft!.getIdentity_asU8()).toString('utf8');
      return consenterEntry(consenter, { id: c.bft!.getId(), mspId: c.bft!.getMspId(), identityCertPem: identity });
    }),
  );
}

/** How one consensus type's options live in the ConsensusType metadata: read, checked and written back. */
interface ConsensusOptionsCodec<T> {
  type: 'BFT' | 'etcdraft';
  field: 'smartBftOptions' | 'raftOptions';
  label: string;
  read(metadata: Uint8Array): T;
  issues(next: T): { field: string; message: string }[];
  write(next: T, metadata: Uint8Array): Uint8Array;
}

const smartBftCodec: ConsensusOptionsCodec<SmartBftOptions> = {
  type: 'BFT', field: 'smartBftOptions', label: 'SmartBFT options',
  read: (m) => smartBftOptionsOf(orderer.smartbft.Options.deserializeBinary(m)),
  issues: smartBftOptionIssues,
  write: (next, m) => smartBftOptionsMessage(next, orderer.smartbft.Options.deserializeBinary(m)).serializeBinary(),
};

const raftCodec: ConsensusOptionsCodec<RaftOptions> = {
  type: 'etcdraft', field: 'raftOptions', label: 'etcdraft options',
  read: (m) => {
    const o = orderer.etcdraft.ConfigMetadata.deserializeBinary(m).getOptions() ?? new orderer.etcdraft.Options();
    return { tickInterval: o.getTickInterval(), electionTick: o.getElectionTick(), heartbeatTick: o.getHeartbeatTick(), maxInflightBlocks: o.getMaxInflightBlocks(), snapshotIntervalSize: o.getSnapshotIntervalSize() };
  },
  issues: raftOptionIssues,
  write: (next, m) => {
    const metadata = orderer.etcdraft.ConfigMetadata.deserializeBinary(m);
    const o = metadata.getOptions() ?? new orderer.etcdraft.Options();
    o.setTickInterval(next.tickInterval);
    o.setElectionTick(next.electionTick);
    o.setHeartbeatTick(next.heartbeatTick);
    o.setMaxInflightBlocks(next.maxInflightBlocks);
    o.setSnapshotIntervalSize(next.snapshotIntervalSize);
    metadata.setOptions(o);
    return metadata.serializeBinary();
  },
};

/** A channel's consensus options: those given set, the others (and an etcdraft channel's consenters) kept; refused, naming the field, when the channel has another consensus or the result is not what Fabric accepts (checked as at creation). */
function withConsensusOptions<T extends object>(config: common.Config, codec: ConsensusOptionsCodec<T>, options: Partial<T>): common.Config {
  const desired = cloneConfig(config);
  const { values, value, consensus } = consensusOf(desired);
  if (consensus.getType() !== codec.type) throw new ValidationError(`The channel's consensus is ${consensus.getType()}: ${codec.field} are the options of a${codec.type === 'BFT' ? ' BFT (smartbft)' : 'n etcdraft'} channel.`, [{ field: codec.field, message: `not a${codec.type === 'BFT' ? ' BFT' : 'n etcdraft'} channel: ${consensus.getType()}` }]);
  const metadata = consensus.getMetadata_asU8();
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const next = { ...codec.read(metadata), ...given } as T;
  const issues = codec.issues(next);
  if (issues.length) throw new ValidationError(`Invalid ${codec.label}: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}.`, issues);
  consensus.setMetadata(codec.write(next, metadata));
  values.set('ConsensusType', configValue(consensus, value.getModPolicy() || 'Admins'));
  return desired;
}

/** A BFT channel's SmartBFT options (see withConsensusOptions). */
export const withSmartBftOptions = (config: common.Config, options: Partial<SmartBftOptions>): common.Config => withConsensusOptions(config, smartBftCodec, options);

/** An etcdraft channel's options (see withConsensusOptions). */
export const withRaftOptions = (config: common.Config, options: Partial<RaftOptions>): common.Config => withConsensusOptions(config, raftCodec, options);

const samePem = (a: Uint8Array | string, b: string) => Buffer.from(typeof a === 'string' ? a : Buffer.from(a).toString('utf8')).toString().replace(/\s+/g, '') === b.replace(/\s+/g, '');

/**
 * The organization's MSP, in the Application and Orderer groups that define it, with the CA
 * certificates given added (those it has already kept once) and, given `admins`, its explicit
 * admin certificates set to them. A signing CA added (root or intermediate) also makes the NodeOU
 * identifiers CA-less: as written at creation they name the first root, and Fabric then classifies
 * (client, peer, admin, orderer) only identities whose chain is exactly that root's, so an
 * identity of the new CA would have no role; CA-less, an identity of any CA of the MSP has the role
 * its OU names (Fabric's NodeOUs `Certificate` left empty). Everything else is kept byte for byte.
 */
export function withMspUpdate(config: common.Config, mspId: string, update: MspUpdate): common.Config {
  const desired = cloneConfig(config);
  let found = 0;
  for (const section of ['Application', 'Orderer']) {
    const org = desired.getChannelGroup()?.getGroupsMap().get(section)?.getGroupsMap().get(mspId);
    const value = org?.getValuesMap().get('MSP');
    if (!org || !value) continue;
    const mspConfig = msp.MSPConfig.deserializeBinary(value.getValue_asU8());
    if (mspConfig.getType() !== 0) throw new ValidationError(`The MSP of ${mspId} is not an X.509 (FABRIC) MSP.`, [{ field: 'mspId', message: 'not a FABRIC MSP' }]);
    const fabric = msp.FabricMSPConfig.deserializeBinary(mspConfig.getConfig_asU8());
    found++;
    const before = fabric.serializeBinary();
    const add = (list: Uint8Array[], pems: string[] | undefined) => [...list, ...(pems ?? []).filter((p, i, all) => !list.some((c) => samePem(c, p)) && all.findIndex((q) => samePem(q, p)) === i).map((p) => Buffer.from(p))];
    fabric.setRootCertsList(add(fabric.getRootCertsList_asU8(), update.rootCerts));
    fabric.setIntermediateCertsList(add(fabric.getIntermediateCertsList_asU8(), update.intermediateCerts));
    fabric.setTlsRootCertsList(add(fabric.getTlsRootCertsList_asU8(), update.tlsRootCerts));
    fabric.setTlsIntermediateCertsList(add(fabric.getTlsIntermediateCertsList_asU8(), update.tlsIntermediateCerts));
    if ((update.rootCerts?.length || update.intermediateCerts?.length) && fabric.getFabricNodeOus()?.getEnable()) {
      const ous = fabric.getFabricNodeOus()!;
      for (const id of [ous.getClientOuIdentifier(), ous.getPeerOuIdentifier(), ous.getAdminOuIdentifier(), ous.getOrdererOuIdentifier()]) id?.setCertificate(new Uint8Array());
    }
    if (update.admins) fabric.setAdminsList(update.admins.map((p) => Buffer.from(p)));
    if (Buffer.from(fabric.serializeBinary()).equals(Buffer.from(before))) continue;
    mspConfig.setConfig(fabric.serializeBinary());
    org.getValuesMap().set('MSP', configValue(mspConfig, value.getModPolicy() || 'Admins'));
  }
  if (!found) throw new ValidationError(`Organization ${mspId} is not an organization of the channel.`, [{ field: 'mspId', message: `${mspId} is not in the channel` }]);
  return desired;
}

function ordererOrganization(config: common.Config, mspId: string): common.ConfigGroup {
  const org = subGroup(config, ['Orderer']).getGroupsMap().get(mspId);
  if (!org) throw new ValidationError(`Organization ${mspId} is not an orderer organization of the channel.`, [{ field: 'mspId', message: `${mspId} is not in /Channel/Orderer` }]);
  return org;
}

/** The orderer organization's Endpoints (OrdererEndpoints: where its orderers serve Broadcast and Deliver) set to `endpoints`. */
export function withOrdererEndpoints(config: common.Config, mspId: string, endpoints: string[]): common.Config {
  const desired = cloneConfig(config);
  const org = ordererOrganization(desired, mspId);
  const value = org.getValuesMap().get('Endpoints');
  const now = value ? common.OrdererAddresses.deserializeBinary(value.getValue_asU8()).getAddressesList() : null;
  if (now && now.length === endpoints.length && now.every((a, i) => a === endpoints[i])) return desired;
  org.getValuesMap().set('Endpoints', configValue(ordererAddresses(endpoints), value?.getModPolicy() || 'Admins'));
  return desired;
}

/**
 * The organization's group added to /Channel/Orderer (MSP, Endpoints, Readers/Writers/Admins as
 * configtxgen writes them); one already there is left as it is. BFT: BlockValidation recomputed
 * from the ConsenterMapping in the same update, as a consenter change does (the same bytes, so no
 * change, while the new organization holds no consenter). An organization that is also an
 * application organization keeps its MSP value byte for byte (Fabric refuses two different
 * definitions of one MSP in a channel).
 */
export function withOrdererOrganization(config: common.Config, organization: OrdererOrganization): common.Config {
  const desired = cloneConfig(config);
  const orgs = subGroup(desired, ['Orderer']).getGroupsMap();
  if (orgs.has(organization.mspId)) return desired;
  const group = ordererOrganizationGroup(organization);
  const asApplication = desired.getChannelGroup()?.getGroupsMap().get('Application')?.getGroupsMap().get(organization.mspId)?.getValuesMap().get('MSP');
  if (asApplication) group.getValuesMap().set('MSP', common.ConfigValue.deserializeBinary(asApplication.serializeBinary()));
  orgs.set(organization.mspId, group);
  return isBft(desired) ? withConsenters(desired, (list) => list) : desired;
}

/**
 * The orderer organization's group (its MSP, policies and Endpoints) removed from /Channel/Orderer.
 * BFT: BlockValidation recomputed from the ConsenterMapping in the same update, as a consenter
 * change does (the same bytes when it already is that policy, so no change then): it names no MSP
 * but those of the consenters, which the rules keep free of the leaving organization.
 */
export function withoutOrdererOrganization(config: common.Config, mspId: string): common.Config {
  const desired = cloneConfig(config);
  ordererOrganization(desired, mspId);
  subGroup(desired, ['Orderer']).getGroupsMap().del(mspId);
  return isBft(desired) ? withConsenters(desired, (list) => list) : desired;
}

/** Whether the channel's ConsensusType is BFT. */
function isBft(config: common.Config): boolean {
  const consensus = subGroup(config, ['Orderer']).getValuesMap().get('ConsensusType');
  return !!consensus && orderer.ConsensusType.deserializeBinary(consensus.getValue_asU8()).getType() === 'BFT';
}

const CAPABILITY_GROUP = { channel: [], orderer: ['Orderer'], application: ['Application'] } as const;

/**
 * The Capabilities value of each level asked set to that one capability (as configtxgen writes
 * it: one name per level); a level already at it is left byte for byte, so asking what the
 * channel has changes nothing. Whether the change is allowed (never lower; V3_0 only on 3.x
 * nodes) is domain/consortium/capabilityRules.ts's, checked before.
 */
export function withCapabilities(config: common.Config, asked: ChannelCapabilities): common.Config {
  const desired = cloneConfig(config);
  for (const level of CAPABILITY_LEVELS) {
    const name = asked[level];
    if (name === undefined) continue;
    const path = CAPABILITY_GROUP[level];
    const values = (path.length ? subGroup(desired, [...path]) : desired.getChannelGroup()!).getValuesMap();
    const value = values.get('Capabilities');
    const now = value ? common.Capabilities.deserializeBinary(value.getValue_asU8()).getCapabilitiesMap() : null;
    if (now && now.getLength() === 1 && now.has(name)) continue;
    values.set('Capabilities', configValue(capabilitiesMessage([name]), value?.getModPolicy() || 'Admins'));
  }
  return desired;
}

const STATES = { normal: orderer.ConsensusType.State.STATE_NORMAL, maintenance: orderer.ConsensusType.State.STATE_MAINTENANCE } as const;

/** The ConsensusType's State set, its type and metadata byte for byte as they are (Fabric's maintenance filter refuses anything else in the same update). */
export function withConsensusState(config: common.Config, state: 'normal' | 'maintenance'): common.Config {
  const desired = cloneConfig(config);
  const { values, value, consensus } = consensusOf(desired);
  if (consensus.getState() === STATES[state]) return desired;
  consensus.setState(STATES[state]);
  values.set('ConsensusType', configValue(consensus, value.getModPolicy() || 'Admins'));
  return desired;
}

/**
 * An etcdraft channel in maintenance switched to BFT in one update (Fabric 3.x raft_bft_migration:
 * phase 3): ConsensusType BFT with every SmartBFT option, state kept in maintenance; the Orderers
 * value's ConsenterMapping with the raft consenters (ids 1..n in the raft order; host, port and
 * TLS certificates byte for byte, which Fabric's validateBFTConsenterMapping compares; MSP id and
 * identity from `identities`); BlockValidation by a BFT quorum of those identities.
 */
export function withBftMigration(config: common.Config, options: SmartBftOptions, identities: Array<{ host: string; port: number; mspId: string; identityCertPem: string }>): common.Config {
  const desired = cloneConfig(config);
  const { values, value, consensus } = consensusOf(desired);
  // Switched already (a retried phase 3): unchanged.
  if (consensus.getType() === 'BFT' && consensus.getState() === orderer.ConsensusType.State.STATE_MAINTENANCE) return desired;
  if (consensus.getType() !== 'etcdraft') throw new ValidationError(`The channel's consensus is ${consensus.getType()}: only an etcdraft channel migrates to BFT.`, [{ field: 'to', message: `not etcdraft: ${consensus.getType()}` }]);
  if (consensus.getState() !== orderer.ConsensusType.State.STATE_MAINTENANCE) throw new ValidationError('The channel is not in maintenance: Fabric changes the consensus type only in maintenance.', [{ field: 'to', message: 'not in maintenance' }]);
  const issues = smartBftOptionIssues(options);
  if (issues.length) throw new ValidationError(`Invalid SmartBFT options: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}.`, issues);
  const raft = orderer.etcdraft.ConfigMetadata.deserializeBinary(consensus.getMetadata_asU8()).getConsentersList();
  const mapping = raft.map((r, i) => {
    const who = identities.find((x) => x.host === r.getHost() && x.port === r.getPort());
    if (!who) throw new ValidationError(`No identity certificate for the raft consenter ${r.getHost()}:${r.getPort()}: every consenter must be an orderer this service holds.`, [{ field: 'consenters', message: `${r.getHost()}:${r.getPort()} unknown` }]);
    const c = new common.Consenter();
    c.setId(i + 1);
    c.setHost(r.getHost());
    c.setPort(r.getPort());
    c.setMspId(who.mspId);
    c.setIdentity(Buffer.from(who.identityCertPem));
    c.setClientTlsCert(r.getClientTlsCert_asU8());
    c.setServerTlsCert(r.getServerTlsCert_asU8());
    return c;
  });
  const bft = new orderer.ConsensusType();
  bft.setType('BFT');
  bft.setMetadata(smartBftOptionsMessage(options).serializeBinary());
  bft.setState(orderer.ConsensusType.State.STATE_MAINTENANCE);
  values.set('ConsensusType', configValue(bft, value.getModPolicy() || 'Admins'));
  const orderers = new common.Orderers();
  orderers.setConsenterMappingList(mapping);
  values.set('Orderers', configValue(orderers, values.get('Orderers')?.getModPolicy() || 'Admins'));
  const policies = subGroup(desired, ['Orderer']).getPoliciesMap();
  const signers = mapping.map((c) => ({ mspId: c.getMspId(), identityCertPem: Buffer.from(c.getIdentity_asU8()).toString('utf8') }));
  policies.set('BlockValidation', bftBlockValidationPolicy(signers, bftQuorum(mapping.length), policies.get('BlockValidation')?.getModPolicy() || 'Admins'));
  return desired;
}

export function applyChange(config: common.Config, change: ChannelConfigChange | ChannelConfigChange[]): common.Config {
  if (Array.isArray(change)) return change.reduce(applyChange, config);
  switch (change.kind) {
    case 'anchorPeers':
      return withAnchorPeers(config, change.mspId, change.anchorPeers);
    case 'addOrganization':
      return withOrganization(config, change.organization);
    case 'removeOrganization':
      return withoutOrganization(config, change.mspId);
    case 'policies':
      return withPolicies(config, change.policies, change.groupPath);
    case 'acls':
      return withAcls(config, change.acls);
    case 'batch':
      return withBatch(config, change.batch);
    case 'revocationList':
      return withRevocationList(config, change.mspId, change.crlPems);
    case 'addConsenter':
      return withConsenterAdded(config, change.consenter, change.mspId, change.identityCertPem);
    case 'removeConsenter':
      return withConsenterRemoved(config, change.host, change.port, change.mspId);
    case 'replaceConsenterCertificate':
      return withConsenterCertificate(config, change.consenter, change.identityCertPem);
    case 'smartBftOptions':
      return withSmartBftOptions(config, change.options);
    case 'raftOptions':
      return withRaftOptions(config, change.options);
    case 'capabilities':
      return withCapabilities(config, change.capabilities);
    case 'mspUpdate':
      return withMspUpdate(config, change.mspId, change.update);
    case 'ordererEndpoints':
      return withOrdererEndpoints(config, change.mspId, change.endpoints);
    case 'addOrdererOrganization':
      return withOrdererOrganization(config, change.organization);
    case 'removeOrdererOrganization':
      return withoutOrdererOrganization(config, change.mspId);
    case 'consensusState':
      return withConsensusState(config, change.state);
    case 'migrateToBft':
      return withBftMigration(config, change.options, change.identities);
    default: {
      const never: never = change;
      throw new Error(`Unknown config change ${JSON.stringify(never)}`);
    }
  }
}
