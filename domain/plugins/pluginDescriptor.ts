// Plugin descriptors (SPEC Plugin): YAML or JSON text, apiVersion dev.platform/v1, kind Plugin,
// metadata, spec.dockerCompose.contents (a compose file with placeholders) and spec.parameters (a
// JSON Schema draft-07 object). Parsed with a YAML library and checked with ajv; every problem is
// a ValidationError naming its field.
import { Ajv, type ErrorObject } from 'ajv';
import { unstorablePath } from '../shared/storableText.ts';
import { depthExceeds, MAX_JSON_DEPTH } from '../shared/valueDepth.ts';
import YAML from 'yaml';
import { RE2JS } from 're2js';
import { ValidationError, type FieldIssue } from '../shared/errors.ts';
import { placeholderIssues } from './pluginTemplate.ts';

export const PLUGIN_API_VERSION = 'dev.platform/v1';
export const X_SOURCES = ['consortium-key', 'consortium-peer'] as const;

export interface PluginDescriptor {
  apiVersion: typeof PLUGIN_API_VERSION;
  kind: 'Plugin';
  metadata: { name: string; version?: string; description?: string; author?: string; tags?: string[]; repository?: string; license?: string };
  spec: { dockerCompose: { contents: string }; parameters: { type: 'object'; properties?: Record<string, Record<string, unknown>>; required?: string[] } };
  documentation?: Record<string, unknown>;
}

const descriptorSchema = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  additionalProperties: false,
  properties: {
    apiVersion: { const: PLUGIN_API_VERSION },
    kind: { const: 'Plugin' },
    metadata: {
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' },
        version: { type: 'string', maxLength: 64 },
        description: { type: 'string', maxLength: 2000 },
        author: { type: 'string', maxLength: 200 },
        tags: { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 64 } },
        repository: { type: 'string', maxLength: 500 },
        license: { type: 'string', maxLength: 100 },
      },
    },
    spec: {
      type: 'object',
      required: ['dockerCompose', 'parameters'],
      additionalProperties: false,
      properties: {
        dockerCompose: { type: 'object', required: ['contents'], additionalProperties: false, properties: { contents: { type: 'string', minLength: 1, maxLength: 200_000 } } },
        parameters: { type: 'object', required: ['type'], properties: { type: { const: 'object' }, properties: { type: 'object' }, required: { type: 'array', items: { type: 'string' } } } },
      },
    },
    documentation: {
      type: 'object',
      additionalProperties: false,
      properties: {
        readme: { type: 'string' },
        examples: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, description: { type: 'string' }, parameters: { type: 'object' } } } },
        troubleshooting: { type: 'array', items: { type: 'object', properties: { problem: { type: 'string' }, solution: { type: 'string' }, description: { type: 'string' } } } },
      },
    },
  },
};

/**
 * The `pattern` and `patternProperties` of a descriptor are the installer's regular expressions,
 * run on values a deploy sends: they run on RE2 (re2js, pure JavaScript), whose matching time is
 * linear in the input, never on the backtracking engine of the event loop. RE2 has no lookaround
 * and no backreferences; a pattern that uses them is refused at install.
 */
export function linearRegExp(pattern: string, flags = ''): { test(s: string): boolean; toString(): string } {
  const re = RE2JS.compile(pattern);
  // ajv keys compiled patterns by toString(): it must tell patterns apart.
  return { test: (s: string) => re.matcher(s).find(), toString: () => `re2:/${pattern}/${flags}` };
}
linearRegExp.code = 'linearRegExp';

/** Draft-07 (ajv's default); `x-source` is the one extension keyword a parameter may carry. */
function parameterAjv(useDefaults = false): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true, useDefaults, code: { regExp: linearRegExp } });
  ajv.addKeyword({ keyword: 'x-source', schemaType: 'string' });
  return ajv;
}
const descriptorAjv = new Ajv({ allErrors: true, strict: false });
const checkDescriptor = descriptorAjv.compile(descriptorSchema);

const field = (prefix: string, e: ErrorObject) => {
  const at = `${prefix}${e.instancePath.replace(/\//g, '.')}`;
  return e.keyword === 'required' ? `${at}.${(e.params as { missingProperty: string }).missingProperty}`.replace(/^\./, '') : at.replace(/^\./, '') || prefix || '(body)';
};
/** At most 100 issues: a list of 100 000 bad items is not answered with 100 000 details. */
export const ajvIssues = (errors: ErrorObject[] | null | undefined, prefix = ''): FieldIssue[] => (errors ?? []).slice(0, 100).map((e) => ({ field: field(prefix, e), message: e.message ?? 'is not valid' }));

/**
 * uniqueItems compares every pair of items when they are objects: on an unbounded list that is
 * quadratic work on the event loop. A schema that asks for it must bound the list (maxItems).
 */
const MAX_UNIQUE_ITEMS = 1000;
function unboundedUniqueItems(schema: unknown): string[] {
  const found: string[] = [];
  const stack: Array<[unknown, string]> = [[schema, 'spec.parameters']];
  while (stack.length) {
    const [node, at] = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    const o = node as Record<string, unknown>;
    if (o.uniqueItems === true && !(typeof o.maxItems === 'number' && o.maxItems <= MAX_UNIQUE_ITEMS)) found.push(at);
    for (const [k, v] of Object.entries(o)) if (v && typeof v === 'object') stack.push([v, `${at}.${k}`]);
  }
  return found;
}

/** Text (YAML, of which JSON is a subset) or an already parsed object, to a checked descriptor. */
export function parsePluginDescriptor(input: string | unknown): PluginDescriptor {
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = YAML.parse(input, { maxAliasCount: 100 });
    } catch (err) {
      throw new ValidationError('The descriptor is not valid YAML or JSON.', [{ field: 'descriptor', message: (err as Error).message.split('\n')[0] }]);
    }
  }
  // Escapes in the text can spell what the body parser and validation never saw: a NUL or a lone
  // surrogate (unstorable), or thousands of levels of flow collections.
  const unstorable = unstorablePath(value);
  if (unstorable !== null) throw new ValidationError('The descriptor contains a NUL character or a lone UTF-16 surrogate, which cannot be stored.', [{ field: unstorable ? `descriptor.${unstorable}` : 'descriptor', message: 'contains a NUL character or a lone UTF-16 surrogate' }]);
  if (depthExceeds(value, MAX_JSON_DEPTH)) throw new ValidationError(`The descriptor nests collections more than ${MAX_JSON_DEPTH} levels deep.`, [{ field: 'descriptor', message: `nests more than ${MAX_JSON_DEPTH} levels` }]);
  if (!checkDescriptor(value)) throw new ValidationError('The plugin descriptor is not valid.', ajvIssues(checkDescriptor.errors));
  const d = value as unknown as PluginDescriptor;
  const issues: FieldIssue[] = [];
  try {
    parameterAjv().compile(d.spec.parameters);
  } catch (err) {
    const re2 = (err as Error).constructor.name.startsWith('RE2JS');
    issues.push({ field: 'spec.parameters', message: re2 ? `holds a pattern the linear-time regular expression engine (RE2) does not take (no lookaround, no backreferences): ${(err as Error).message}` : `is not a valid JSON Schema draft-07: ${(err as Error).message}` });
  }
  for (const at of unboundedUniqueItems(d.spec.parameters)) issues.push({ field: at, message: `uniqueItems needs maxItems of at most ${MAX_UNIQUE_ITEMS} (checking it compares every pair of items)` });
  for (const [name, prop] of Object.entries(d.spec.parameters.properties ?? {})) {
    const source = (prop as Record<string, unknown>)['x-source'];
    if (source !== undefined && !(X_SOURCES as readonly unknown[]).includes(source)) issues.push({ field: `spec.parameters.properties.${name}.x-source`, message: `must be one of ${X_SOURCES.join(', ')}` });
  }
  issues.push(...placeholderIssues(d.spec.dockerCompose.contents, Object.keys(d.spec.parameters.properties ?? {})));
  if (issues.length) throw new ValidationError('The plugin descriptor is not valid.', issues);
  return d;
}

/** Deploy parameters checked against the descriptor's own schema: 400 naming each field. */
export function checkPluginParameters(d: PluginDescriptor, parameters: unknown): Record<string, unknown> {
  const check = parameterAjv(true).compile(d.spec.parameters);
  const copy = parameters && typeof parameters === 'object' ? structuredClone(parameters) : parameters;
  if (!check(copy)) throw new ValidationError(`The parameters do not meet plugin ${d.metadata.name}'s schema.`, ajvIssues(check.errors, 'parameters'));
  // Values become YAML scalars of the compose file (pluginTemplate.ts): any character is written
  // safely there, but a container's environment and arguments cannot hold a NUL.
  const unsafe: FieldIssue[] = [];
  const walk = (v: unknown, at: string) => {
    if (typeof v === 'string' && v.includes('\u0000')) unsafe.push({ field: at, message: 'must not hold a NUL character (a container\'s environment and arguments cannot)' });
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${at}.${k}`);
  };
  walk(copy, 'parameters');
  if (unsafe.length) throw new ValidationError('Some parameter values cannot be written into the compose file.', unsafe);
  return copy as Record<string, unknown>;
}

/** Parameters whose values the service supplies (x-source), by name. */
export function sourcedParameters(d: PluginDescriptor): Record<string, string> {
  return Object.fromEntries(Object.entries(d.spec.parameters.properties ?? {}).flatMap(([k, v]) => (typeof v['x-source'] === 'string' ? [[k, v['x-source'] as string]] : [])));
}
