// Calls a system chaincode (cscc, qscc) on a peer through its Endorser service and returns the
// chaincode's answer: status 200 with a payload, or the peer's refusal as an error that names the
// peer, the call and what the peer said.
//   invokeSystemChaincode(peer, signer, channelId, chaincode, args) -> { status, message, payload }
import * as grpc from '@grpc/grpc-js';
import { peer } from '@hyperledger/fabric-protos';
import { FabricNodeUnreachableError, FabricRefusedError } from '../../domain/consortium/consortiumChannelPorts.ts';
import type { Endpoint, FabricSigner } from '../../domain/consortium/consortiumPorts.ts';
import { deadline, endorserClient, nodeName, withClient } from './fabricGrpc.ts';
import { signedProposal } from './fabricSigningEnvelope.ts';

export interface ChaincodeAnswer {
  status: number;
  message: string;
  payload: Uint8Array;
}

export async function invokeSystemChaincode(
  peerEndpoint: Endpoint,
  signer: FabricSigner,
  channelId: string,
  chaincode: string,
  args: (string | Uint8Array)[],
  timeoutMs = 30_000,
): Promise<ChaincodeAnswer> {
  const node = nodeName(peerEndpoint);
  const channel = channelId || null;
  const call = `${chaincode}/${typeof args[0] === 'string' ? args[0] : '?'}${channelId ? ` on channel "${channelId}"` : ''}`;
  const { proposal } = await signedProposal(signer, channelId, chaincode, args);
  const response = await withClient(endorserClient, peerEndpoint, (client) =>
    new Promise<peer.ProposalResponse>((resolve, reject) => {
      client.processProposal(proposal, { deadline: deadline(timeoutMs) }, (err, answer) => (err ? reject(err) : resolve(answer!)));
    }).catch((err: grpc.ServiceError) => {
      // The peer refuses a badly signed or unauthorized proposal as a gRPC error, not a response.
      const unreachable = err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.DEADLINE_EXCEEDED;
      const said = err.details || err.message;
      throw unreachable
        ? new FabricNodeUnreachableError(`Peer ${node} did not answer ${call}: ${said}`, node, channel)
        : new FabricRefusedError(`Peer ${node} refused ${call} as ${signer.mspId}: ${said}`, node, channel, `grpc ${grpc.status[err.code] ?? err.code}`, said);
    }),
  );
  const answer = response.getResponse();
  const status = answer?.getStatus() ?? 0;
  const message = answer?.getMessage() ?? '';
  if (status < 200 || status >= 400) {
    throw new FabricRefusedError(`Peer ${node} refused ${call} as ${signer.mspId}: ${message || `status ${status}`}`, node, channel, status, message);
  }
  return { status, message, payload: answer?.getPayload_asU8() ?? new Uint8Array() };
}
