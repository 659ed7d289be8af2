// Node sharing (pro): invitations (ES256 JWTs signed through the key provider, with an expiry,
// single use), accepting one (verified here, then a call to the inviter over TLS with its
// certificate pinned from the invitation), syncing a peer's node metadata, and the peers.
import { Type } from '@sinclair/typebox';
import { createHash } from 'node:crypto';
import { defineRoute } from '../route.ts';
import { runCommand } from '../../application/commands.ts';
import { Page, PageQuery, page } from '../pagination.ts';
import { IdParam } from './schemas.ts';
import { AppError, ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { NODE_SHARING_STREAM, nodeSharing } from '../../domain/sharing/nodeSharing.ts';
import { getSharingPeer, listSharingPeers, type SharingPeerRow } from '../../projections/nodeSharing.ts';
import { importSharedNetwork } from '../../application/sharing/sharedNetworkImport.ts';
import type { PinnedResponse } from '../../domain/sharing/sharingPorts.ts';
import { INVITATION_AUDIENCE, instanceIdentity, localMetadata, peerRequestToken, sharingOf, sharingState } from '../../application/sharing/sharingContext.ts';
import { AcceptAnswer, MetadataBody, checkedAnswer, receivedMetadata } from '../../application/sharing/sharingBodies.ts';
import type { AppDeps } from '../../application/deps.ts';

const tags = ['node sharing'];
const edition = { edition: 'pro' as const, feature: 'Node sharing' };
const DAY = 86_400;

const SharedNodeView = Type.Object({
  id: Type.Integer(), name: Type.String(), platform: Type.String(), nodeType: Type.String(), role: Type.String(), status: Type.String(),
  mspId: Type.Union([Type.String(), Type.Null()]), host: Type.String(), ports: Type.Record(Type.String(), Type.Integer()), endpoint: Type.Union([Type.String(), Type.Null()]),
  tlsCertificate: Type.Union([Type.String(), Type.Null()], { description: 'public certificate (PEM)' }), identityCertificate: Type.Union([Type.String(), Type.Null()]), validatorAddress: Type.Union([Type.String(), Type.Null()]),
});
const PeerView = Type.Object({
  id: Type.Integer({ description: 'the peer_node_id of POST /nodesharing/sync' }),
  instance_id: Type.String(),
  url: Type.String({ description: 'the peer\'s sharing listener' }),
  tls_fingerprint: Type.String({ description: 'SHA-256 of the peer\'s pinned certificate' }),
  role: Type.String({ description: 'inviter: this instance invited the peer; acceptor: it accepted the peer\'s invitation' }),
  bidirectional: Type.Boolean(),
  shares_with_peer: Type.Boolean({ description: 'the peer sees this instance\'s nodes' }),
  peer_shares: Type.Boolean({ description: 'this instance sees the peer\'s nodes' }),
  status: Type.String(),
  nodes: Type.Array(SharedNodeView, { description: 'the peer\'s nodes as of the last sync' }),
  organizations: Type.Array(Type.String(), { description: 'MSP ids of the organizations the peer shares (their public MSPs can be added to a channel here)' }),
  networks: Type.Array(Type.Object({ network_id: Type.Integer(), name: Type.String(), channel_name: Type.String(), organizations: Type.Array(Type.String()), orderer_endpoints: Type.Array(Type.String()) }), { description: 'the peer\'s channels that an organization of this instance belongs to (import them to join)' }),
  last_sync_at: Type.Union([Type.String(), Type.Null()]),
  connected_at: Type.String(),
});

const peerView = (p: SharingPeerRow) => ({
  id: p.id, instance_id: p.instanceId, url: p.url, tls_fingerprint: p.tlsFingerprint, role: p.role, bidirectional: p.sharesWithPeer && p.peerShares,
  shares_with_peer: p.sharesWithPeer, peer_shares: p.peerShares, status: p.status, nodes: p.nodes,
  organizations: p.organizations.map((o) => o.mspId),
  networks: p.networks.map((n) => ({ network_id: n.networkId, name: n.name, channel_name: n.channelName, organizations: n.organizations, orderer_endpoints: n.ordererEndpoints })),
  last_sync_at: p.lastSyncAt, connected_at: p.createdAt,
});

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('base64url');

const InvitationJwt = Type.String({ minLength: 1, maxLength: 20_000, pattern: '^[A-Za-z0-9_.-]+$' });
const InvitationPreview = Type.Object({
  invitation_id: Type.String(),
  inviter_instance_id: Type.String(),
  url: Type.String({ description: 'the inviter\'s sharing listener' }),
  tls_fingerprint: Type.String({ description: 'SHA-256 of the inviter\'s TLS certificate, which is pinned' }),
  key_fingerprint: Type.String({ description: 'RFC 7638 SHA-256 thumbprint (base64url) of the key that signed the invitation: confirm it with the inviter' }),
  bidirectional: Type.Boolean(),
  expires_at: Type.String(),
});

interface CheckedInvitation {
  claims: { iss: string; jti: string; url: string; tls_certificate: string; exp: number; bidirectional?: unknown };
  jwk: Record<string, string>;
  keyFingerprint: string;
  tlsFingerprint: string;
}

/** An invitation verified (signature, expiry, claims, certificate) without contacting anyone. */
async function checkedInvitation(deps: AppDeps, jwt: string): Promise<CheckedInvitation> {
  const sharing = sharingOf(deps);
  const v = await sharing.verifyJwt(jwt, { audience: INVITATION_AUDIENCE });
  if ('failure' in v) {
    if (v.failure === 'expired') throw new ValidationError('The invitation has expired; ask for a new one.', [{ field: 'invitation_jwt', message: 'expired' }], 'INVITATION_EXPIRED');
    throw new ValidationError(`The invitation is not valid: ${v.reason}.`, [{ field: 'invitation_jwt', message: v.reason }], 'INVITATION_INVALID');
  }
  const c = v.payload;
  const bad = (m: string) => new ValidationError(`The invitation is not valid: ${m}.`, [{ field: 'invitation_jwt', message: m }], 'INVITATION_INVALID');
  if (typeof c.iss !== 'string' || typeof c.jti !== 'string' || typeof c.url !== 'string' || typeof c.tls_certificate !== 'string' || typeof c.exp !== 'number') throw bad('claims iss, jti, url, tls_certificate and exp are required');
  if (c.iss.length > 128 || c.jti.length > 100 || c.url.length > 2048) throw bad('a claim is too long');
  if (!/^https:\/\/[^\s/?#]+\/?$/.test(c.url)) throw bad('the inviting instance\'s url must be https://host:port');
  let tlsFingerprint: string;
  try {
    tlsFingerprint = sharing.fingerprintOf(c.tls_certificate);
  } catch {
    throw bad('tls_certificate is not a certificate');
  }
  if (tlsFingerprint !== c.tls_fingerprint) throw bad('tls_fingerprint does not match tls_certificate');
  if (c.iss === deps.config.instanceId) throw bad('this instance issued it; give it to another instance');
  let keyFingerprint: string;
  try {
    keyFingerprint = await sharing.thumbprint(v.jwk);
  } catch {
    throw bad('the key in its header is not a public key');
  }
  return { claims: c as CheckedInvitation['claims'], jwk: v.jwk, keyFingerprint, tlsFingerprint };
}

const previewOf = (inv: CheckedInvitation) => ({
  invitation_id: inv.claims.jti, inviter_instance_id: inv.claims.iss, url: inv.claims.url, tls_fingerprint: inv.tlsFingerprint, key_fingerprint: inv.keyFingerprint,
  bidirectional: inv.claims.bidirectional === true, expires_at: new Date(inv.claims.exp * 1000).toISOString(),
});

/** A call to a peer; its refusals come back with their status and code, an unreachable peer is a 502. */
async function callPeer(deps: AppDeps, url: string, certificatePem: string, path: string, body: unknown, token: string): Promise<PinnedResponse> {
  let r: PinnedResponse;
  try {
    r = await sharingOf(deps).postPinned(url, certificatePem, path, body, token);
  } catch (err) {
    throw new AppError(502, 'PEER_UNREACHABLE', `The peer instance at ${url} could not be reached over TLS with its pinned certificate: ${(err as Error).message}`);
  }
  if (r.status >= 200 && r.status < 300) return r;
  const message = `The peer instance refused: ${String(r.body?.message ?? r.status)}`;
  if (r.status === 409) throw new ConflictError(message, { peer: url }, String(r.body?.code ?? 'CONFLICT'));
  if (r.status === 400) throw new ValidationError(message, [{ field: 'invitation_jwt', message: String(r.body?.code ?? 'refused') }], String(r.body?.code ?? 'VALIDATION_FAILED'));
  if (r.status === 401 || r.status === 403) throw new ForbiddenError(message, { peerStatus: r.status, peerCode: r.body?.code });
  throw new AppError(502, 'PEER_FAILED', message);
}

/** The body and its request token, signed over exactly the bytes sent. */
async function signedCall(deps: AppDeps, me: Awaited<ReturnType<typeof instanceIdentity>>, peerInstanceId: string, url: string, cert: string, path: string, body: unknown) {
  const token = await peerRequestToken(deps, me, peerInstanceId, sha256(Buffer.from(JSON.stringify(body))));
  return callPeer(deps, url, cert, path, body, token);
}

export const nodeSharingRoutes = [
  defineRoute({
    method: 'post', path: '/nodesharing/invitations', summary: 'Create an invitation (a signed JWT with an expiry, single use) for another instance', tags, permission: 'SHARING_MANAGE', ...edition,
    description: 'bidirectional: both instances see each other\'s nodes; otherwise only the accepting instance shares its nodes. The JWT (ES256) is signed by this instance\'s sharing key, held by its key provider, and carries the address of this instance\'s sharing listener and its TLS certificate, which the accepting instance pins.',
    body: Type.Object({
      bidirectional: Type.Optional(Type.Boolean({ default: false })),
      expiresInSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 * DAY, description: 'default 86400 (one day)' })),
    }, { additionalProperties: false }),
    responses: { 201: { description: 'the invitation', schema: Type.Object({ invitation_jwt: Type.String(), invitation_id: Type.String(), bidirectional: Type.Boolean(), expires_at: Type.String(), key_fingerprint: Type.String({ description: 'RFC 7638 SHA-256 thumbprint (base64url) of this instance\'s sharing key: the acceptor must confirm it' }) }) }, 503: { description: 'the sharing listener is not configured (LNM_SHARING_PORT)' } },
    async handler(input) {
      const { deps, body } = input;
      const sharing = sharingOf(deps);
      const me = await instanceIdentity(input);
      const now = deps.clock();
      const iat = Math.floor(now.getTime() / 1000);
      const exp = iat + (body.expiresInSeconds ?? DAY);
      const invitationId = deps.newId();
      const bidirectional = body.bidirectional ?? false;
      const jwt = await sharing.signJwt({
        iss: deps.config.instanceId, aud: INVITATION_AUDIENCE, jti: invitationId, iat, exp, bidirectional,
        url: sharing.tls.url, tls_certificate: sharing.tls.certificatePem, tls_fingerprint: sharing.tls.fingerprint,
      }, me.publicKeyPem, me.sign, true);
      const expiresAt = new Date(exp * 1000).toISOString();
      await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'IssueInvitation', invitationId, bidirectional, expiresAt, at: now.toISOString() });
      const keyFingerprint = await sharing.thumbprint(await sharing.publicJwk(me.publicKeyPem));
      return { status: 201, body: { invitation_jwt: jwt, invitation_id: invitationId, bidirectional, expires_at: expiresAt, key_fingerprint: keyFingerprint } };
    },
  }),
  defineRoute({
    method: 'post', path: '/nodesharing/invitations/preview', summary: 'What an invitation says and who signed it, before accepting it: the inviter\'s key fingerprint to confirm', tags, permission: 'system:configure', ...edition,
    description: 'Verifies the invitation (signature with the key it carries, expiry) and answers what accepting it would trust: the inviting instance, its sharing address, the fingerprint of its TLS certificate and the fingerprint of the key that signed the invitation (RFC 7638 SHA-256 JWK thumbprint, base64url). Compare key_fingerprint with the one the inviter was shown (its POST /nodesharing/invitations answer) over another channel, then accept with it. Nothing is recorded and the inviter is not contacted.',
    body: Type.Object({ invitation_jwt: InvitationJwt }, { additionalProperties: false }),
    responses: { 200: { description: 'the invitation', schema: InvitationPreview }, 400: { description: 'the invitation is not a valid signed JWT (INVITATION_INVALID) or expired (INVITATION_EXPIRED)' } },
    async handler({ deps, body }) {
      const inv = await checkedInvitation(deps, body.invitation_jwt);
      return { body: previewOf(inv) };
    },
  }),
  defineRoute({
    method: 'post', path: '/nodesharing/accept', summary: 'Accept another instance\'s invitation: verified, its key fingerprint confirmed, then node metadata exchanged with it over pinned TLS', tags, permission: 'system:configure', ...edition,
    description: 'Accepting is a trust decision: it needs system:configure (ADMIN by default), and `fingerprint` must be the key_fingerprint of the invitation (POST /nodesharing/invitations/preview shows it; the inviter sees it when it creates the invitation): without it the answer is 409 FINGERPRINT_CONFIRMATION_REQUIRED with the fingerprint in context, with another one 409 FINGERPRINT_MISMATCH, and nothing is sent. The inviter\'s answer is checked against the sharing schema (502 PEER_INVALID_ANSWER naming the fields) and only the schema\'s fields are recorded.',
    body: Type.Object({
      invitation_jwt: InvitationJwt,
      fingerprint: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'the key_fingerprint of the invitation, as confirmed with the inviter' })),
    }, { additionalProperties: false }),
    responses: {
      201: { description: 'the peer, with its nodes', schema: PeerView },
      400: { description: 'the invitation is not a valid signed JWT (tampered), or it expired (INVITATION_EXPIRED)' },
      409: { description: 'no fingerprint confirmed (FINGERPRINT_CONFIRMATION_REQUIRED) or another one (FINGERPRINT_MISMATCH); the invitation was already used (INVITATION_USED), or the instances are already peers' },
      502: { description: 'the inviting instance could not be reached, did not present the pinned certificate, or answered outside the sharing schema (PEER_INVALID_ANSWER)' },
    },
    async handler(input) {
      const { deps, body } = input;
      const sharing = sharingOf(deps);
      const inv = await checkedInvitation(deps, body.invitation_jwt);
      const c = inv.claims;
      const preview = previewOf(inv);
      if (body.fingerprint === undefined) {
        throw new ConflictError(`Accepting trusts the instance whose key signed the invitation: confirm its key fingerprint ${inv.keyFingerprint} with the inviter, then send it as fingerprint.`, preview, 'FINGERPRINT_CONFIRMATION_REQUIRED');
      }
      if (body.fingerprint !== inv.keyFingerprint) {
        throw new ConflictError('The fingerprint confirmed is not the one of the key that signed this invitation: do not accept it; ask the inviter for a new invitation.', preview, 'FINGERPRINT_MISMATCH');
      }
      if ((await sharingState(deps)).accepted.includes(c.jti)) throw new ConflictError('This invitation was already accepted here; ask for a new one.', { invitationId: c.jti }, 'INVITATION_USED');

      const me = await instanceIdentity(input);
      const mine = { instanceId: deps.config.instanceId, url: sharing.tls.url, tlsCertificate: sharing.tls.certificatePem, publicJwk: await sharing.publicJwk(me.publicKeyPem) };
      const r = await signedCall(deps, me, c.iss, c.url, c.tls_certificate, '/sharing/v1/accept', { invitation_jwt: body.invitation_jwt, instance: mine, ...(await localMetadata(deps, [])) });
      const answer = checkedAnswer(AcceptAnswer, r.body, 'POST /sharing/v1/accept');
      const theirs = answer.instance;
      // The inviter answers with the key that signed the invitation, over the pinned certificate.
      if (theirs.instanceId !== c.iss || (await sharing.thumbprint(theirs.publicJwk).catch(() => '')) !== inv.keyFingerprint) {
        throw new AppError(502, 'PEER_MISMATCH', 'The instance that answered is not the one that signed the invitation.');
      }
      const peerId = await deps.nextId('sharing_peer');
      const at = deps.clock().toISOString();
      await runCommand(input, NODE_SHARING_STREAM, nodeSharing, {
        type: 'ConnectPeer', peerId, role: 'acceptor', invitationId: c.jti, instanceId: c.iss, url: c.url, tlsCertificate: c.tls_certificate, tlsFingerprint: inv.tlsFingerprint,
        publicJwk: inv.jwk, sharesWithPeer: true, peerShares: c.bidirectional === true, at,
      });
      await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'RecordPeerNodes', peerId, ...receivedMetadata(answer), at });
      return { status: 201, body: peerView((await getSharingPeer(deps.pool, peerId))!) };
    },
  }),
  defineRoute({
    method: 'post', path: '/nodesharing/sync', summary: 'Pull a peer\'s current node metadata (and push this instance\'s, when it shares with the peer)', tags, permission: 'SHARING_MANAGE', ...edition,
    body: Type.Object({ peer_node_id: Type.Integer({ minimum: 1, description: 'the peer\'s id in GET /nodesharing/peers' }) }, { additionalProperties: false }),
    responses: { 200: { description: 'the peer after the sync', schema: PeerView }, 403: { description: 'the relationship was revoked (here or by the peer)' }, 404: { description: 'no such peer' }, 502: { description: 'the peer could not be reached' } },
    async handler(input) {
      const { deps, body } = input;
      const peer = await getSharingPeer(deps.pool, body.peer_node_id);
      if (!peer) throw new NotFoundError('Peer', body.peer_node_id);
      if (peer.status !== 'active') throw new ForbiddenError(`Peer ${peer.id} was revoked.`);
      const me = await instanceIdentity(input);
      const mine = peer.sharesWithPeer ? await localMetadata(deps, peer.organizations.map((o) => o.mspId)) : { nodes: [], organizations: [], networks: [] };
      const r = await signedCall(deps, me, peer.instanceId, peer.url, peer.tlsCertificate, '/sharing/v1/sync', mine);
      const theirs = peer.peerShares ? receivedMetadata(checkedAnswer(MetadataBody, r.body, 'POST /sharing/v1/sync')) : { nodes: [], organizations: [], networks: [] };
      await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'RecordPeerNodes', peerId: peer.id, ...theirs, at: deps.clock().toISOString() });
      return { body: peerView((await getSharingPeer(deps.pool, peer.id))!) };
    },
  }),
  defineRoute({
    method: 'get', path: '/nodesharing/peers', summary: 'Peer instances with their shared nodes and last sync', tags, permission: 'SHARING_READ', ...edition,
    query: Type.Object(PageQuery, { additionalProperties: false }),
    responses: { 200: { description: 'a page of peers', schema: Page(PeerView) } },
    async handler({ deps, query }) {
      const limit = query.limit ?? deps.config.defaultPageSize;
      const offset = query.offset ?? 0;
      const r = await listSharingPeers(deps.pool, limit, offset);
      return { body: page(r.items.map(peerView), r.total, limit, offset) };
    },
  }),
  defineRoute({
    method: 'delete', path: '/nodesharing/peers/:id', summary: 'Revoke a peer: its requests to this instance are refused from now on (403), and this instance no longer syncs with it', tags, permission: 'SHARING_MANAGE', ...edition, params: IdParam,
    responses: { 204: { description: 'revoked (revoking twice changes nothing)' }, 404: { description: 'no such peer' } },
    async handler(input) {
      await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'RevokePeer', peerId: input.params.id, at: input.deps.clock().toISOString() });
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'post', path: '/nodesharing/peers/:id/networks/:networkId/import', summary: 'Record a channel of a peer instance that an organization of this instance was added to, so its peers can join it', tags, permission: 'NETWORK_CREATE', ...edition,
    description: 'The channel is recorded from its block 0 as the peer shared it (sharing.network.received); join this instance\'s peers with POST /networks/consortium/{id}/peers/{peerId}/join. Sync first: the peer lists the channel once its organization is in the channel\'s configuration.',
    params: Type.Object({ id: Type.Integer({ minimum: 1 }), networkId: Type.Integer({ minimum: 1, description: 'the network id on the peer instance' }) }, { additionalProperties: false }),
    body: Type.Object({ name: Type.Optional(Type.String({ maxLength: 64, description: 'name here (default: the peer\'s name)' })) }, { additionalProperties: false }),
    responses: { 201: { description: 'the network recorded here' }, 403: { description: 'the peer was revoked' }, 404: { description: 'no such peer, or the peer shares no such channel' }, 409: { description: 'name taken' } },
    async handler(input) {
      const peer = await getSharingPeer(input.deps.pool, input.params.id);
      if (!peer) throw new NotFoundError('Peer', input.params.id);
      if (peer.status !== 'active') throw new ForbiddenError(`Peer ${peer.id} was revoked.`);
      const shared = peer.networks.find((n) => n.networkId === input.params.networkId);
      if (!shared) throw new NotFoundError('Shared network', input.params.networkId);
      const id = await importSharedNetwork(input, shared, input.body?.name ?? shared.name);
      await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'RecordSharedNetworkReceived', peerId: peer.id, peerNetworkId: shared.networkId, localNetworkId: id, channelName: shared.channelName, at: input.deps.clock().toISOString() });
      return { status: 201, body: { network_id: id, name: input.body?.name ?? shared.name, channel_name: shared.channelName, peer_id: peer.id }, headers: { Location: `/api/v1/networks/consortium/${id}` } };
    },
  }),
];
