// Transactions of a user chaincode through a peer's Fabric Gateway (@hyperledger/fabric-gateway),
// as an organization's admin identity whose key stays in its provider (FabricSigner).
//   submitTransaction(request)   -> { txId, result, validationCode, blockNumber } (endorse, order, commit status)
//   evaluateTransaction(request) -> { txId, result } (one peer, nothing ordered)
// Errors: the chaincode's own refusal -> ChaincodeRejectedError (422, its status and message);
// endorsement or commit failures -> FabricRefusedError naming the peers and what they said;
// a peer or orderer that does not answer -> FabricNodeUnreachableError (503).
import { connect, GatewayError, hash, type Gateway } from '@hyperledger/fabric-gateway';
import * as grpc from '@grpc/grpc-js';
import { AppError } from '../../domain/shared/errors.ts';
import { FabricNodeUnreachableError, FabricRefusedError } from '../../domain/consortium/consortiumChannelPorts.ts';
import type { InvokeRequest, InvokeResult } from '../../domain/consortium/consortiumChaincodePorts.ts';
import { dropSharedClient, nodeName, sharedGrpcClient } from './fabricGrpc.ts';

/** The chaincode answered with an error status: what it said, for the caller. */
export class ChaincodeRejectedError extends AppError {
  constructor(message: string, chaincodeStatus: number, chaincodeMessage: string, peers: { address: string; mspId: string; message: string }[]) {
    super(422, 'CHAINCODE_ERROR', message, { extra: { chaincodeStatus, chaincodeMessage, peers } });
  }
}

const CHAINCODE_RESPONSE = /chaincode response (\d+), ([\s\S]*)$/;
// Fabric's CheckInit: an invoke of an initRequired definition whose version was not initialized.
const NOT_INITIALIZED = /has not been initialized for this version, must call as init first/;

function translate(err: unknown, request: InvokeRequest, what: string): Error {
  const node = nodeName(request.gateway.peer);
  const call = `${what} ${request.chaincodeName}.${request.fn} on channel "${request.channelName}"`;
  if (!(err instanceof GatewayError)) {
    if (err instanceof Error && /commit|status/i.test(err.name)) return new FabricRefusedError(`${call}: ${err.message}`, node, request.channelName, err.name, err.message);
    return err as Error;
  }
  const peers = err.details.map((d) => ({ address: d.address, mspId: d.mspId, message: d.message }));
  const said = [err.message, ...peers.map((p) => p.message)];
  const uninitialized = said.find((text) => NOT_INITIALIZED.test(text));
  if (uninitialized) {
    return new FabricRefusedError(`${call}: Fabric refuses it until the chaincode's Init transaction ran (its definition requires Init): deploy it through the service's chaincode deploy, which sends Init after the commit. The peer said: ${uninitialized}`, node, request.channelName, 'NOT_INITIALIZED', uninitialized);
  }
  for (const text of said) {
    const m = CHAINCODE_RESPONSE.exec(text);
    if (m) return new ChaincodeRejectedError(`Chaincode ${request.chaincodeName} rejected ${request.fn}: ${m[2]} (status ${m[1]}).`, Number(m[1]), m[2], peers);
  }
  const named = peers.length ? ` (${peers.map((p) => `${p.address} [${p.mspId}]: ${p.message}`).join('; ')})` : '';
  if (err.code === grpc.status.UNAVAILABLE || err.code === grpc.status.DEADLINE_EXCEEDED) {
    return new FabricNodeUnreachableError(`Peer ${node} could not run ${call}: ${err.message}${named}`, node, request.channelName);
  }
  return new FabricRefusedError(`${call} failed: ${err.message}${named}`, node, request.channelName, `grpc ${grpc.status[err.code] ?? err.code}`, `${err.message}${named}`);
}

const clientOf = sharedGrpcClient;
const dropClient = dropSharedClient;

async function withGateway<T>(request: Pick<InvokeRequest, 'gateway'>, use: (gateway: Gateway) => Promise<T>): Promise<T> {
  const client = clientOf(request.gateway.peer);
  const signer = request.gateway.signer;
  const gateway = connect({
    client,
    identity: { mspId: signer.mspId, credentials: Buffer.from(signer.certificatePem) },
    hash: hash.none,
    signer: (message) => signer.sign(message),
    evaluateOptions: () => ({ deadline: Date.now() + 30_000 }),
    endorseOptions: () => ({ deadline: Date.now() + 30_000 }),
    submitOptions: () => ({ deadline: Date.now() + 30_000 }),
    commitStatusOptions: () => ({ deadline: Date.now() + 60_000 }),
  });
  try {
    return await use(gateway);
  } catch (err) {
    if (err instanceof FabricNodeUnreachableError) dropClient(request.gateway.peer);
    throw err;
  } finally {
    gateway.close();
  }
}

function proposalOf(gateway: Gateway, request: InvokeRequest) {
  const contract = gateway.getNetwork(request.channelName).getContract(request.chaincodeName);
  const transientData = request.transient ? Object.fromEntries(Object.entries(request.transient).map(([k, v]) => [k, Buffer.from(v)])) : undefined;
  return contract.newProposal(request.fn, { arguments: request.args, transientData, endorsingOrganizations: request.endorsingOrganizations });
}

// Right after a commit (or a peer's restart) discovery may not know yet that the other
// organizations' peers run the chaincode: gossip tells it within seconds. Such a refusal is
// asked again for a while before it is an answer.
const NO_ENDORSERS_YET = /no combination of peers can be derived|no peer combination can satisfy/;
const DISCOVERY_WAIT_MS = 20_000;

export async function submitTransaction(request: InvokeRequest): Promise<InvokeResult> {
  const until = Date.now() + DISCOVERY_WAIT_MS;
  for (;;) {
    try {
      return await submitOnce(request);
    } catch (err) {
      if (!(err instanceof FabricRefusedError && NO_ENDORSERS_YET.test(err.fabricMessage)) || Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

async function submitOnce(request: InvokeRequest): Promise<InvokeResult> {
  return withGateway(request, async (gateway) => {
    const proposal = proposalOf(gateway, request);
    const txId = proposal.getTransactionId();
    try {
      const transaction = await proposal.endorse();
      const result = transaction.getResult();
      const commit = await transaction.submit();
      const status = await commit.getStatus();
      const validationCode = statusName(status.code);
      if (!status.successful) {
        const node = nodeName(request.gateway.peer);
        throw new FabricRefusedError(`Transaction ${txId} (${request.chaincodeName}.${request.fn}) was committed as ${validationCode} in block ${status.blockNumber}: it changed nothing.`, node, request.channelName, validationCode, validationCode);
      }
      return { txId, result, validationCode, blockNumber: Number(status.blockNumber) };
    } catch (err) {
      throw translate(err, request, 'submitting');
    }
  });
}

export async function evaluateTransaction(request: InvokeRequest): Promise<InvokeResult> {
  // A query changes nothing: one more try on a fresh connection costs nothing when the peer is back.
  return evaluateOnce(request).catch((err: unknown) => {
    if (err instanceof FabricNodeUnreachableError) return evaluateOnce(request);
    throw err;
  });
}

async function evaluateOnce(request: InvokeRequest): Promise<InvokeResult> {
  return withGateway(request, async (gateway) => {
    const proposal = proposalOf(gateway, request);
    try {
      return { txId: proposal.getTransactionId(), result: await proposal.evaluate() };
    } catch (err) {
      throw translate(err, request, 'evaluating');
    }
  });
}

import { gateway as gatewayProtos, msp, peer } from '@hyperledger/fabric-protos';
const codeNames = Object.fromEntries(Object.entries(peer.TxValidationCode).map(([name, code]) => [code, name]));
const statusName = (code: number) => codeNames[code] ?? String(code);

/**
 * Waits on the peer's gateway until the transaction is in a block and says its validation code
 * and block: the peer's commit notifier answers at once when its ledger has the transaction and
 * otherwise when the block arrives, so nothing is polled. Any transaction id, however it was
 * submitted (a lifecycle transaction broadcast to the orderer, say).
 */
export async function commitStatus(reader: InvokeRequest['gateway'], channelName: string, txId: string, timeoutMs: number): Promise<{ validationCode: string; blockNumber: number }> {
  return withGateway({ gateway: reader }, async (gw) => {
    const identity = new msp.SerializedIdentity();
    identity.setMspid(reader.signer.mspId);
    identity.setIdBytes(Buffer.from(reader.signer.certificatePem));
    const request = new gatewayProtos.CommitStatusRequest();
    request.setTransactionId(txId);
    request.setChannelId(channelName);
    request.setIdentity(identity.serializeBinary());
    const signed = new gatewayProtos.SignedCommitStatusRequest();
    signed.setRequest(request.serializeBinary());
    // Unsigned here: the gateway's identity (the reader's signer) signs it.
    const status = await gw.newCommit(signed.serializeBinary()).getStatus({ deadline: Date.now() + timeoutMs });
    return { validationCode: statusName(status.code), blockNumber: Number(status.blockNumber) };
  });
}
