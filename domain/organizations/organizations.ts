// Organizations: one stream per organization. Its CA keys (signing CA, TLS CA) and admin
// identity are key aggregates of their own, created first; the organization records their ids.
import type { Decider } from '../shared/decider.ts';
import { assertNever } from '../shared/decider.ts';
import { ConflictError, NotFoundError } from '../shared/errors.ts';

export const organizationStream = (id: number) => `organization-${id}`;

export interface OrganizationFields {
  name: string;
  mspId: string;
  description: string | null;
  providerId: number;
}

export interface OrganizationState {
  status: 'none' | 'active' | 'deleted';
  organizationId?: number;
  fields?: OrganizationFields;
}

export interface OrganizationKeys {
  signKeyId: number;
  tlsKeyId: number;
  adminKeyId: number;
}

export type OrganizationEvent =
  | { type: 'OrganizationCreated'; data: OrganizationFields & OrganizationKeys & { organizationId: number; at: string } }
  | { type: 'OrganizationUpdated'; data: { organizationId: number; before: { name: string; description: string | null }; after: { name: string; description: string | null }; at: string } }
  | { type: 'OrganizationDeleted'; data: { organizationId: number; name: string; mspId: string; at: string } };

/** What still uses an organization (nodes, networks, ...): a delete is refused while any remain. */
export interface OrganizationUsage {
  kind: string;
  id: number | string;
  name: string;
}

export type OrganizationCommand =
  | { type: 'CreateOrganization'; organizationId: number; fields: OrganizationFields; keys: OrganizationKeys; at: string }
  | { type: 'UpdateOrganization'; organizationId: number; name?: string; description?: string | null; at: string }
  | { type: 'DeleteOrganization'; organizationId: number; usedBy: OrganizationUsage[]; at: string };

export function describeUsage(usedBy: OrganizationUsage[]): string {
  return usedBy.map((u) => `${u.kind} ${u.name} (${u.id})`).join(', ');
}

export const organizations: Decider<OrganizationState, OrganizationCommand, OrganizationEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(s, e) {
    switch (e.type) {
      case 'OrganizationCreated': {
        const { name, mspId, description, providerId } = e.data;
        return { status: 'active', organizationId: e.data.organizationId, fields: { name, mspId, description, providerId } };
      }
      case 'OrganizationUpdated':
        return { ...s, fields: { ...s.fields!, ...e.data.after } };
      case 'OrganizationDeleted':
        return { ...s, status: 'deleted' };
      default:
        return assertNever(e);
    }
  },
  decide(c, s) {
    switch (c.type) {
      case 'CreateOrganization':
        if (s.status !== 'none') throw new ConflictError(`Organization ${c.organizationId} exists already.`);
        return [{ type: 'OrganizationCreated', data: { organizationId: c.organizationId, ...c.fields, ...c.keys, at: c.at } }];
      case 'UpdateOrganization': {
        if (s.status !== 'active') throw new NotFoundError('Organization', c.organizationId);
        const before = { name: s.fields!.name, description: s.fields!.description };
        const after = { name: c.name ?? before.name, description: c.description === undefined ? before.description : c.description };
        if (after.name === before.name && after.description === before.description) return [];
        return [{ type: 'OrganizationUpdated', data: { organizationId: c.organizationId, before, after, at: c.at } }];
      }
      case 'DeleteOrganization':
        if (s.status !== 'active') throw new NotFoundError('Organization', c.organizationId);
        if (c.usedBy.length) {
          throw new ConflictError(`Organization ${s.fields!.mspId} is still used by ${describeUsage(c.usedBy)}; remove those first.`, { usedBy: c.usedBy });
        }
        return [{ type: 'OrganizationDeleted', data: { organizationId: c.organizationId, name: s.fields!.name, mspId: s.fields!.mspId, at: c.at } }];
      default:
        return assertNever(c);
    }
  },
};
