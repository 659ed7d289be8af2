// mspId uniqueness: one claim stream per mspId (case-sensitive), appended before the
// organization's own stream, so two concurrent creations cannot both get the same mspId.
import type { Decider } from '../shared/decider.ts';
import { assertNever } from '../shared/decider.ts';
import { ConflictError } from '../shared/errors.ts';

export const mspIdClaimStream = (mspId: string) => `name-claim-mspid-${encodeURIComponent(mspId)}`;

export interface MspIdClaimState {
  ownerId: number | null;
}

export type MspIdClaimEvent =
  | { type: 'NameClaimed'; data: { kind: 'mspId'; name: string; ownerId: number; at: string } }
  | { type: 'NameReleased'; data: { kind: 'mspId'; name: string; ownerId: number; at: string } };

export type MspIdClaimCommand =
  | { type: 'ClaimMspId'; mspId: string; organizationId: number; at: string }
  | { type: 'ReleaseMspId'; mspId: string; organizationId: number; at: string };

export const mspIdClaims: Decider<MspIdClaimState, MspIdClaimCommand, MspIdClaimEvent> = {
  initialState: () => ({ ownerId: null }),
  evolve(s, e) {
    switch (e.type) {
      case 'NameClaimed':
        return { ownerId: e.data.ownerId };
      case 'NameReleased':
        return { ownerId: null };
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'ClaimMspId':
        if (s.ownerId === c.organizationId) return [];
        if (s.ownerId !== null) throw new ConflictError(`mspId ${c.mspId} is already used by organization ${s.ownerId}.`, { field: 'mspId', organizationId: s.ownerId });
        return [{ type: 'NameClaimed', data: { kind: 'mspId', name: c.mspId, ownerId: c.organizationId, at: c.at } }];
      case 'ReleaseMspId':
        if (s.ownerId !== c.organizationId) return [];
        return [{ type: 'NameReleased', data: { kind: 'mspId', name: c.mspId, ownerId: c.organizationId, at: c.at } }];
      default:
        return assertNever(c);
    }
  },
};
