// The instance-to-instance API, served on the sharing listener (HTTPS with this instance's
// self-signed certificate, which peers pin). No user credentials here: the relationship
// authenticates. /accept carries an invitation this instance signed (unexpired, unused) and a
// request token signed by the key the accepting instance introduces; /sync carries a request
// token signed by the key of a known, not revoked peer. Every token is bound to its body.
import Koa from 'koa';
import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { AppError, EditionRequiredError, ForbiddenError, UnauthenticatedError, ValidationError } from '../../domain/shared/errors.ts';
import { NODE_SHARING_STREAM, nodeSharing, type SharedNode } from '../../domain/sharing/nodeSharing.ts';
import { sharingPeerByInstance } from '../../projections/nodeSharing.ts';
import { runCommand } from '../../application/commands.ts';
import type { AppDeps } from '../../application/deps.ts';
import { receiveProposal, receiveSignatures } from '../../application/sharing/configProposals.ts';
import { receiveChaincode, receiveChaincodeCommitted } from '../../application/sharing/sharedChaincodes.ts';
import { INVITATION_AUDIENCE, PEER_AUDIENCE, instanceIdentity, localMetadata, receivedMetadata, sharingOf } from '../../application/sharing/sharingContext.ts';

const MAX_BODY = 5 * 1024 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('base64url');

async function rawBody(ctx: Koa.Context): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of ctx.req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new AppError(413, 'BODY_TOO_LARGE', 'The request body is too large.');
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}

const bearerOf = (ctx: Koa.Context) => /^Bearer (.+)$/.exec(ctx.get('authorization'))?.[1] ?? null;

function nodesOf(v: unknown): SharedNode[] {
  if (!Array.isArray(v) || v.length > 10_000) throw new ValidationError('nodes must be an array of node metadata.', [{ field: 'nodes', message: 'an array' }]);
  return v as SharedNode[];
}

/** Verifies a peer request token with the given key: signed by it, addressed to this instance, over this body. */
async function verifyRequest(deps: AppDeps, token: string | null, jwk: Record<string, string>, body: Buffer): Promise<Record<string, unknown>> {
  if (!token) throw new UnauthenticatedError('A signed request token is required.');
  const v = await sharingOf(deps).verifyJwt(token, { jwk, audience: PEER_AUDIENCE });
  if ('failure' in v) throw new UnauthenticatedError(`The request token is refused: ${v.reason}.`);
  if (v.payload.sub !== deps.config.instanceId) throw new UnauthenticatedError('The request token is addressed to another instance.');
  if (v.payload.bh !== sha256(body)) throw new UnauthenticatedError('The request token was signed over another body.');
  return v.payload;
}

export function peerApi(deps: AppDeps): Koa {
  const app = new Koa();
  const input = (ctx: Koa.Context) => ({ deps, ctx, identity: null, requestId: deps.newId() });
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const e = err instanceof AppError ? err : new AppError(500, 'INTERNAL', 'Internal error.');
      if (!(err instanceof AppError)) deps.log.error({ err: (err as Error).message }, 'sharing peer API failed');
      ctx.status = e.status;
      ctx.body = { status: e.status, code: e.code, message: e.expose ? e.message : 'Internal error.' };
    }
  });
  const recordNetworksShared = async (ctx: Koa.Context, peerId: number, networks: Array<{ networkId: number; channelName: string }>) => {
    if (networks.length) await runCommand(input(ctx), NODE_SHARING_STREAM, nodeSharing, { type: 'RecordNetworksShared', peerId, networks, at: deps.clock().toISOString() });
  };
  app.use(async (ctx) => {
    if (ctx.method !== 'POST') throw new AppError(405, 'METHOD_NOT_ALLOWED', 'POST only.');
    if (deps.config.edition === 'community') throw new EditionRequiredError('Node sharing', 'pro', deps.config.edition);
    const raw = await rawBody(ctx);
    let body: Record<string, any>;
    try {
      body = JSON.parse(raw.toString() || '{}');
    } catch {
      throw new ValidationError('The body must be JSON.');
    }
    const sharing = sharingOf(deps);
    const me = await instanceIdentity(input(ctx));
    const now = deps.clock().toISOString();
    if (ctx.path === '/sharing/v1/accept') {
      const peer = body.instance ?? {};
      if (typeof peer.instanceId !== 'string' || typeof peer.url !== 'string' || typeof peer.tlsCertificate !== 'string' || typeof peer.publicJwk !== 'object' || !peer.publicJwk) {
        throw new ValidationError('instance must give instanceId, url, tlsCertificate and publicJwk.', [{ field: 'instance', message: 'incomplete' }]);
      }
      await verifyRequest(deps, bearerOf(ctx), peer.publicJwk, raw);
      // The invitation must be this instance's own: verified with its own public key.
      const ownJwk = await sharing.publicJwk(me.publicKeyPem);
      const inv = await sharing.verifyJwt(String(body.invitation_jwt ?? ''), { jwk: ownJwk, audience: INVITATION_AUDIENCE });
      if ('failure' in inv) {
        if (inv.failure === 'expired') throw new ValidationError('The invitation has expired; ask for a new one.', [{ field: 'invitation_jwt', message: 'expired' }], 'INVITATION_EXPIRED');
        throw new UnauthenticatedError(`The invitation is not one this instance issued: ${inv.reason}.`);
      }
      const invitationId = String(inv.payload.jti);
      await runCommand(input(ctx), NODE_SHARING_STREAM, nodeSharing, { type: 'ConsumeInvitation', invitationId, peerInstanceId: peer.instanceId, at: now });
      const bidirectional = inv.payload.bidirectional === true;
      const peerId = await deps.nextId('sharing_peer');
      await runCommand(input(ctx), NODE_SHARING_STREAM, nodeSharing, {
        type: 'ConnectPeer', peerId, role: 'inviter', invitationId, instanceId: peer.instanceId, url: peer.url, tlsCertificate: peer.tlsCertificate,
        tlsFingerprint: sharing.fingerprintOf(peer.tlsCertificate), publicJwk: peer.publicJwk, sharesWithPeer: bidirectional, peerShares: true, at: now,
      });
      nodesOf(body.nodes);
      const theirs = receivedMetadata(body);
      await runCommand(input(ctx), NODE_SHARING_STREAM, nodeSharing, { type: 'RecordPeerNodes', peerId, ...theirs, at: now });
      const mine = bidirectional ? await localMetadata(deps, theirs.organizations.map((o) => o.mspId)) : { nodes: [], organizations: [], networks: [] };
      await recordNetworksShared(ctx, peerId, mine.networks);
      ctx.body = { instance: { instanceId: deps.config.instanceId, url: sharing.tls.url, tlsCertificate: sharing.tls.certificatePem, publicJwk: ownJwk }, ...mine };
      return;
    }
    // Every other path: a known, active peer's request, signed by its key over this body.
    const token = bearerOf(ctx);
    let claimed: string | undefined;
    try {
      claimed = token ? (decodeJwt(token).iss as string | undefined) : undefined;
    } catch {
      claimed = undefined;
    }
    const peer = claimed ? await sharingPeerByInstance(deps.pool, claimed) : null;
    if (!peer) throw new UnauthenticatedError('Unknown peer instance.');
    await verifyRequest(deps, token, peer.publicJwk, raw);
    if (peer.status !== 'active') throw new ForbiddenError('This peer relationship was revoked.');
    if (ctx.path === '/sharing/v1/sync') {
      nodesOf(body.nodes ?? []);
      const theirs = receivedMetadata(body);
      if (peer.peerShares) await runCommand(input(ctx), NODE_SHARING_STREAM, nodeSharing, { type: 'RecordPeerNodes', peerId: peer.id, ...theirs, at: now });
      const mspIds = (peer.peerShares ? theirs.organizations : peer.organizations).map((o) => o.mspId);
      const mine = peer.sharesWithPeer ? await localMetadata(deps, mspIds) : { nodes: [], organizations: [], networks: [] };
      await recordNetworksShared(ctx, peer.id, mine.networks);
      ctx.body = mine;
      return;
    }
    if (ctx.path === '/sharing/v1/proposals') {
      await receiveProposal(input(ctx), peer, body);
      ctx.status = 201;
      ctx.body = { received: true };
      return;
    }
    if (ctx.path === '/sharing/v1/signatures') {
      await receiveSignatures(input(ctx), peer, body);
      ctx.status = 201;
      ctx.body = { received: true };
      return;
    }
    if (ctx.path === '/sharing/v1/chaincodes/committed') {
      ctx.body = await receiveChaincodeCommitted(input(ctx), peer, body);
      return;
    }
    if (ctx.path === '/sharing/v1/chaincodes') {
      ctx.body = await receiveChaincode(input(ctx), peer, body);
      ctx.status = 201;
      return;
    }
    throw new AppError(404, 'NOT_FOUND', `No ${ctx.path} here.`);
  });
  return app;
}
