// Submits one envelope to an orderer's Broadcast service and waits for its answer. SUCCESS means
// the orderer accepted it for ordering (not yet that a block holds it); anything else comes back as
// an error naming the orderer, the channel and Fabric's status and info.
//   broadcastEnvelope(orderer, channelName, envelope) -> void
//   broadcastToOrdering(orderer, channelName, envelope, bft?) -> void: one orderer (etcdraft), or on a
//     BFT channel every consenter given in parallel until a quorum accepted (Fabric's gateway does
//     the same: a follower holds a request for requestForwardTimeout before it forwards it to the leader)
//   awaitQuorum(attempts, quorum) -> void: the acknowledgement counting
import { common, orderer } from '@hyperledger/fabric-protos';
import { FabricNodeUnreachableError, FabricRefusedError, FabricUnavailableError } from '../../domain/consortium/consortiumChannelPorts.ts';
import { retryableStatuses, retryWhileUnavailable } from './fabricRetry.ts';
import type { Endpoint } from '../../domain/consortium/consortiumPorts.ts';
import { atomicBroadcastClient, deadline, nodeName, withClient } from './fabricGrpc.ts';
import { bftQuorum } from '../../domain/consortium/consortiumDefaults.ts';
import { UnavailableError } from '../../domain/shared/errors.ts';

const statusNames = Object.fromEntries(Object.entries(common.Status).map(([name, code]) => [code, name]));

/** A "not now" from the orderer (no raft leader yet) is retried for a while (fabricRetry.ts): it accepted nothing. */
export function broadcastEnvelope(ordererEndpoint: Endpoint, channelName: string, envelope: common.Envelope, timeoutMs = 30_000): Promise<void> {
  return retryWhileUnavailable(() => broadcastOnce(ordererEndpoint, channelName, envelope, timeoutMs));
}

/** The consenters of a BFT channel to broadcast to (besides the read orderer), and the channel's consenter count (its ConsenterMapping). */
export interface BftBroadcast {
  consenters: Endpoint[];
  /** The channel's consenter count; absent (a transaction whose sender holds no config): the orderers sent to. */
  clusterSize?: number;
}

/**
 * Every attempt started at once; resolves when `quorum` of them succeeded, rejects as soon as more
 * than `attempts - quorum` failed (the quorum can no longer be met) with the first refusal's kind
 * (FabricRefusedError 400/409 when an orderer refused it, else unavailable) and every failure named.
 * As Fabric 3.x's gateway submitBFT (internal/pkg/gateway/api.go): quorum of successes, give up at
 * failures > total - quorum.
 */
export function awaitQuorum(attempts: Array<{ name: string; run: () => Promise<void> }>, quorum: number, what: string): Promise<void> {
  const need = Math.max(1, Math.min(quorum, attempts.length));
  return new Promise<void>((resolve, reject) => {
    let successes = 0;
    const failures: Array<{ name: string; err: Error }> = [];
    let settled = false;
    for (const a of attempts) {
      Promise.resolve().then(a.run).then(() => {
        successes++;
        if (!settled && successes >= need) {
          settled = true;
          resolve();
        }
      }, (err: Error) => {
        failures.push({ name: a.name, err });
        if (!settled && failures.length > attempts.length - need) {
          settled = true;
          const detail = failures.map((f) => `${f.name}: ${f.err.message}`).join('; ');
          if (attempts.length === 1) return reject(failures[0].err);
          const refused = failures.find((f) => f.err instanceof FabricRefusedError)?.err as FabricRefusedError | undefined;
          if (refused) return reject(new FabricRefusedError(`${need} of ${attempts.length} orderers had to accept ${what}, ${successes} did: ${detail}`, refused.node, refused.channelName, refused.fabricStatus, refused.fabricMessage, refused.status === 400 ? 400 : 409));
          reject(new UnavailableError(`${need} of ${attempts.length} orderers had to accept ${what}, ${successes} did: ${detail}`, { accepted: successes, quorum: need, orderers: attempts.map((x) => x.name) }));
        }
      });
    }
  });
}

/**
 * The service's own envelopes (config updates, chaincode lifecycle): to `orderer` alone (etcdraft:
 * a follower forwards to the raft leader at once), or with `bft` to `orderer` and every consenter
 * given in parallel, done when the BFT quorum ceil((n+f+1)/2) of the channel's n consenters
 * accepted it, or every one reachable when fewer are given (SmartBFT's request pool takes the
 * same request once; "request already exists" counts as accepted).
 */
export function broadcastToOrdering(ordererEndpoint: Endpoint, channelName: string, envelope: common.Envelope, bft?: BftBroadcast, timeoutMs = 30_000): Promise<void> {
  const { targets, quorum } = orderingTargets(ordererEndpoint, bft);
  if (targets.length === 1) return broadcastEnvelope(targets[0], channelName, envelope, timeoutMs);
  return awaitQuorum(targets.map((e) => ({ name: nodeName(e), run: () => broadcastEnvelope(e, channelName, envelope, timeoutMs) })), quorum, `the transaction for channel "${channelName}"`);
}

/** Where broadcastToOrdering sends an envelope and how many must accept it: `orderer` alone, or on a BFT channel it and every other consenter given, with ceil((n+f+1)/2) of the channel's n consenters (at most all of them given). */
export function orderingTargets(ordererEndpoint: Endpoint, bft?: BftBroadcast): { targets: Endpoint[]; quorum: number } {
  if (!bft) return { targets: [ordererEndpoint], quorum: 1 };
  const targets = [ordererEndpoint];
  for (const e of bft.consenters) if (!targets.some((t) => t.host === e.host && t.port === e.port)) targets.push(e);
  return { targets, quorum: Math.min(bftQuorum(bft.clusterSize ?? targets.length), targets.length) };
}

/**
 * SmartBFT: an orderer answering that it already holds the request ("request already exists": sent
 * again, or forwarded to it by another consenter) or has already ordered it ("request already
 * processed", Fabric 3.1.5, when the other consenters' copy was cut into a block first) took it:
 * accepted, not a refusal.
 */
export function bftAlreadyHas(status: number, info: string): boolean {
  return status === common.Status.SERVICE_UNAVAILABLE && /request already (exists|processed)/.test(info);
}

async function broadcastOnce(ordererEndpoint: Endpoint, channelName: string, envelope: common.Envelope, timeoutMs: number): Promise<void> {
  const node = nodeName(ordererEndpoint);
  const who = `Orderer ${node}`;
  await withClient(atomicBroadcastClient, ordererEndpoint, (client) => {
    const stream = client.broadcast({ deadline: deadline(timeoutMs) });
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const finish = (err: Error | null) => {
        if (settled) return;
        settled = true;
        stream.end();
        if (err) reject(err);
        else resolve();
      };
      stream.on('data', (response: orderer.BroadcastResponse) => {
        const status = response.getStatus();
        if (status === common.Status.SUCCESS) return finish(null);
        const info = response.getInfo();
        if (bftAlreadyHas(status, info)) return finish(null);
        const name = statusNames[status] ?? String(status);
        // SERVICE_UNAVAILABLE: no raft leader right now (election under way, quorum lost); retried by broadcastEnvelope.
        if (retryableStatuses.has(status)) {
          return finish(new FabricUnavailableError(`${who} cannot order for channel "${channelName}" now: ${name}${info ? ` (${info})` : ''}; retry shortly.`, node, channelName, name));
        }
        finish(new FabricRefusedError(`${who} refused the transaction for channel "${channelName}": ${name}${info ? ` (${info})` : ''}.`, node, channelName, name, info, status === common.Status.BAD_REQUEST ? 400 : 409));
      });
      stream.on('error', (err: Error) => finish(new FabricNodeUnreachableError(`Broadcasting to orderer ${node} for channel "${channelName}" failed: ${err.message}`, node, channelName)));
      stream.on('end', () => finish(new FabricNodeUnreachableError(`${who} closed the broadcast stream for channel "${channelName}" without an answer.`, node, channelName)));
      stream.write(envelope);
    });
  });
}
