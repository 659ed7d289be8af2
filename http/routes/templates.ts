// Network templates (pro): export a network as a template, validate a template with its
// variable bindings, import it (all or nothing).
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { IdParam } from './schemas.ts';
import type { NetworkTemplate } from '../../domain/templates/networkTemplate.ts';
import { exportTemplate } from '../../application/templates/templateExport.ts';
import { resolveTemplate } from '../../application/templates/templateBindings.ts';
import { importTemplate } from '../../application/templates/templateImport.ts';

const tags = ['templates'];
const edition = { edition: 'pro' as const, feature: 'Network templates' };

const Variable = Type.Object({
  name: Type.String({ maxLength: 64 }),
  type: Type.String({ description: 'organization, node, key, mspId, ethereumAddress or publicKey' }),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
});
const Template = Type.Object({
  version: Type.String({ description: '2.0.0 (other versions are reported as UNSUPPORTED_VERSION)' }),
  platform: Type.String({ description: 'CONSORTIUM, EVM or LEDGERX' }),
  name: Type.String({ maxLength: 64 }),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  variables: Type.Array(Variable, { maxItems: 200 }),
  network: Type.Record(Type.String(), Type.Unknown(), { description: 'platform-specific body with ${var.property} placeholders' }),
});
const Bindings = Type.Record(Type.String(), Type.Record(Type.String(), Type.Unknown()), { description: 'variable name -> {organizationId} | {nodeId} | {keyId}' });
const Issue = Type.Object({ code: Type.String(), field: Type.String(), message: Type.String() });
const ValidateView = Type.Object({
  valid: Type.Boolean(),
  variables: Type.Array(Type.Object({ name: Type.String(), type: Type.String(), resolved: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]) })),
  warnings: Type.Array(Type.String()),
  errors: Type.Array(Issue, { description: 'present and non-empty when valid is false' }),
});

export const templateRoutes = [
  defineRoute({
    method: 'get', path: '/networks/templates/export/:id', summary: 'Export a network (evm, consortium or ledgerX) as a template file', tags, permission: 'TEMPLATE_READ', ...edition, params: IdParam,
    description: 'Organizations, keys and nodes become variables; nothing secret is exported (no key material, no certificates, no genesis block).',
    responses: { 200: { description: 'the template (version 2.0.0), as an attachment', schema: Template }, 404: { description: 'no such network' } },
    async handler({ deps, params }) {
      const template = await exportTemplate(deps, params.id);
      return { body: template, headers: { 'Content-Disposition': `attachment; filename="${template.name}.template.json"` } };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/templates/validate', summary: 'Validate a template and its variable bindings against this instance', tags, permission: 'TEMPLATE_IMPORT', ...edition,
    description: 'Errors have codes UNSUPPORTED_VERSION, UNSUPPORTED_PLATFORM, INVALID_VARIABLE, PLACEHOLDER_WITHOUT_VARIABLE, UNKNOWN_PROPERTY, UNKNOWN_VARIABLE, MISSING_BINDING, WRONG_BINDING_TYPE, BINDING_NOT_FOUND.',
    body: Type.Object({ template: Template, variableBindings: Type.Optional(Bindings) }, { additionalProperties: false }),
    responses: { 200: { description: 'valid, or not with the errors', schema: ValidateView } },
    async handler({ deps, body }) {
      const r = await resolveTemplate(deps, body.template as NetworkTemplate, body.variableBindings ?? {});
      return { body: { valid: r.valid, variables: r.variables, warnings: r.warnings, errors: r.errors } };
    },
  }),
  defineRoute({
    method: 'post', path: '/networks/templates/import', summary: 'Create a network from a template and its bindings (all or nothing)', tags, permission: 'TEMPLATE_IMPORT', ...edition,
    description: 'evm: the genesis with the bound validator keys and alloc; the listed smartContracts are deployed once the network\'s node runs (the import starts it). consortium: the channel\'s genesis block built, the bound orderers and peers (running) joined. ledgerX: the orderer groups and committers created (ports allocated here), then the network and its genesis block; they are not joined (join each through /networks/ledgerx/{id}/.../join). A failure deletes what was made.',
    body: Type.Object({ template: Template, variableBindings: Bindings, name: Type.Optional(Type.String({ maxLength: 64, description: 'network name (default: the template\'s name)' })) }, { additionalProperties: false }),
    responses: { 201: { description: 'the network made' }, 400: { description: 'the template or a binding is invalid (details name each)' }, 409: { description: 'name taken' } },
    async handler(input) {
      const made = await importTemplate(input, { ...input.body, template: input.body.template as NetworkTemplate });
      const created = { headers: { Location: `/api/v1/networks/${made.platform.toLowerCase()}/${made.networkId}` }, status: 201 };
      if (made.platform === 'EVM') return { ...created, body: { platform: 'EVM', network_id: made.networkId, name: made.name, contracts: made.contracts, warnings: made.warnings } };
      if (made.platform === 'LEDGERX') return { ...created, body: { platform: 'LEDGERX', network_id: made.networkId, name: made.name, nodes: made.nodes, warnings: made.warnings } };
      return { ...created, body: { platform: 'CONSORTIUM', network_id: made.networkId, name: made.name, joined: made.joined, warnings: made.warnings } };
    },
  }),
];
