// The config values of a channel (what configtxgen writes), each as a ConfigValue whose bytes
// are the marshalled Fabric message. Keys are Fabric's: the orderer and peers look them up by name.
//   configValue(message, modPolicy = 'Admins')  -> common.ConfigValue
//   mspValue(org)  FabricMSPConfig with NodeOUs (client/peer/admin/orderer OUs certified by the
//                  signing CA): the admin is whoever holds an OU=admin certificate, so no admincerts
//   anchorPeersValue, ordererEndpointsValue, capabilitiesValue, aclsValue, batchSizeValue, ...
import { common, msp, orderer, peer } from '@hyperledger/fabric-protos';
import type { BftConsenter, ChannelBatchSettings, OrganizationMsp, RaftConsenter, SmartBftOptions } from '../../domain/consortium/consortiumPorts.ts';

interface Serializable {
  serializeBinary(): Uint8Array;
}

export function configValue(message: Serializable, modPolicy = 'Admins'): common.ConfigValue {
  const value = new common.ConfigValue();
  value.setValue(message.serializeBinary());
  value.setModPolicy(modPolicy);
  return value;
}

function ouIdentifier(caCertPem: string, ou: string): msp.FabricOUIdentifier {
  const id = new msp.FabricOUIdentifier();
  id.setCertificate(Buffer.from(caCertPem));
  id.setOrganizationalUnitIdentifier(ou);
  return id;
}

export function mspConfig(org: OrganizationMsp): msp.MSPConfig {
  const crypto = new msp.FabricCryptoConfig();
  crypto.setSignatureHashFamily('SHA2');
  crypto.setIdentityIdentifierHashFunction('SHA256');
  const nodeOus = new msp.FabricNodeOUs();
  nodeOus.setEnable(true);
  nodeOus.setClientOuIdentifier(ouIdentifier(org.signCaCertPem, 'client'));
  nodeOus.setPeerOuIdentifier(ouIdentifier(org.signCaCertPem, 'peer'));
  nodeOus.setAdminOuIdentifier(ouIdentifier(org.signCaCertPem, 'admin'));
  nodeOus.setOrdererOuIdentifier(ouIdentifier(org.signCaCertPem, 'orderer'));
  const fabric = new msp.FabricMSPConfig();
  fabric.setName(org.mspId);
  fabric.setRootCertsList([Buffer.from(org.signCaCertPem)]);
  fabric.setTlsRootCertsList([Buffer.from(org.tlsCaCertPem)]);
  fabric.setCryptoConfig(crypto);
  fabric.setFabricNodeOus(nodeOus);
  const config = new msp.MSPConfig();
  config.setType(0); // FABRIC (1 is IDEMIX)
  config.setConfig(fabric.serializeBinary());
  return config;
}

export function anchorPeersMessage(anchors: { host: string; port: number }[]): peer.AnchorPeers {
  const message = new peer.AnchorPeers();
  message.setAnchorPeersList(
    anchors.map((a) => {
      const anchor = new peer.AnchorPeer();
      anchor.setHost(a.host);
      anchor.setPort(a.port);
      return anchor;
    }),
  );
  return message;
}

export function ordererAddresses(addresses: string[]): common.OrdererAddresses {
  const message = new common.OrdererAddresses();
  message.setAddressesList(addresses);
  return message;
}

export function capabilities(names: string[]): common.Capabilities {
  const message = new common.Capabilities();
  for (const name of names) message.getCapabilitiesMap().set(name, new common.Capability());
  return message;
}

export function hashingAlgorithm(): common.HashingAlgorithm {
  const message = new common.HashingAlgorithm();
  message.setName('SHA256');
  return message;
}

export function blockDataHashingStructure(): common.BlockDataHashingStructure {
  const message = new common.BlockDataHashingStructure();
  message.setWidth(0xffffffff); // the only width Fabric accepts (math.MaxUint32)
  return message;
}

export function batchSize(batch: ChannelBatchSettings): orderer.BatchSize {
  const message = new orderer.BatchSize();
  message.setMaxMessageCount(batch.maxMessageCount);
  message.setAbsoluteMaxBytes(batch.absoluteMaxBytes);
  message.setPreferredMaxBytes(batch.preferredMaxBytes);
  return message;
}

export function batchTimeout(timeout: string): orderer.BatchTimeout {
  const message = new orderer.BatchTimeout();
  message.setTimeout(timeout);
  return message;
}

export function channelRestrictions(): orderer.ChannelRestrictions {
  const message = new orderer.ChannelRestrictions();
  message.setMaxCount(0);
  return message;
}

/** One etcdraft consenter (genesis and consenter changes alike). */
export function raftConsenterMessage(c: RaftConsenter): orderer.etcdraft.Consenter {
  const consenter = new orderer.etcdraft.Consenter();
  consenter.setHost(c.host);
  consenter.setPort(c.port);
  consenter.setClientTlsCert(Buffer.from(c.clientTlsCertPem));
  consenter.setServerTlsCert(Buffer.from(c.serverTlsCertPem));
  return consenter;
}

/** etcdraft with configtx.yaml's options: 500ms ticks, election 10, heartbeat 1, 5 inflight blocks, 16 MB snapshots. */
export function etcdraftConsensus(consenters: RaftConsenter[]): orderer.ConsensusType {
  const options = new orderer.etcdraft.Options();
  options.setTickInterval('500ms');
  options.setElectionTick(10);
  options.setHeartbeatTick(1);
  options.setMaxInflightBlocks(5);
  options.setSnapshotIntervalSize(16 * 1024 * 1024);
  const metadata = new orderer.etcdraft.ConfigMetadata();
  metadata.setConsentersList(consenters.map(raftConsenterMessage));
  metadata.setOptions(options);
  const message = new orderer.ConsensusType();
  message.setType('etcdraft');
  message.setMetadata(metadata.serializeBinary());
  message.setState(orderer.ConsensusType.State.STATE_NORMAL);
  return message;
}

/** Orderer type BFT with every SmartBFT option written (Fabric reads a missing one as zero) and leader rotation off, as Fabric 3.1 requires. */
export function smartBftConsensus(o: SmartBftOptions): orderer.ConsensusType {
  const message = new orderer.ConsensusType();
  message.setType('BFT');
  message.setMetadata(smartBftOptionsMessage(o).serializeBinary());
  message.setState(orderer.ConsensusType.State.STATE_NORMAL);
  return message;
}

/**
 * The SmartBFT options block (ConsensusType metadata of a BFT channel) with every field of `o`
 * written: a new block has leader rotation off; `base` (a channel's block) keeps its other fields.
 */
export function smartBftOptionsMessage(o: SmartBftOptions, base?: orderer.smartbft.Options): orderer.smartbft.Options {
  const options = base ?? new orderer.smartbft.Options();
  options.setRequestBatchMaxCount(o.requestBatchMaxCount);
  options.setRequestBatchMaxBytes(o.requestBatchMaxBytes);
  options.setRequestBatchMaxInterval(o.requestBatchMaxInterval);
  options.setIncomingMessageBufferSize(o.incomingMessageBufferSize);
  options.setRequestPoolSize(o.requestPoolSize);
  options.setRequestForwardTimeout(o.requestForwardTimeout);
  options.setRequestComplainTimeout(o.requestComplainTimeout);
  options.setRequestAutoRemoveTimeout(o.requestAutoRemoveTimeout);
  options.setRequestMaxBytes(o.requestMaxBytes);
  options.setViewChangeResendInterval(o.viewChangeResendInterval);
  options.setViewChangeTimeout(o.viewChangeTimeout);
  options.setLeaderHeartbeatTimeout(o.leaderHeartbeatTimeout);
  options.setLeaderHeartbeatCount(o.leaderHeartbeatCount);
  options.setCollectTimeout(o.collectTimeout);
  options.setSyncOnStart(o.syncOnStart);
  options.setSpeedUpViewChange(o.speedUpViewChange);
  if (!base) {
    options.setLeaderRotation(orderer.smartbft.Options.Rotation.ROTATION_OFF);
    options.setDecisionsPerLeader(0);
  }
  return options;
}

/** The SmartBFT options a channel's options block holds. */
export function smartBftOptionsOf(o: orderer.smartbft.Options): SmartBftOptions {
  return {
    requestBatchMaxCount: o.getRequestBatchMaxCount(),
    requestBatchMaxBytes: o.getRequestBatchMaxBytes(),
    requestBatchMaxInterval: o.getRequestBatchMaxInterval(),
    incomingMessageBufferSize: o.getIncomingMessageBufferSize(),
    requestPoolSize: o.getRequestPoolSize(),
    requestForwardTimeout: o.getRequestForwardTimeout(),
    requestComplainTimeout: o.getRequestComplainTimeout(),
    requestAutoRemoveTimeout: o.getRequestAutoRemoveTimeout(),
    requestMaxBytes: o.getRequestMaxBytes(),
    viewChangeResendInterval: o.getViewChangeResendInterval(),
    viewChangeTimeout: o.getViewChangeTimeout(),
    leaderHeartbeatTimeout: o.getLeaderHeartbeatTimeout(),
    leaderHeartbeatCount: o.getLeaderHeartbeatCount(),
    collectTimeout: o.getCollectTimeout(),
    syncOnStart: o.getSyncOnStart(),
    speedUpViewChange: o.getSpeedUpViewChange(),
  };
}

/** The Orderers value of a BFT channel: its ConsenterMapping. */
export function orderersValue(consenters: BftConsenter[]): common.Orderers {
  const message = new common.Orderers();
  message.setConsenterMappingList(consenters.map(bftConsenterMessage));
  return message;
}

/** One ConsenterMapping entry of a BFT channel (genesis and consenter changes alike). */
export function bftConsenterMessage(c: BftConsenter): common.Consenter {
  const consenter = new common.Consenter();
  consenter.setId(c.id);
  consenter.setHost(c.host);
  consenter.setPort(c.port);
  consenter.setMspId(c.mspId);
  consenter.setIdentity(Buffer.from(c.identityCertPem));
  consenter.setClientTlsCert(Buffer.from(c.clientTlsCertPem));
  consenter.setServerTlsCert(Buffer.from(c.serverTlsCertPem));
  return consenter;
}

/** configtx.yaml's default ACLs: who may call the lifecycle, query and event APIs of the channel. */
export const defaultAcls: Record<string, string> = {
  '_lifecycle/CheckCommitReadiness': '/Channel/Application/Writers',
  '_lifecycle/CommitChaincodeDefinition': '/Channel/Application/Writers',
  '_lifecycle/QueryChaincodeDefinition': '/Channel/Application/Writers',
  '_lifecycle/QueryChaincodeDefinitions': '/Channel/Application/Writers',
  'lscc/ChaincodeExists': '/Channel/Application/Readers',
  'lscc/GetDeploymentSpec': '/Channel/Application/Readers',
  'lscc/GetChaincodeData': '/Channel/Application/Readers',
  'lscc/GetInstantiatedChaincodes': '/Channel/Application/Readers',
  'qscc/GetChainInfo': '/Channel/Application/Readers',
  'qscc/GetBlockByNumber': '/Channel/Application/Readers',
  'qscc/GetBlockByHash': '/Channel/Application/Readers',
  'qscc/GetTransactionByID': '/Channel/Application/Readers',
  'qscc/GetBlockByTxID': '/Channel/Application/Readers',
  'cscc/GetConfigBlock': '/Channel/Application/Readers',
  'cscc/GetChannelConfig': '/Channel/Application/Readers',
  'peer/Propose': '/Channel/Application/Writers',
  'peer/ChaincodeToChaincode': '/Channel/Application/Writers',
  'event/Block': '/Channel/Application/Readers',
  'event/FilteredBlock': '/Channel/Application/Readers',
};

export function acls(entries: Record<string, string>): peer.ACLs {
  const message = new peer.ACLs();
  for (const [name, policyRef] of Object.entries(entries)) {
    const resource = new peer.APIResource();
    resource.setPolicyRef(policyRef);
    message.getAclsMap().set(name, resource);
  }
  return message;
}
