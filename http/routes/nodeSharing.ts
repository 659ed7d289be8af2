// Node sharing (pro): invitations (ES256 JWTs signed through the key provider, with an expiry,
// single use), accepting one (verified here, then a call to the inviter over TLS with its
// certificate pinned from the invitation), syncing a peer's node metadata, and the peers.
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { runCommand } from '../../application/commands.ts';
import { Page, PageQuery, page, pageRequest } from '../pagination.ts';
import { IdParam } from './schemas.ts';
import { NODE_SHARING_STREAM, nodeSharing } from '../../domain/sharing/nodeSharing.ts';
import { getSharingPeer, listSharingPeers, type SharingPeerRow } from '../../projections/nodeSharing.ts';
import { importPeerNetwork } from '../../application/sharing/peerNetworkImport.ts';
import { issueInvitation } from '../../application/sharing/invitationIssue.ts';
import { acceptInvitation, previewInvitation } from '../../application/sharing/invitationAccept.ts';
import { syncPeer } from '../../application/sharing/peerSync.ts';

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

export const nodeSharingRoutes = [
  defineRoute({
    method: 'post', path: '/nodesharing/invitations', summary: 'Create an invitation (a signed JWT with an expiry, single use) for another instance', tags, permission: 'SHARING_MANAGE', ...edition,
    description: 'bidirectional: both instances see each other\'s nodes; otherwise only the accepting instance shares its nodes. The JWT (ES256) is signed by this instance\'s sharing key, held by its key provider, and carries the address of this instance\'s sharing listener and its TLS certificate, which the accepting instance pins.',
    body: Type.Object({
      bidirectional: Type.Optional(Type.Boolean({ default: false })),
      expiresInSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 * DAY, description: 'default 86400 (one day); issued with an API key, at most until the key expires (default capped there, longer refused with 403 DELEGATION_EXCEEDED)' })),
    }, { additionalProperties: false }),
    responses: { 201: { description: 'the invitation', schema: Type.Object({ invitation_jwt: Type.String(), invitation_id: Type.String(), bidirectional: Type.Boolean(), expires_at: Type.String(), key_fingerprint: Type.String({ description: 'RFC 7638 SHA-256 thumbprint (base64url) of this instance\'s sharing key: the acceptor must confirm it' }) }) }, 403: { description: 'DELEGATION_EXCEEDED: issued with an API key, asked to outlive it' }, 503: { description: 'the sharing listener is not configured (LNM_SHARING_PORT)' } },
    async handler(input) {
      const r = await issueInvitation(input, input.body);
      return { status: 201, body: { invitation_jwt: r.invitationJwt, invitation_id: r.invitationId, bidirectional: r.bidirectional, expires_at: r.expiresAt, key_fingerprint: r.keyFingerprint } };
    },
  }),
  defineRoute({
    method: 'post', path: '/nodesharing/invitations/preview', summary: 'What an invitation says and who signed it, before accepting it: the inviter\'s key fingerprint to confirm', tags, permission: 'system:configure', ...edition,
    description: 'Verifies the invitation (signature with the key it carries, expiry) and answers what accepting it would trust: the inviting instance, its sharing address, the fingerprint of its TLS certificate and the fingerprint of the key that signed the invitation (RFC 7638 SHA-256 JWK thumbprint, base64url). Compare key_fingerprint with the one the inviter was shown (its POST /nodesharing/invitations answer) over another channel, then accept with it. Nothing is recorded and the inviter is not contacted.',
    body: Type.Object({ invitation_jwt: InvitationJwt }, { additionalProperties: false }),
    responses: { 200: { description: 'the invitation', schema: InvitationPreview }, 400: { description: 'the invitation is not a valid signed JWT (INVITATION_INVALID) or expired (INVITATION_EXPIRED)' } },
    async handler({ deps, body }) {
      return { body: await previewInvitation(deps, body.invitation_jwt) };
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
      const peerId = await acceptInvitation(input, input.body.invitation_jwt, input.body.fingerprint);
      return { status: 201, body: peerView((await getSharingPeer(input.deps.pool, peerId))!) };
    },
  }),
  defineRoute({
    method: 'post', path: '/nodesharing/sync', summary: 'Pull a peer\'s current node metadata (and push this instance\'s, when it shares with the peer)', tags, permission: 'SHARING_MANAGE', ...edition,
    body: Type.Object({ peer_node_id: Type.Integer({ minimum: 1, description: 'the peer\'s id in GET /nodesharing/peers' }) }, { additionalProperties: false }),
    responses: { 200: { description: 'the peer after the sync', schema: PeerView }, 403: { description: 'the relationship was revoked (here or by the peer)' }, 404: { description: 'no such peer' }, 502: { description: 'the peer could not be reached' } },
    async handler(input) {
      await syncPeer(input, input.body.peer_node_id);
      return { body: peerView((await getSharingPeer(input.deps.pool, input.body.peer_node_id))!) };
    },
  }),
  defineRoute({
    method: 'get', path: '/nodesharing/peers', summary: 'Peer instances with their shared nodes and last sync', tags, permission: 'SHARING_READ', ...edition,
    query: Type.Object(PageQuery, { additionalProperties: false }),
    responses: { 200: { description: 'a page of peers', schema: Page(PeerView) } },
    async handler({ deps, query }) {
      const { limit, offset } = pageRequest(deps.config, query);
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
      const r = await importPeerNetwork(input, input.params.id, input.params.networkId, input.body?.name);
      return { status: 201, body: { network_id: r.networkId, name: r.name, channel_name: r.channelName, peer_id: r.peerId }, headers: { Location: `/api/v1/networks/consortium/${r.networkId}` } };
    },
  }),
];
