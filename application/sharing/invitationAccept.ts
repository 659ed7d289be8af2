// Accepting another instance's invitation is a trust decision. The JWT is verified (signature with
// the key it carries, expiry, single use, not our own) without contacting anyone, and the caller
// must confirm the fingerprint of the key that signed it (previewInvitation shows it; the inviter
// saw it when it issued the invitation). Only then is node metadata exchanged with the inviting
// instance over TLS pinned to the certificate the invitation carries; the inviter must answer with
// the key that signed the invitation, inside the sharing schema. The peer is recorded with the
// nodes it shares.
import { runCommand, type CommandInput } from '../commands.ts';
import type { AppDeps } from '../deps.ts';
import { AppError, ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import { NODE_SHARING_STREAM, nodeSharing } from '../../domain/sharing/nodeSharing.ts';
import { INVITATION_AUDIENCE, instanceIdentity, localMetadata, sharingOf, sharingState } from './sharingContext.ts';
import { AcceptAnswer, checkedAnswer, receivedMetadata } from './sharingBodies.ts';
import { signedCall } from './peerCalls.ts';

interface CheckedInvitation {
  claims: { iss: string; jti: string; url: string; tls_certificate: string; exp: number; bidirectional?: unknown };
  jwk: Record<string, string>;
  keyFingerprint: string;
  tlsFingerprint: string;
}

/** What accepting an invitation would trust (POST /nodesharing/invitations/preview). */
export type InvitationPreview = {
  invitation_id: string;
  inviter_instance_id: string;
  url: string;
  tls_fingerprint: string;
  key_fingerprint: string;
  bidirectional: boolean;
  expires_at: string;
};

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

const previewOf = (inv: CheckedInvitation): InvitationPreview => ({
  invitation_id: inv.claims.jti, inviter_instance_id: inv.claims.iss, url: inv.claims.url, tls_fingerprint: inv.tlsFingerprint, key_fingerprint: inv.keyFingerprint,
  bidirectional: inv.claims.bidirectional === true, expires_at: new Date(inv.claims.exp * 1000).toISOString(),
});

/** The invitation verified, and what accepting it would trust; nothing recorded, nobody contacted. */
export async function previewInvitation(deps: AppDeps, invitationJwt: string): Promise<InvitationPreview> {
  return previewOf(await checkedInvitation(deps, invitationJwt));
}

/** The peer's id (GET /nodesharing/peers). `fingerprint`: the invitation's key fingerprint, as confirmed with the inviter. */
export async function acceptInvitation(input: CommandInput, invitationJwt: string, fingerprint: string | undefined): Promise<number> {
  const { deps } = input;
  const sharing = sharingOf(deps);
  const inv = await checkedInvitation(deps, invitationJwt);
  const c = inv.claims;
  const preview = previewOf(inv);
  if (fingerprint === undefined) {
    throw new ConflictError(`Accepting trusts the instance whose key signed the invitation: confirm its key fingerprint ${inv.keyFingerprint} with the inviter, then send it as fingerprint.`, preview, 'FINGERPRINT_CONFIRMATION_REQUIRED');
  }
  if (fingerprint !== inv.keyFingerprint) {
    throw new ConflictError('The fingerprint confirmed is not the one of the key that signed this invitation: do not accept it; ask the inviter for a new invitation.', preview, 'FINGERPRINT_MISMATCH');
  }
  if ((await sharingState(deps)).accepted.includes(c.jti)) throw new ConflictError('This invitation was already accepted here; ask for a new one.', { invitationId: c.jti }, 'INVITATION_USED');

  const me = await instanceIdentity(input);
  const mine = { instanceId: deps.config.instanceId, url: sharing.tls.url, tlsCertificate: sharing.tls.certificatePem, publicJwk: await sharing.publicJwk(me.publicKeyPem) };
  const r = await signedCall(deps, me, c.iss, c.url, c.tls_certificate, '/sharing/v1/accept', { invitation_jwt: invitationJwt, instance: mine, ...(await localMetadata(deps, [])) });
  const answer = checkedAnswer(AcceptAnswer, r.body, 'POST /sharing/v1/accept');
  const theirs = answer.instance;
  // The inviter answers with the key that signed the invitation, over the pinned certificate.
  if (theirs.instanceId !== c.iss || (await sharing.thumbprint(theirs.publicJwk).catch(() => '')) !== inv.keyFingerprint) {
    throw new AppError(502, 'PEER_MISMATCH', 'The instance that answered is not the one that signed the invitation.', { expose: true });
  }
  const peerId = await deps.nextId('sharing_peer');
  const at = deps.clock().toISOString();
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, {
    type: 'ConnectPeer', peerId, role: 'acceptor', invitationId: c.jti, instanceId: c.iss, url: c.url, tlsCertificate: c.tls_certificate, tlsFingerprint: inv.tlsFingerprint,
    publicJwk: inv.jwk, sharesWithPeer: true, peerShares: c.bidirectional === true, at,
  });
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'RecordPeerNodes', peerId, ...receivedMetadata(answer), at });
  return peerId;
}
