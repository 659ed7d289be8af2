// Issuing an invitation to another instance: a single-use JWT (ES256) with an expiry, signed by
// this instance's sharing key (held by its key provider), carrying the address of this
// instance's sharing listener and its TLS certificate for the accepting instance to pin.
import { runCommand, type CommandInput } from '../commands.ts';
import { NODE_SHARING_STREAM, nodeSharing } from '../../domain/sharing/nodeSharing.ts';
import { delegatedExpiry } from '../../domain/users/delegation.ts';
import { INVITATION_AUDIENCE, instanceIdentity, sharingOf } from './sharingContext.ts';

const DAY = 86_400;

export interface InvitationRequest {
  /** Both instances see each other's nodes (default: only the accepting instance shares). */
  bidirectional?: boolean;
  /** Default one day; issued with an API key, never past the key's expiry (domain/users/delegation.ts). */
  expiresInSeconds?: number;
}

export async function issueInvitation(input: CommandInput, req: InvitationRequest): Promise<{ invitationJwt: string; invitationId: string; bidirectional: boolean; expiresAt: string; keyFingerprint: string }> {
  const { deps } = input;
  const now = deps.clock();
  const iat = Math.floor(now.getTime() / 1000);
  // Issued with an API key, the invitation ends no later than that key (a 403 before anything is signed).
  const until = delegatedExpiry(input.identity, req.expiresInSeconds ? new Date((iat + req.expiresInSeconds) * 1000).toISOString() : undefined, new Date((iat + DAY) * 1000).toISOString());
  const exp = Math.floor(Date.parse(until!) / 1000);
  const sharing = sharingOf(deps);
  const me = await instanceIdentity(input);
  const invitationId = deps.newId();
  const bidirectional = req.bidirectional ?? false;
  const jwt = await sharing.signJwt({
    iss: deps.config.instanceId, aud: INVITATION_AUDIENCE, jti: invitationId, iat, exp, bidirectional,
    url: sharing.tls.url, tls_certificate: sharing.tls.certificatePem, tls_fingerprint: sharing.tls.fingerprint,
  }, me.publicKeyPem, me.sign, true);
  const expiresAt = new Date(exp * 1000).toISOString();
  await runCommand(input, NODE_SHARING_STREAM, nodeSharing, { type: 'IssueInvitation', invitationId, bidirectional, expiresAt, at: now.toISOString() });
  // The acceptor confirms this with the inviter before it trusts the invitation.
  const keyFingerprint = await sharing.thumbprint(await sharing.publicJwk(me.publicKeyPem));
  return { invitationJwt: jwt, invitationId, bidirectional, expiresAt, keyFingerprint };
}
