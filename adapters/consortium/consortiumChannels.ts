// ConsortiumChannels over real Fabric 2.5 nodes: the channel operations the consortium routes and
// sagas call, each implemented in its own adapter file (see those for the protocol details).
import type { ConsortiumChannels } from '../../domain/consortium/consortiumChannelPorts.ts';
import { decodeChannelConfig, fetchConfigBlock, readConfigBlock } from './channelConfig.ts';
import { channelMembers } from './channelConfigMembers.ts';
import { joinOrderer, leaveOrderer, listOrdererChannels, ordererChannel } from './channelParticipation.ts';
import { previewConfigUpdate, updateChannelConfig } from './configUpdate.ts';
import { configUpdateFile, describeConfigUpdate, evaluateConfigUpdate, prepareConfigUpdate, signConfigUpdate, signaturesOfConfigUpdateFile, signerOfConfigSignature, submitConfigUpdate, verifyDetachedSignature } from './configUpdateDistributed.ts';
import { buildChannelGenesisBlock } from './fabricGenesis.ts';
import { block, chainInfo, transaction } from './ledgerQuery.ts';
import { joinPeer, peerChannels } from './peerChannel.ts';

export function fabricConsortiumChannels(): ConsortiumChannels {
  return {
    buildGenesisBlock: buildChannelGenesisBlock,
    joinOrderer,
    listOrdererChannels,
    ordererChannel,
    leaveOrderer,
    joinPeer,
    peerChannels,
    fetchConfigBlock,
    decodeChannelConfig,
    readConfigBlock,
    updateChannelConfig,
    previewConfigUpdate,
    prepareConfigUpdate,
    signConfigUpdate,
    describeConfigUpdate,
    submitConfigUpdate,
    evaluateConfigUpdate,
    verifyDetachedSignature,
    configUpdateFile,
    signaturesOfConfigUpdateFile,
    signerOfConfigSignature,
    chainInfo,
    block,
    channelMembers,
    transaction,
  };
}
