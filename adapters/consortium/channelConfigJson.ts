// A channel config as JSON in the shape `configtxlator proto_decode` gives: protobuf JSON with
// the original (snake_case) field names, 64-bit integers as strings, enums by name, bytes as
// base64, and the opaque bytes of config values and policies decoded by their key (MSP,
// AnchorPeers, ConsensusType with its etcdraft or SmartBFT metadata, a BFT channel's Orderers, ...). Values of a key this file does
// not know stay base64, as configtxlator leaves values it has no type for.
//   configJson(config: common.Config) -> ChannelConfigJson
import { common, msp, orderer, peer } from '@hyperledger/fabric-protos';
import type { ChannelConfigJson, ConfigGroupJson } from '../../domain/consortium/consortiumChannelPorts.ts';

type Json = unknown;
const b64 = (bytes: Uint8Array | string): string => Buffer.from(bytes as Uint8Array).toString('base64');
const u64 = (n: number): string => String(n);
const enumName = (map: object, value: number): string | number => Object.entries(map).find(([, v]) => v === value)?.[0] ?? value;

/** Entries of a protobuf map (jspb.Map), which hands message values out only through get/forEach. */
function entriesOf<V>(map: { forEach(callback: (value: V, key: string) => void): void }): [string, V][] {
  const out: [string, V][] = [];
  map.forEach((value, key) => out.push([key, value]));
  return out;
}

function sorted<T>(entries: [string, T][]): Record<string, T> {
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function ouIdentifierJson(id: msp.FabricOUIdentifier | undefined): Json {
  return id ? { certificate: b64(id.getCertificate()), organizational_unit_identifier: id.getOrganizationalUnitIdentifier() } : null;
}

function fabricMspJson(bytes: Uint8Array): Json {
  const c = msp.FabricMSPConfig.deserializeBinary(bytes);
  const crypto = c.getCryptoConfig();
  const ous = c.getFabricNodeOus();
  return {
    admins: c.getAdminsList_asU8().map(b64),
    crypto_config: crypto
      ? { identity_identifier_hash_function: crypto.getIdentityIdentifierHashFunction(), signature_hash_family: crypto.getSignatureHashFamily() }
      : null,
    fabric_node_ous: ous
      ? {
          admin_ou_identifier: ouIdentifierJson(ous.getAdminOuIdentifier()),
          client_ou_identifier: ouIdentifierJson(ous.getClientOuIdentifier()),
          enable: ous.getEnable(),
          orderer_ou_identifier: ouIdentifierJson(ous.getOrdererOuIdentifier()),
          peer_ou_identifier: ouIdentifierJson(ous.getPeerOuIdentifier()),
        }
      : null,
    intermediate_certs: c.getIntermediateCertsList_asU8().map(b64),
    name: c.getName(),
    organizational_unit_identifiers: c.getOrganizationalUnitIdentifiersList().map(ouIdentifierJson),
    revocation_list: c.getRevocationListList_asU8().map(b64),
    root_certs: c.getRootCertsList_asU8().map(b64),
    signing_identity: c.hasSigningIdentity() ? b64(c.getSigningIdentity()!.serializeBinary()) : null,
    tls_intermediate_certs: c.getTlsIntermediateCertsList_asU8().map(b64),
    tls_root_certs: c.getTlsRootCertsList_asU8().map(b64),
  };
}

function mspJson(bytes: Uint8Array): Json {
  const m = msp.MSPConfig.deserializeBinary(bytes);
  return { config: m.getType() === 0 ? fabricMspJson(m.getConfig_asU8()) : b64(m.getConfig_asU8()), type: m.getType() };
}

function etcdraftJson(bytes: Uint8Array): Json {
  const m = orderer.etcdraft.ConfigMetadata.deserializeBinary(bytes);
  const o = m.getOptions();
  return {
    consenters: m.getConsentersList().map((c) => ({
      client_tls_cert: b64(c.getClientTlsCert()),
      host: c.getHost(),
      port: c.getPort(),
      server_tls_cert: b64(c.getServerTlsCert()),
    })),
    options: o
      ? {
          election_tick: o.getElectionTick(),
          heartbeat_tick: o.getHeartbeatTick(),
          max_inflight_blocks: o.getMaxInflightBlocks(),
          snapshot_interval_size: o.getSnapshotIntervalSize(),
          tick_interval: o.getTickInterval(),
        }
      : null,
  };
}

/** A BFT channel's SmartBFT options block, as configtxlator decodes orderer.smartbft.Options. */
function smartBftJson(bytes: Uint8Array): Json {
  const o = orderer.smartbft.Options.deserializeBinary(bytes);
  return {
    collect_timeout: o.getCollectTimeout(),
    decisions_per_leader: u64(o.getDecisionsPerLeader()),
    incoming_message_buffer_size: u64(o.getIncomingMessageBufferSize()),
    leader_heartbeat_count: u64(o.getLeaderHeartbeatCount()),
    leader_heartbeat_timeout: o.getLeaderHeartbeatTimeout(),
    leader_rotation: enumName(orderer.smartbft.Options.Rotation, o.getLeaderRotation()),
    request_auto_remove_timeout: o.getRequestAutoRemoveTimeout(),
    request_batch_max_bytes: u64(o.getRequestBatchMaxBytes()),
    request_batch_max_count: u64(o.getRequestBatchMaxCount()),
    request_batch_max_interval: o.getRequestBatchMaxInterval(),
    request_complain_timeout: o.getRequestComplainTimeout(),
    request_forward_timeout: o.getRequestForwardTimeout(),
    request_max_bytes: u64(o.getRequestMaxBytes()),
    request_pool_size: u64(o.getRequestPoolSize()),
    speed_up_view_change: o.getSpeedUpViewChange(),
    sync_on_start: o.getSyncOnStart(),
    view_change_resend_interval: o.getViewChangeResendInterval(),
    view_change_timeout: o.getViewChangeTimeout(),
  };
}

const valueDecoders: Record<string, (bytes: Uint8Array) => Json> = {
  MSP: mspJson,
  AnchorPeers: (b) => ({ anchor_peers: peer.AnchorPeers.deserializeBinary(b).getAnchorPeersList().map((a) => ({ host: a.getHost(), port: a.getPort() })) }),
  Endpoints: (b) => ({ addresses: common.OrdererAddresses.deserializeBinary(b).getAddressesList() }),
  OrdererAddresses: (b) => ({ addresses: common.OrdererAddresses.deserializeBinary(b).getAddressesList() }),
  Capabilities: (b) => ({ capabilities: sorted(entriesOf(common.Capabilities.deserializeBinary(b).getCapabilitiesMap()).map(([k]) => [k, {}])) }),
  HashingAlgorithm: (b) => ({ name: common.HashingAlgorithm.deserializeBinary(b).getName() }),
  BlockDataHashingStructure: (b) => ({ width: common.BlockDataHashingStructure.deserializeBinary(b).getWidth() }),
  BatchSize: (b) => {
    const m = orderer.BatchSize.deserializeBinary(b);
    return { absolute_max_bytes: m.getAbsoluteMaxBytes(), max_message_count: m.getMaxMessageCount(), preferred_max_bytes: m.getPreferredMaxBytes() };
  },
  BatchTimeout: (b) => ({ timeout: orderer.BatchTimeout.deserializeBinary(b).getTimeout() }),
  ChannelRestrictions: (b) => ({ max_count: u64(orderer.ChannelRestrictions.deserializeBinary(b).getMaxCount()) }),
  ConsensusType: (b) => {
    const m = orderer.ConsensusType.deserializeBinary(b);
    const metadata = m.getMetadata_asU8();
    return {
      metadata: !metadata.length ? null : m.getType() === 'etcdraft' ? etcdraftJson(metadata) : m.getType() === 'BFT' ? smartBftJson(metadata) : b64(metadata),
      state: enumName(orderer.ConsensusType.State, m.getState()),
      type: m.getType(),
    };
  },
  // A BFT channel's ConsenterMapping.
  Orderers: (b) => ({
    consenter_mapping: common.Orderers.deserializeBinary(b).getConsenterMappingList().map((c) => ({
      client_tls_cert: b64(c.getClientTlsCert()),
      host: c.getHost(),
      id: c.getId(),
      identity: b64(c.getIdentity()),
      msp_id: c.getMspId(),
      port: c.getPort(),
      server_tls_cert: b64(c.getServerTlsCert()),
    })),
  }),
  ACLs: (b) => ({ acls: sorted(entriesOf(peer.ACLs.deserializeBinary(b).getAclsMap()).map(([k, v]) => [k, { policy_ref: v.getPolicyRef() }])) }),
};

function principalJson(p: msp.MSPPrincipal): Json {
  const classification = p.getPrincipalClassification();
  const bytes = p.getPrincipal_asU8();
  let principal: Json = b64(bytes);
  if (classification === msp.MSPPrincipal.Classification.ROLE) {
    const role = msp.MSPRole.deserializeBinary(bytes);
    principal = { msp_identifier: role.getMspIdentifier(), role: enumName(msp.MSPRole.MSPRoleType, role.getRole()) };
  } else if (classification === msp.MSPPrincipal.Classification.ORGANIZATION_UNIT) {
    const ou = msp.OrganizationUnit.deserializeBinary(bytes);
    principal = {
      certifiers_identifier: b64(ou.getCertifiersIdentifier()),
      msp_identifier: ou.getMspIdentifier(),
      organizational_unit_identifier: ou.getOrganizationalUnitIdentifier(),
    };
  } else if (classification === msp.MSPPrincipal.Classification.IDENTITY) {
    const id = msp.SerializedIdentity.deserializeBinary(bytes);
    principal = { id_bytes: b64(id.getIdBytes()), mspid: id.getMspid() };
  }
  return { principal, principal_classification: enumName(msp.MSPPrincipal.Classification, classification) };
}

function signatureRuleJson(rule: common.SignaturePolicy): Json {
  if (rule.hasNOutOf()) {
    const n = rule.getNOutOf()!;
    return { n_out_of: { n: n.getN(), rules: n.getRulesList().map(signatureRuleJson) } };
  }
  return { signed_by: rule.getSignedBy() };
}

export function policyJson(policy: common.Policy): { type: number; value: Json } {
  const bytes = policy.getValue_asU8();
  const type = policy.getType();
  if (type === common.Policy.PolicyType.SIGNATURE) {
    const env = common.SignaturePolicyEnvelope.deserializeBinary(bytes);
    return {
      type,
      value: { identities: env.getIdentitiesList().map(principalJson), rule: env.hasRule() ? signatureRuleJson(env.getRule()!) : null, version: env.getVersion() },
    };
  }
  if (type === common.Policy.PolicyType.IMPLICIT_META) {
    const meta = common.ImplicitMetaPolicy.deserializeBinary(bytes);
    return { type, value: { rule: enumName(common.ImplicitMetaPolicy.Rule, meta.getRule()), sub_policy: meta.getSubPolicy() } };
  }
  return { type, value: bytes.length ? b64(bytes) : null };
}

export function configValueJson(key: string, value: common.ConfigValue): Json {
  const bytes = value.getValue_asU8();
  const decode = valueDecoders[key];
  return bytes.length === 0 ? null : decode ? decode(bytes) : b64(bytes);
}

export function configGroupJson(group: common.ConfigGroup): ConfigGroupJson {
  return {
    groups: sorted(entriesOf(group.getGroupsMap()).map(([k, g]) => [k, configGroupJson(g)])),
    mod_policy: group.getModPolicy(),
    policies: sorted(
      entriesOf(group.getPoliciesMap()).map(([k, p]) => [
        k,
        { mod_policy: p.getModPolicy(), policy: p.hasPolicy() ? policyJson(p.getPolicy()!) : (null as never), version: u64(p.getVersion()) },
      ]),
    ),
    values: sorted(entriesOf(group.getValuesMap()).map(([k, v]) => [k, { mod_policy: v.getModPolicy(), value: configValueJson(k, v), version: u64(v.getVersion()) }])),
    version: u64(group.getVersion()),
  };
}

export function configJson(config: common.Config): ChannelConfigJson {
  const group = config.getChannelGroup();
  return { channel_group: group ? configGroupJson(group) : (null as never), sequence: u64(config.getSequence()) };
}
