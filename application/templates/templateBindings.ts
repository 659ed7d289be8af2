// Resolving a template's variable bindings against this instance: the organization, node or key
// each binding names must exist and be of the kind the template uses it as. Every problem is
// reported (with the issue codes of domain/templates), nothing is created here.
import {
  BINDING_FIELD, bindingIssues, placeholdersOf, substitute, templateIssues,
  type NetworkTemplate, type ResolvedVariable, type TemplateIssue, type TemplateVariable,
} from '../../domain/templates/networkTemplate.ts';
import { getOrganization } from '../../projections/organizations.ts';
import { getNode } from '../../projections/nodes.ts';
import { getKey } from '../../projections/keys.ts';
import type { AppDeps } from '../deps.ts';

export interface ResolvedTemplate {
  valid: boolean;
  template: NetworkTemplate;
  variables: Array<{ name: string; type: string; resolved: ResolvedVariable | null }>;
  warnings: string[];
  errors: TemplateIssue[];
  /** The network body with the placeholders replaced (only when valid). */
  network: Record<string, unknown> | null;
  /** Details the import needs that the placeholders do not carry: the rows behind each binding. */
  rows: Record<string, { kind: 'organization' | 'node' | 'key'; id: number; role?: string; platform?: string; curve?: string | null; organizationId?: number | null }>;
}

async function resolveOne(deps: AppDeps, v: TemplateVariable, id: number): Promise<{ resolved: ResolvedVariable; row: ResolvedTemplate['rows'][string] } | string> {
  const field = BINDING_FIELD[v.type];
  if (field === 'organizationId') {
    const org = await getOrganization(deps.pool, id);
    if (!org) return `organization ${id} does not exist`;
    const resolved: ResolvedVariable = v.type === 'mspId' ? { '': org.mspId } : { mspId: org.mspId, id: org.id };
    return { resolved, row: { kind: 'organization', id } };
  }
  if (field === 'nodeId') {
    const node = await getNode(deps.pool, id);
    if (!node) return `node ${id} does not exist`;
    return { resolved: { id: node.id }, row: { kind: 'node', id, role: node.role, platform: node.platform, organizationId: node.organizationId } };
  }
  const key = await getKey(deps.pool, id);
  if (!key) return `key ${id} does not exist`;
  const resolved: ResolvedVariable = v.type === 'key' ? { id: key.id, publicKey: key.publicKey, ...(key.ethereumAddress ? { ethereumAddress: key.ethereumAddress } : {}) }
    : v.type === 'ethereumAddress' ? (key.ethereumAddress ? { '': key.ethereumAddress } : {})
    : { '': key.publicKey };
  if (v.type === 'ethereumAddress' && !key.ethereumAddress) return `key ${id} is not a secp256k1 key and has no Ethereum address`;
  return { resolved, row: { kind: 'key', id, curve: key.curve, organizationId: key.organizationId } };
}

/** Where a placeholder of this variable is used, to check the bound resource fits there. */
function usedAs(template: NetworkTemplate, name: string): string[] {
  return placeholdersOf(template.network).filter((u) => u.variable === name).map((u) => u.field);
}

/** Checks of a resource's kind by where the template uses it (a peer where peers go, a secp256k1 key as a validator key). */
function kindIssues(template: NetworkTemplate, v: TemplateVariable, row: ResolvedTemplate['rows'][string], resolved: ResolvedVariable): string | null {
  const fields = usedAs(template, v.name);
  if (row.kind === 'node') {
    const wantPlatform = template.platform;
    if (row.platform !== wantPlatform) return `node ${row.id} is a ${row.platform} node; the template is for ${wantPlatform}`;
    if (fields.some((f) => /\.peers\[\d+\]$/.test(f)) && row.role !== 'peer') return `node ${row.id} is a ${row.role}, and ${v.name} is used as a peer`;
    if (fields.some((f) => /\.orderers\[\d+\]$/.test(f)) && row.role !== 'orderer') return `node ${row.id} is a ${row.role}, and ${v.name} is used as an orderer`;
  }
  if (row.kind === 'key') {
    const needsAddress = placeholdersOf(template.network).some((u) => u.variable === v.name && u.property === 'ethereumAddress');
    const validator = template.platform === 'EVM' && fields.some((f) => f.startsWith('network.validatorKeys'));
    if ((needsAddress || validator) && row.curve !== 'secp256k1') return `key ${row.id} is not a secp256k1 key: ${validator ? 'evm validator keys sign with secp256k1' : 'only secp256k1 keys have an Ethereum address'}`;
  }
  return null;
}

/** The whole check: the template's shape, its bindings' shape, then each bound resource on this instance. */
export async function resolveTemplate(deps: AppDeps, template: NetworkTemplate, bindings: Record<string, unknown>): Promise<ResolvedTemplate> {
  const errors: TemplateIssue[] = templateIssues(template as unknown as Record<string, unknown>);
  const variables = Array.isArray(template.variables) ? template.variables : [];
  const shapeOk = errors.length === 0;
  if (shapeOk) errors.push(...bindingIssues(variables, bindings));
  // Keyed by user-chosen variable names (which may be __proto__ or constructor): no prototype.
  const resolved: Record<string, ResolvedVariable> = Object.create(null);
  const rows: ResolvedTemplate['rows'] = Object.create(null);
  const warnings: string[] = [];
  if (shapeOk) {
    for (const v of variables) {
      const b = (Object.hasOwn(bindings, v.name) ? bindings[v.name] : undefined) as Record<string, number> | undefined;
      const id = b && typeof b === 'object' && Object.hasOwn(b, BINDING_FIELD[v.type]) ? b[BINDING_FIELD[v.type]] : undefined;
      if (!Number.isSafeInteger(id) || errors.some((e) => e.field === `variableBindings.${v.name}`)) continue;
      const r = await resolveOne(deps, v, id!);
      if (typeof r === 'string') {
        errors.push({ code: 'BINDING_NOT_FOUND', field: `variableBindings.${v.name}`, message: r });
        continue;
      }
      const wrong = kindIssues(template, v, r.row, r.resolved);
      if (wrong) {
        errors.push({ code: 'WRONG_BINDING_TYPE', field: `variableBindings.${v.name}`, message: wrong });
        continue;
      }
      resolved[v.name] = r.resolved;
      rows[v.name] = r.row;
    }
    const used = new Set(placeholdersOf(template.network).map((u) => u.variable));
    for (const v of variables) if (!used.has(v.name)) warnings.push(`variable ${v.name} is declared but no placeholder uses it`);
  }
  const valid = errors.length === 0;
  return {
    valid,
    template,
    // publicKey is public, yet long: the listing names what was bound, not the PEM.
    variables: variables.filter((v) => v && typeof v.name === 'string').map((v) => ({ name: v.name, type: v.type, resolved: Object.hasOwn(resolved, v.name) ? Object.fromEntries(Object.entries(resolved[v.name]).filter(([k]) => k !== 'publicKey')) : null })),
    warnings,
    errors,
    network: valid ? (substitute(template.network, resolved) as Record<string, unknown>) : null,
    rows,
  };
}
