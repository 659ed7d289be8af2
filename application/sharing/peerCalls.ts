// Calls from this instance to a peer instance's sharing listener: over TLS pinned to the
// certificate the peer presented when the two connected, each body signed by a request token
// over exactly the bytes sent. A peer's refusals come back with their status and code; an
// unreachable peer is a 502.
import { createHash } from 'node:crypto';
import type { AppDeps } from '../deps.ts';
import { AppError, ConflictError, ForbiddenError, ValidationError } from '../../domain/shared/errors.ts';
import type { PinnedResponse } from '../../domain/sharing/sharingPorts.ts';
import { peerRequestToken, sharingOf, type InstanceIdentity } from './sharingContext.ts';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('base64url');

/**
 * What a peer's refusal says: its error body's message (at most 500 characters), else its status.
 * The 502s built from it are exposed to the client: they describe the other instance (its
 * address, its own already-public error message), nothing internal to this one, and the console
 * shows them as every other error (a generic "could not complete" told the user nothing).
 */
export function peerMessage(r: PinnedResponse): string {
  const m = r.body?.message;
  return typeof m === 'string' && m ? m.slice(0, 500) : String(r.status);
}

/** A call to a peer; its refusals come back with their status and code, an unreachable peer is a 502. */
async function callPeer(deps: AppDeps, url: string, certificatePem: string, path: string, body: unknown, token: string): Promise<PinnedResponse> {
  let r: PinnedResponse;
  try {
    r = await sharingOf(deps).postPinned(url, certificatePem, path, body, token);
  } catch (err) {
    throw new AppError(502, 'PEER_UNREACHABLE', `The peer instance at ${url} could not be reached over TLS with its pinned certificate: ${(err as Error).message}`, { expose: true });
  }
  if (r.status >= 200 && r.status < 300) return r;
  const message = `The peer instance refused: ${peerMessage(r)}`;
  if (r.status === 409) throw new ConflictError(message, { peer: url }, String(r.body?.code ?? 'CONFLICT'));
  if (r.status === 400) throw new ValidationError(message, [{ field: 'invitation_jwt', message: String(r.body?.code ?? 'refused') }], String(r.body?.code ?? 'VALIDATION_FAILED'));
  if (r.status === 401 || r.status === 403) throw new ForbiddenError(message, { peerStatus: r.status, peerCode: r.body?.code });
  throw new AppError(502, 'PEER_FAILED', message, { expose: true });
}

/** The body and its request token, signed over exactly the bytes sent. */
export async function signedCall(deps: AppDeps, me: InstanceIdentity, peerInstanceId: string, url: string, cert: string, path: string, body: unknown) {
  const token = await peerRequestToken(deps, me, peerInstanceId, sha256(Buffer.from(JSON.stringify(body))));
  return callPeer(deps, url, cert, path, body, token);
}
