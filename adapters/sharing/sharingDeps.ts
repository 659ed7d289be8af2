// The node-sharing port wired: jose JWTs signed through the key provider, pinned-TLS calls.
import type { SharingDeps, SharingTls } from '../../domain/sharing/sharingPorts.ts';
import { publicJwkOf, signJwt, thumbprint, verifyJwt } from './sharingJwt.ts';
import { fingerprintOf, postPinned } from './sharingTls.ts';

export function createSharingDeps(tls: SharingTls | null): SharingDeps {
  return { tls, signJwt, verifyJwt, publicJwk: publicJwkOf, thumbprint, fingerprintOf, postPinned: (url, cert, p, body, bearer) => postPinned(url, cert, p, body, bearer) };
}
