// The signed wrappers Fabric's services take: envelopes (Broadcast, Deliver) and proposals
// (Endorser). A transaction id is hex SHA-256 of nonce || creator, as the peer recomputes it and
// refuses a proposal whose id does not match.
//   newTxContext(signer)                 -> { nonce, creator, txId }
//   channelHeader(type, channelId, txId, extension?) -> common.ChannelHeader
//   signedEnvelope(signer, type, channelId, data)    -> common.Envelope (payload signed by signer)
//   signedProposal(signer, channelId, chaincode, args, { isInit }?) -> { proposal: peer.SignedProposal, txId }
//       isInit marks a user chaincode's Init transaction (ChaincodeInput.is_init), which
//       @hyperledger/fabric-gateway cannot send.
import { createHash, randomBytes } from 'node:crypto';
import { common, peer } from '@hyperledger/fabric-protos';
import timestampPb from 'google-protobuf/google/protobuf/timestamp_pb.js';
import type { FabricSigner } from '../../domain/consortium/consortiumPorts.ts';
import { serializedIdentity } from './fabricSigning.ts';

export interface TxContext {
  nonce: Uint8Array;
  creator: Uint8Array;
  txId: string;
}

export function newTxContext(signer: FabricSigner): TxContext {
  const nonce = randomBytes(24);
  const creator = serializedIdentity(signer);
  const txId = createHash('sha256').update(nonce).update(creator).digest('hex');
  return { nonce, creator, txId };
}

export function channelHeader(type: number, channelId: string, txId: string, extension?: Uint8Array): common.ChannelHeader {
  const header = new common.ChannelHeader();
  header.setType(type);
  header.setVersion(0);
  header.setChannelId(channelId);
  header.setTxId(txId);
  header.setEpoch(0);
  header.setTimestamp(timestampPb.Timestamp.fromDate(new Date()));
  if (extension) header.setExtension$(extension);
  return header;
}

export function signatureHeader(ctx: TxContext): common.SignatureHeader {
  const header = new common.SignatureHeader();
  header.setCreator(ctx.creator);
  header.setNonce(ctx.nonce);
  return header;
}

export async function signedEnvelope(signer: FabricSigner, type: number, channelId: string, data: Uint8Array): Promise<common.Envelope> {
  const ctx = newTxContext(signer);
  const header = new common.Header();
  header.setChannelHeader(channelHeader(type, channelId, ctx.txId).serializeBinary());
  header.setSignatureHeader(signatureHeader(ctx).serializeBinary());
  const payload = new common.Payload();
  payload.setHeader(header);
  payload.setData(data);
  const payloadBytes = payload.serializeBinary();
  const envelope = new common.Envelope();
  envelope.setPayload(payloadBytes);
  envelope.setSignature(await signer.sign(payloadBytes));
  return envelope;
}

/** A proposal to a system chaincode (cscc, qscc; `channelId` '' for channel-less calls such as JoinChain), or a user chaincode's Init. */
export async function signedProposal(
  signer: FabricSigner,
  channelId: string,
  chaincodeName: string,
  args: (string | Uint8Array)[],
  options: { isInit?: boolean } = {},
): Promise<{ proposal: peer.SignedProposal; txId: string }> {
  const ctx = newTxContext(signer);
  const chaincodeId = new peer.ChaincodeID();
  chaincodeId.setName(chaincodeName);
  const extension = new peer.ChaincodeHeaderExtension();
  extension.setChaincodeId(chaincodeId);

  const header = new common.Header();
  header.setChannelHeader(channelHeader(common.HeaderType.ENDORSER_TRANSACTION, channelId, ctx.txId, extension.serializeBinary()).serializeBinary());
  header.setSignatureHeader(signatureHeader(ctx).serializeBinary());

  const input = new peer.ChaincodeInput();
  input.setArgsList(args.map((a) => (typeof a === 'string' ? Buffer.from(a) : a)));
  if (options.isInit) input.setIsInit(true);
  const spec = new peer.ChaincodeSpec();
  spec.setType(peer.ChaincodeSpec.Type.GOLANG);
  spec.setChaincodeId(chaincodeId);
  spec.setInput(input);
  const invocation = new peer.ChaincodeInvocationSpec();
  invocation.setChaincodeSpec(spec);
  const payload = new peer.ChaincodeProposalPayload();
  payload.setInput(invocation.serializeBinary());

  const proposal = new peer.Proposal();
  proposal.setHeader(header.serializeBinary());
  proposal.setPayload(payload.serializeBinary());
  const proposalBytes = proposal.serializeBinary();
  const signed = new peer.SignedProposal();
  signed.setProposalBytes(proposalBytes);
  signed.setSignature(await signer.sign(proposalBytes));
  return { proposal: signed, txId: ctx.txId };
}
