// Accepting another instance's invitation: the JWT verified (signature, expiry, single use, not
// our own), then node metadata exchanged with the inviting instance over TLS pinned to the
// certificate the invitation carries; the inviter must answer with the key that signed the
// invitation. The peer is recorded with the nodes it shares.
import { runCommand, type CommandInput } from '../commands.ts';
import { AppError, ConflictError, ValidationError } from '../../domain/shared/errors.ts';
import { NODE_SHARING_STREAM, nodeSharing } from '../../domain/sharing/nodeSharing.ts';
import { INVITATION_AUDIENCE, instanceIdentity, localMetadata, receivedMetadata, sharingOf, sharingState } from './sharingContext.ts';
import { signedCall } from './peerCalls.ts';

/** The peer's id (GET /nodesharing/peers). */
export async function acceptInvitation(input: CommandInput, invitationJwt: string): Promise<number> {
  const { deps } = input;
  const sharing = sharingOf(deps);
  const v = await sharing.verifyJwt(invitationJwt, { audience: INVITATION_AUDIENCE });
  if ('failure' in v) {
    if (v.failure === 'expired') throw new ValidationError('The invitation has expired; ask for a new one.', [{ field: 'invitation_jwt', message: 'expired' }], 'INVITATION_EXPIRED');
    throw new ValidationError(`The invitation is not valid: ${v.reason}.`, [{ field: 'invitation_jwt', message: v.reason }], 'INVITATION_INVALID');
  }
  const c = v.payload;
  const bad = (m: string) => new ValidationError(`The invitation is not valid: ${m}.`, [{ field: 'invitation_jwt', message: m }], 'INVITATION_INVALID');
  if (typeof c.iss !== 'string' || typeof c.jti !== 'string' || typeof c.url !== 'string' || typeof c.tls_certificate !== 'string' || typeof c.exp !== 'number') throw bad('claims iss, jti, url, tls_certificate and exp are required');
  if (!/^https:\/\//.test(c.url)) throw bad('the inviting instance\'s url must be https');
  let fingerprint: string;
  try {
    fingerprint = sharing.fingerprintOf(c.tls_certificate);
  } catch {
    throw bad('tls_certificate is not a certificate');
  }
  if (fingerprint !== c.tls_fingerprint) throw bad('tls_fingerprint does not match tls_certificate');
  if (c.iss === deps.config.instanceId) throw bad('this instance issued it; give it to another instance');
  if ((await sharingState(deps)).accepted.includes(c.jti)) throw new ConflictError('This invitation was already accepted here; ask for a new one.', { invitationId: c.jti }, 'INVITATION_USED');

  const me = await instanceIdentity(input);
  const mine = { instanceId: deps.config.instanceId, url: sharing.tls.url, tlsCertificate: sharing.tls.certificatePem, publicJwk: await sharing.publicJwk(me.publicKeyPem) };
  const r = await signedCall(deps, me, c.iss, c.url, c.tls_certificate, '/sharing/v1/accept', { invitation_jwt: invitationJwt, instance: mine, ...(await localMetadata(deps, [])) });
  const theirs = r.body?.instance ?? {};
  // The inviter answers with the key that signed the invitation, over the pinned certificate.
  if (theirs.instanceId !== c.iss || (await sharing.thumbprint(theirs.publicJwk ?? {}).catch(() => '')) !== (await sharing.thumbprint(v.jwk))) {
    throw new AppError(502, 'PEER_MISMATCH', 'The instance that answered is not the one that signed the invitation.');
  }
  const peerId = await deps.nextId('sharing_peer');
  const at = deps.clock().toISOString();
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, {
    type: 'ConnectPeer', peerId, role: 'acceptor', invitationId: c.jti, instanceId: c.iss, url: c.url, tlsCertificate: c.tls_certificate, tlsFingerprint: fingerprint,
    publicJwk: v.jwk, sharesWithPeer: true, peerShares: c.bidirectional === true, at,
  });
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'RecordPeerNodes', peerId, ...receivedMetadata(r.body ?? {}), at });
  return peerId;
}
