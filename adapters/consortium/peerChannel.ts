// A peer joins a channel by a JoinChain proposal to its configuration system chaincode (cscc),
// signed by an admin of the peer's own organization (the peer checks its local MSP's admin role).
// Joining twice is not an error: the peer's "ledger already exists" refusal means joined.
//   joinPeer(peer, admin, genesisBlock) -> { channelName, alreadyJoined }
//   peerChannels(peer, signer)          -> channel names the peer has joined (cscc GetChannels)
import { peer } from '@hyperledger/fabric-protos';
import type { Endpoint, FabricSigner } from '../../domain/consortium/consortiumPorts.ts';
import { configBlockChannel } from './channelConfig.ts';
import { FabricRefusedError } from '../../domain/consortium/consortiumChannelPorts.ts';
import { invokeSystemChaincode } from './fabricGrpcEndorser.ts';

const alreadyJoined = /already exists/i;

export async function joinPeer(peerEndpoint: Endpoint, admin: FabricSigner, genesisBlock: Uint8Array): Promise<{ channelName: string; alreadyJoined: boolean }> {
  const channelName = configBlockChannel(genesisBlock);
  try {
    await invokeSystemChaincode(peerEndpoint, admin, '', 'cscc', ['JoinChain', genesisBlock]);
    return { channelName, alreadyJoined: false };
  } catch (err) {
    // cscc answers 500 "cannot create ledger from genesis block: ledger [<channel>] already exists with state [ACTIVE]".
    if (err instanceof FabricRefusedError && err.fabricStatus === 500 && alreadyJoined.test(err.fabricMessage)) {
      return { channelName, alreadyJoined: true };
    }
    throw err;
  }
}

export async function peerChannels(peerEndpoint: Endpoint, signer: FabricSigner): Promise<string[]> {
  const answer = await invokeSystemChaincode(peerEndpoint, signer, '', 'cscc', ['GetChannels']);
  return peer.ChannelQueryResponse.deserializeBinary(answer.payload)
    .getChannelsList()
    .map((c) => c.getChannelId());
}
