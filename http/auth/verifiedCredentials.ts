// Credentials verified a moment ago (HTTP Basic, API keys), so that a client sending the same
// Authorization header on every request is not looked up (and, for Basic, checked against the
// login guard and the password cache) each time. Entries are keyed by an HMAC of the presented
// header value under a random key made at start: neither the password nor the key is kept, and
// the map's keys say nothing outside this process. Every event of the users stream (password
// change, role change, deletion) or of an API key stream (revocation) empties the map at once:
// bin/server.ts holds the map closed from before such an append of this server until the
// projections have caught up with it (so nothing read from a projection not yet updated is kept),
// before the request that made the change answers; other instances' events empty it when this
// server's projector applies or hears them, and a hit is answered only when projector.fresh()
// says so: not while the projector catches up with another instance's committed position, and
// with other instances on the database after one shared round trip (docs/scaling.md). An entry lives at most LIFETIME_MS and never past its API key's expiry, and a
// look-up that overlaps an invalidation or a hold is not kept.
import { createHmac, randomBytes } from 'node:crypto';
import type { Identity } from '../../application/identity.ts';

const LIFETIME_MS = 60_000;
const MAX_ENTRIES = 10_000;

export interface VerifiedCredentials {
  /** The identity verified for this exact header value, if still valid at `now`. */
  get(presented: string, now: number): Identity | undefined;
  /** Verifies through `verify` and keeps the answer unless an invalidation happened meanwhile. */
  remember(presented: string, now: number, verify: () => Promise<{ identity: Identity; expiresAt?: number }>): Promise<Identity>;
  /** An event was appended to this stream: forget everything if it concerns credentials. */
  streamChanged(streamId: string): void;
  /** Forget everything and keep nothing new until the returned release is called (then forget again). */
  hold(): () => void;
}

export const isCredentialStream = (streamId: string) => streamId === 'users' || streamId.startsWith('api-key-');

export function createVerifiedCredentials(opts: { lifetimeMs?: number } = {}): VerifiedCredentials {
  const lifetime = opts.lifetimeMs ?? LIFETIME_MS;
  const secret = randomBytes(32);
  const entries = new Map<string, { identity: Identity; until: number }>();
  let generation = 0;
  let holds = 0;
  const forget = () => {
    generation++;
    entries.clear();
  };
  const keyOf = (presented: string) => createHmac('sha256', secret).update(presented).digest('base64url');
  return {
    get(presented, now) {
      const k = keyOf(presented);
      const hit = entries.get(k);
      if (!hit || holds > 0) return undefined;
      if (hit.until > now) return { ...hit.identity };
      entries.delete(k);
      return undefined;
    },
    async remember(presented, now, verify) {
      const at = generation;
      const { identity, expiresAt } = await verify();
      if (at === generation && holds === 0) {
        if (entries.size >= MAX_ENTRIES) entries.clear();
        entries.set(keyOf(presented), { identity, until: Math.min(now + lifetime, expiresAt ?? Infinity) });
      }
      return identity;
    },
    streamChanged(streamId) {
      if (isCredentialStream(streamId)) forget();
    },
    hold() {
      holds++;
      forget();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holds--;
        forget();
      };
    },
  };
}
