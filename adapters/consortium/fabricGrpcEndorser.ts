// Calls a system chaincode (cscc, qscc) on a peer through its Endorser service and returns the
// chaincode's answer: status 200 with a payload, or the peer's refusal as an error that names the
// peer, the call and what the peer said.
//   invokeSystemChaincode(peer, signer, channelId, chaincode, args) -> { status, message, payload }
import * as grpc from '@grpc/grpc-js';
import { peer } from '@hyperledger/fabric-protos';
import type { Endpoint, FabricSigner } from '../../domain/consortium/consortiumPorts.ts';
import { deadline, endorserClient, nodeName, withClient } from './fabricGrpc.ts';
import { signedProposal } from './fabricSigningEnvelope.ts';

export interface ChaincodeAnswer {
  status: number;
  message: string;
  payload: Uint8Array;
}

export class EndorserCallError extends Error {
  constructor(
    message: string,
    /** The chaincode's status when the peer answered (500 for a refusal), null when it did not. */
    readonly status: number | null,
    readonly fabricMessage: string,
  ) {
    super(message);
  }
}

export async function invokeSystemChaincode(
  peerEndpoint: Endpoint,
  signer: FabricSigner,
  channelId: string,
  chaincode: string,
  args: (string | Uint8Array)[],
  timeoutMs = 30_000,
): Promise<ChaincodeAnswer> {
  const call = `${chaincode}/${typeof args[0] === 'string' ? args[0] : '?'}${channelId ? ` on channel "${channelId}"` : ''}`;
  const { proposal } = await signedProposal(signer, channelId, chaincode, args);
  const response = await withClient(endorserClient, peerEndpoint, (client) =>
    new Promise<peer.ProposalResponse>((resolve, reject) => {
      client.processProposal(proposal, { deadline: deadline(timeoutMs) }, (err, answer) => (err ? reject(err) : resolve(answer!)));
    }).catch((err: grpc.ServiceError) => {
      // The peer refuses a badly signed or unauthorized proposal as a gRPC error, not a response.
      const unreachable = err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.DEADLINE_EXCEEDED;
      const said = err.details || err.message;
      throw new EndorserCallError(
        unreachable ? `Peer ${nodeName(peerEndpoint)} did not answer ${call}: ${said}` : `Peer ${nodeName(peerEndpoint)} refused ${call} as ${signer.mspId}: ${said}`,
        null,
        said,
      );
    }),
  );
  const answer = response.getResponse();
  const status = answer?.getStatus() ?? 0;
  const message = answer?.getMessage() ?? '';
  if (status < 200 || status >= 400) {
    throw new EndorserCallError(`Peer ${nodeName(peerEndpoint)} refused ${call} as ${signer.mspId}: ${message || `status ${status}`}`, status, message);
  }
  return { status, message, payload: answer?.getPayload_asU8() ?? new Uint8Array() };
}
