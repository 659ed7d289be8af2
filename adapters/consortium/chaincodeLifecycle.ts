// Fabric's chaincode lifecycle (_lifecycle system chaincode) on real peers, as `peer lifecycle
// chaincode ...` does it: proposals signed by an organization's admin through the peer's Endorser
// service; approvals and commits endorsed, assembled into a transaction, broadcast to an orderer
// and awaited until a peer has it in a block (its validation code).
//   installed(peer, signer)                         -> [{ packageId, label }]
//   install(peer, signer, packageBytes)             -> { packageId, alreadyInstalled }
//   committedDefinition(peer, signer, channel, name) -> { sequence, version, approvals } | null
//   commitReadiness(peer, signer, channel, def)     -> { mspId: approved }
//   approveForMyOrg(request)                        -> { txId, blockNumber, validationCode }
//   commitDefinition(request)                       -> { txId, blockNumber, validationCode }
//   initChaincode(request)                          -> { txId, blockNumber, validationCode }, or null when
//       the committed version was initialized already (the Init transaction of an initRequired
//       definition: is_init set, endorsed by a peer of each organization given, ordered, awaited)
import { common, peer } from '@hyperledger/fabric-protos';
import { FabricRefusedError, type PeerReader } from '../../domain/consortium/consortiumChannelPorts.ts';
import type { Endpoint, FabricSigner } from '../../domain/consortium/consortiumPorts.ts';
import type { ChaincodeDefinition, CommittedTx } from '../../domain/consortium/consortiumChaincodePorts.ts';
import { broadcastToOrdering } from './fabricGrpcBroadcast.ts';
import { deadline, endorserClient, nodeName, withClient } from './fabricGrpc.ts';
import { invokeSystemChaincode } from './fabricGrpcEndorser.ts';
import { signedProposal } from './fabricSigningEnvelope.ts';
import { signaturePolicyEnvelope } from './channelConfigPolicies.ts';
import { transaction } from './ledgerQuery.ts';
import { commitStatus } from './chaincodeGateway.ts';

const lc = peer.lifecycle;
const LIFECYCLE = '_lifecycle';


export async function installed(peerEndpoint: Endpoint, signer: FabricSigner): Promise<{ packageId: string; label: string }[]> {
  const answer = await invokeSystemChaincode(peerEndpoint, signer, '', LIFECYCLE, ['QueryInstalledChaincodes', new lc.QueryInstalledChaincodesArgs().serializeBinary()]);
  return lc.QueryInstalledChaincodesResult.deserializeBinary(answer.payload).getInstalledChaincodesList().map((c) => ({ packageId: c.getPackageId(), label: c.getLabel() }));
}

export async function install(peerEndpoint: Endpoint, signer: FabricSigner, packageBytes: Uint8Array, packageId: string): Promise<{ packageId: string; alreadyInstalled: boolean }> {
  if ((await installed(peerEndpoint, signer)).some((c) => c.packageId === packageId)) return { packageId, alreadyInstalled: true };
  const args = new lc.InstallChaincodeArgs();
  args.setChaincodeInstallPackage(packageBytes);
  const answer = await invokeSystemChaincode(peerEndpoint, signer, '', LIFECYCLE, ['InstallChaincode', args.serializeBinary()], 120_000);
  return { packageId: lc.InstallChaincodeResult.deserializeBinary(answer.payload).getPackageId(), alreadyInstalled: false };
}

export async function committedDefinition(peerEndpoint: Endpoint, signer: FabricSigner, channelName: string, name: string): Promise<{ sequence: number; version: string; approvals: Record<string, boolean> } | null> {
  const args = new lc.QueryChaincodeDefinitionArgs();
  args.setName(name);
  try {
    const answer = await invokeSystemChaincode(peerEndpoint, signer, channelName, LIFECYCLE, ['QueryChaincodeDefinition', args.serializeBinary()]);
    const r = lc.QueryChaincodeDefinitionResult.deserializeBinary(answer.payload);
    return { sequence: r.getSequence(), version: r.getVersion(), approvals: Object.fromEntries(r.getApprovalsMap().toArray()) };
  } catch (err) {
    if (err instanceof FabricRefusedError && /not defined|not found/i.test(err.fabricMessage)) return null;
    throw err;
  }
}

function validationParameter(policy: string | null): Uint8Array {
  const app = new peer.ApplicationPolicy();
  if (!policy) app.setChannelConfigPolicyReference('/Channel/Application/Endorsement');
  else if (policy.startsWith('/')) app.setChannelConfigPolicyReference(policy);
  else app.setSignaturePolicy(signaturePolicyEnvelope(policy));
  return app.serializeBinary();
}

type DefinitionArgs = InstanceType<typeof lc.CheckCommitReadinessArgs> | InstanceType<typeof lc.CommitChaincodeDefinitionArgs> | InstanceType<typeof lc.ApproveChaincodeDefinitionForMyOrgArgs>;

function fill<A extends DefinitionArgs>(args: A, def: ChaincodeDefinition): A {
  args.setName(def.name);
  args.setVersion(def.version);
  args.setSequence(def.sequence);
  args.setEndorsementPlugin('escc');
  args.setValidationPlugin('vscc');
  args.setValidationParameter(validationParameter(def.endorsementPolicy));
  args.setInitRequired(def.initRequired);
  if (def.collections?.length) args.setCollections(collectionPackage(def.collections));
  return args;
}

export function collectionPackage(collections: NonNullable<ChaincodeDefinition['collections']>): peer.CollectionConfigPackage {
  const pkg = new peer.CollectionConfigPackage();
  pkg.setConfigList(collections.map((c) => {
    const members = new peer.CollectionPolicyConfig();
    members.setSignaturePolicy(signaturePolicyEnvelope(c.policy));
    const stat = new peer.StaticCollectionConfig();
    stat.setName(c.name);
    stat.setMemberOrgsPolicy(members);
    stat.setRequiredPeerCount(c.requiredPeerCount);
    stat.setMaximumPeerCount(c.maxPeerCount);
    stat.setBlockToLive(c.blockToLive);
    stat.setMemberOnlyRead(c.memberOnlyRead);
    stat.setMemberOnlyWrite(c.memberOnlyWrite);
    const config = new peer.CollectionConfig();
    config.setStaticCollectionConfig(stat);
    return config;
  }));
  return pkg;
}

export async function commitReadiness(peerEndpoint: Endpoint, signer: FabricSigner, channelName: string, def: ChaincodeDefinition): Promise<Record<string, boolean>> {
  const args = fill(new lc.CheckCommitReadinessArgs(), def);
  const answer = await invokeSystemChaincode(peerEndpoint, signer, channelName, LIFECYCLE, ['CheckCommitReadiness', args.serializeBinary()]);
  return Object.fromEntries(lc.CheckCommitReadinessResult.deserializeBinary(answer.payload).getApprovalsMap().toArray());
}

/** Endorses one proposal on each peer (each with its own organization's signer) and submits the transaction, signed by the first. */
async function endorseAndSubmit(request: {
  endorsers: { peer: Endpoint; signer: FabricSigner }[];
  orderer: Endpoint;
  /** BFT: every running consenter, each sent the transaction (fabricGrpcBroadcast.ts broadcastToOrdering). */
  consenters?: Endpoint[];
  channelName: string;
  args: (string | Uint8Array)[];
  timeoutMs?: number;
  /** Default _lifecycle. */
  chaincodeName?: string;
  isInit?: boolean;
}): Promise<CommittedTx> {
  const { endorsers, channelName } = request;
  const submitter = endorsers[0].signer;
  const { proposal, txId } = await signedProposal(submitter, channelName, request.chaincodeName ?? LIFECYCLE, request.args, { isInit: request.isInit });
  // Every endorser gets the same proposal (one tx id, one creator): endorsements must agree.
  const responses: peer.ProposalResponse[] = [];
  for (const e of endorsers) {
    const node = nodeName(e.peer);
    const response = await withClient(endorserClient, e.peer, (client) =>
      new Promise<peer.ProposalResponse>((resolve, reject) => client.processProposal(proposal, { deadline: deadline(30_000) }, (err, r) => (err ? reject(err) : resolve(r!)))),
    ).catch((err: Error & { details?: string }) => {
      throw new FabricRefusedError(`Peer ${node} refused ${String(request.args[0])} on channel "${channelName}": ${err.details || err.message}`, node, channelName, 'grpc', err.details || err.message);
    });
    const status = response.getResponse()?.getStatus() ?? 0;
    if (status < 200 || status >= 400) {
      const message = response.getResponse()?.getMessage() ?? '';
      throw new FabricRefusedError(`Peer ${node} refused ${String(request.args[0])} on channel "${channelName}": ${message}`, node, channelName, status, message);
    }
    responses.push(response);
  }
  const proposalMessage = peer.Proposal.deserializeBinary(proposal.getProposalBytes_asU8());
  const header = common.Header.deserializeBinary(proposalMessage.getHeader_asU8());
  const endorsed = new peer.ChaincodeEndorsedAction();
  endorsed.setProposalResponsePayload(responses[0].getPayload_asU8());
  endorsed.setEndorsementsList(responses.map((r) => r.getEndorsement()!));
  const actionPayload = new peer.ChaincodeActionPayload();
  actionPayload.setChaincodeProposalPayload(proposalMessage.getPayload_asU8());
  actionPayload.setAction(endorsed);
  const action = new peer.TransactionAction();
  action.setHeader(header.getSignatureHeader_asU8());
  action.setPayload(actionPayload.serializeBinary());
  const tx = new peer.Transaction();
  tx.setActionsList([action]);
  const payload = new common.Payload();
  payload.setHeader(header);
  payload.setData(tx.serializeBinary());
  const payloadBytes = payload.serializeBinary();
  const envelope = new common.Envelope();
  envelope.setPayload(payloadBytes);
  envelope.setSignature(await submitter.sign(payloadBytes));
  await broadcastToOrdering(request.orderer, channelName, envelope, request.consenters?.length ? { consenters: request.consenters } : undefined);
  return awaitCommit({ peer: endorsers[0].peer, signer: submitter }, channelName, txId, request.timeoutMs ?? 60_000);
}

/** Waits until the reader's peer has the transaction in a block; its validation code must be VALID. */
export async function awaitCommit(reader: PeerReader, channelName: string, txId: string, timeoutMs: number): Promise<CommittedTx> {
  const until = Date.now() + timeoutMs;
  // The peer's gateway waits on its own block events (no poll); a peer that cannot answer so
  // (no gateway, a refusal) is asked through qscc every 300 ms as before.
  const waited = await commitStatus(reader, channelName, txId, timeoutMs).catch(() => null);
  if (waited) {
    if (waited.validationCode !== 'VALID') {
      throw new FabricRefusedError(`Transaction ${txId} was committed as ${waited.validationCode} in block ${waited.blockNumber} of channel "${channelName}".`, nodeName(reader.peer), channelName, waited.validationCode, waited.validationCode);
    }
    return { txId, blockNumber: waited.blockNumber, validationCode: waited.validationCode };
  }
  for (;;) {
    try {
      const t = await transaction(reader, channelName, txId);
      if (t.validationCode !== 'VALID') {
        const node = nodeName(reader.peer);
        throw new FabricRefusedError(`Transaction ${txId} was committed as ${t.validationCode} in block ${t.blockNumber} of channel "${channelName}".`, node, channelName, t.validationCode, String(t.validationCode));
      }
      return { txId, blockNumber: t.blockNumber, validationCode: t.validationCode };
    } catch (err) {
      if (err instanceof FabricRefusedError && err.fabricStatus !== 'grpc UNKNOWN' && !/not found|no such/i.test(err.fabricMessage)) throw err;
      if (Date.now() > until) throw new FabricRefusedError(`Transaction ${txId} did not reach a block of channel "${channelName}" within ${timeoutMs / 1000} s.`, nodeName(reader.peer), channelName, 'TIMEOUT', 'not committed in time');
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}

export async function approveForMyOrg(request: { peer: Endpoint; signer: FabricSigner; orderer: Endpoint; consenters?: Endpoint[]; channelName: string; definition: ChaincodeDefinition; packageId: string }): Promise<CommittedTx> {
  const args = fill(new lc.ApproveChaincodeDefinitionForMyOrgArgs(), request.definition);
  const local = new lc.ChaincodeSource.Local();
  local.setPackageId(request.packageId);
  const source = new lc.ChaincodeSource();
  source.setLocalPackage(local);
  args.setSource(source);
  return endorseAndSubmit({ endorsers: [{ peer: request.peer, signer: request.signer }], orderer: request.orderer, consenters: request.consenters, channelName: request.channelName, args: ['ApproveChaincodeDefinitionForMyOrg', args.serializeBinary()] });
}

export async function commitDefinition(request: { endorsers: { peer: Endpoint; signer: FabricSigner }[]; orderer: Endpoint; consenters?: Endpoint[]; channelName: string; definition: ChaincodeDefinition }): Promise<CommittedTx> {
  const args = fill(new lc.CommitChaincodeDefinitionArgs(), request.definition);
  return endorseAndSubmit({ endorsers: request.endorsers, orderer: request.orderer, consenters: request.consenters, channelName: request.channelName, args: ['CommitChaincodeDefinition', args.serializeBinary()] });
}

// Fabric (core/chaincode CheckInit) keeps the initialized version in the chaincode's namespace and
// answers an Init for it again with "... is already initialized but called as init".
const ALREADY_INITIALIZED = /already initialized/;

export async function initChaincode(request: { endorsers: { peer: Endpoint; signer: FabricSigner }[]; orderer: Endpoint; consenters?: Endpoint[]; channelName: string; chaincodeName: string; fn: string | null; args: string[] }): Promise<CommittedTx | null> {
  const args = request.fn ? [request.fn, ...request.args] : request.args;
  try {
    return await endorseAndSubmit({ endorsers: request.endorsers, orderer: request.orderer, consenters: request.consenters, channelName: request.channelName, chaincodeName: request.chaincodeName, isInit: true, args });
  } catch (err) {
    if (err instanceof FabricRefusedError && ALREADY_INITIALIZED.test(err.fabricMessage)) return null;
    throw err;
  }
}
