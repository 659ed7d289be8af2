// The instance-to-instance API, served on the sharing listener (HTTPS with this instance's
// self-signed certificate, which peers pin). No user credentials here: the relationship
// authenticates. /accept carries an invitation this instance signed (unexpired, unused) and a
// request token signed by the key the accepting instance introduces; /sync carries a request
// token signed by the key of a known, not revoked peer. Every token is bound to its body.
import Koa from 'koa';
import { Type, type TSchema } from '@sinclair/typebox';
import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { AppError, EditionRequiredError, ForbiddenError, UnauthenticatedError, ValidationError } from '../../domain/shared/errors.ts';
import { NODE_SHARING_STREAM, nodeSharing } from '../../domain/sharing/nodeSharing.ts';
import { sharingPeerByInstance } from '../../projections/nodeSharing.ts';
import { runCommand } from '../../application/commands.ts';
import type { AppDeps } from '../../application/deps.ts';
import { receiveProposal, receiveSignatures } from '../../application/sharing/configProposals.ts';
import { receiveChaincode, receiveChaincodeCommitted } from '../../application/sharing/sharedChaincodes.ts';
import { INVITATION_AUDIENCE, PEER_AUDIENCE, instanceIdentity, localMetadata, sharingOf } from '../../application/sharing/sharingContext.ts';
import { AcceptBody, ChaincodeCommittedBody, MetadataBody, ProposalBody, SignaturesBody, checkedBody, receivedMetadata } from '../../application/sharing/sharingBodies.ts';
import { errorBody } from '../errors.ts';

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

/** Verifies a peer request token with the given key: signed by it, addressed to this instance, over this body. */
async function verifyRequest(deps: AppDeps, token: string | null, jwk: Record<string, string>, body: Buffer): Promise<Record<string, unknown>> {
  if (!token) throw new UnauthenticatedError('A signed request token is required.');
  const v = await sharingOf(deps).verifyJwt(token, { jwk, audience: PEER_AUDIENCE });
  if ('failure' in v) throw new UnauthenticatedError(`The request token is refused: ${v.reason}.`);
  if (v.payload.sub !== deps.config.instanceId) throw new UnauthenticatedError('The request token is addressed to another instance.');
  if (v.payload.bh !== sha256(body)) throw new UnauthenticatedError('The request token was signed over another body.');
  return v.payload;
}

/** Every path of the listener with the schema of its body. */
const ROUTES = new Map<string, TSchema>([
  ['/sharing/v1/accept', AcceptBody],
  ['/sharing/v1/sync', MetadataBody],
  ['/sharing/v1/proposals', ProposalBody],
  ['/sharing/v1/signatures', SignaturesBody],
  ['/sharing/v1/chaincodes', Type.Unknown()], // its schema is checked by receiveChaincode
  ['/sharing/v1/chaincodes/committed', ChaincodeCommittedBody],
]);

export function peerApi(deps: AppDeps): Koa {
  const app = new Koa();
  const input = (ctx: Koa.Context) => ({ deps, ctx, identity: null, requestId: deps.newId() });
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      // The one error body of the API ({status, code, message, details?, requestId}).
      if (!(err instanceof AppError)) deps.log.error({ err: (err as Error).message }, 'sharing peer API failed');
      const { status, body } = errorBody(err, deps.newId());
      ctx.status = status;
      ctx.body = body;
    }
  });
  const recordNetworksShared = async (ctx: Koa.Context, peerId: number, networks: Array<{ networkId: number; channelName: string }>) => {
    if (networks.length) await runCommand(input(ctx), NODE_SHARING_STREAM, nodeSharing, { type: 'RecordNetworksShared', peerId, networks, at: deps.clock().toISOString() });
  };
  app.use(async (ctx) => {
    if (ctx.method !== 'POST') throw new AppError(405, 'METHOD_NOT_ALLOWED', 'POST only.');
    if (deps.config.edition === 'community') throw new EditionRequiredError('Node sharing', 'pro', deps.config.edition);
    if (!ROUTES.has(ctx.path)) throw new AppError(404, 'NOT_FOUND', `No ${ctx.path} here.`);
    if (!/^application\/json\s*(;|$)/i.test(ctx.get('content-type'))) throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'The body must be application/json.');
    const raw = await rawBody(ctx);
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new AppError(400, 'MALFORMED_JSON', 'The request body is not valid JSON.');
    }
    // Checked against the path's schema before anything else is done with it.
    const body = checkedBody(ROUTES.get(ctx.path)!, parsed, `POST ${ctx.path}`) as Record<string, any>;
    const sharing = sharingOf(deps);
    const me = await instanceIdentity(input(ctx));
    const now = deps.clock().toISOString();
    if (ctx.path === '/sharing/v1/accept') {
      const peer = body.instance;
      let tlsFingerprint: string;
      try {
        tlsFingerprint = sharing.fingerprintOf(peer.tlsCertificate);
      } catch {
        throw new ValidationError('instance.tlsCertificate is not a certificate.', [{ field: 'instance.tlsCertificate', message: 'not a certificate' }]);
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
        tlsFingerprint, publicJwk: peer.publicJwk, sharesWithPeer: bidirectional, peerShares: true, at: now,
      });
      const theirs = receivedMetadata(body as never);
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
      const theirs = receivedMetadata(body as never);
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
