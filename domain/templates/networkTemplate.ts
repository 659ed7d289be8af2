// A network template (SPEC "Network template"): version 2.0.0, a platform, variables and a
// platform-specific network body with ${var.property} placeholders. This file is pure: the
// checks of a template's shape and of its bindings' shape, the placeholders it uses and their
// substitution. Looking bindings up (does organization 3 exist, is key 7 secp256k1) is the
// http layer's work, which reports its findings with the same issue codes.

export const TEMPLATE_VERSION = '2.0.0';
export const TEMPLATE_PLATFORMS = ['CONSORTIUM', 'EVM', 'LEDGERX'] as const;
export type TemplatePlatform = (typeof TEMPLATE_PLATFORMS)[number];
export const VARIABLE_TYPES = ['organization', 'node', 'key', 'mspId', 'ethereumAddress', 'publicKey'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

export interface TemplateVariable {
  name: string;
  type: VariableType;
  description?: string;
}

export interface NetworkTemplate {
  version: string;
  platform: TemplatePlatform;
  name: string;
  description?: string;
  variables: TemplateVariable[];
  network: Record<string, unknown>;
}

export type VariableBinding = { organizationId: number } | { nodeId: number } | { keyId: number };

/** What a variable resolves to: its properties (`${v.mspId}`) and, for scalar types, the value itself (`${v}`, property ''). */
export type ResolvedVariable = Record<string, string | number>;

export type TemplateIssueCode =
  | 'UNSUPPORTED_VERSION' | 'UNSUPPORTED_PLATFORM' | 'INVALID_VARIABLE' | 'PLACEHOLDER_WITHOUT_VARIABLE' | 'UNKNOWN_PROPERTY'
  | 'UNKNOWN_VARIABLE' | 'MISSING_BINDING' | 'WRONG_BINDING_TYPE' | 'BINDING_NOT_FOUND' | 'INVALID_NETWORK';

export interface TemplateIssue {
  code: TemplateIssueCode;
  field: string;
  message: string;
}

/** The properties each type resolves to (SPEC: organization -> mspId; node, key -> id; evm keys also ethereumAddress; scalar types -> the value). */
export const VARIABLE_PROPERTIES: Record<VariableType, string[]> = {
  organization: ['mspId', 'id'],
  node: ['id'],
  key: ['id', 'ethereumAddress', 'publicKey'],
  mspId: [''],
  ethereumAddress: [''],
  publicKey: [''],
};

/** The binding field each type takes. */
export const BINDING_FIELD: Record<VariableType, 'organizationId' | 'nodeId' | 'keyId'> = {
  organization: 'organizationId',
  mspId: 'organizationId',
  node: 'nodeId',
  key: 'keyId',
  ethereumAddress: 'keyId',
  publicKey: 'keyId',
};

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_-]*)(?:\.([A-Za-z]+))?\}/g;
const WHOLE = /^\$\{([A-Za-z_][A-Za-z0-9_-]*)(?:\.([A-Za-z]+))?\}$/;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

export const placeholder = (variable: string, property = '') => (property ? `\${${variable}.${property}}` : `\${${variable}}`);

export interface PlaceholderUse {
  field: string;
  variable: string;
  property: string;
}

/** Every placeholder of the network body, in values and in object keys (alloc addresses), with where it stands. */
export function placeholdersOf(value: unknown, field = 'network'): PlaceholderUse[] {
  const inString = (s: string, f: string) => [...s.matchAll(PLACEHOLDER)].map((m) => ({ field: f, variable: m[1], property: m[2] ?? '' }));
  if (typeof value === 'string') return inString(value, field);
  if (Array.isArray(value)) return value.flatMap((v, i) => placeholdersOf(v, `${field}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => [...inString(k, `${field}.${k}`), ...placeholdersOf(v, `${field}.${k}`)]);
  }
  return [];
}

/** The template's own shape: version, platform, variables, and that every placeholder names a declared variable and a property its type has. */
export function templateIssues(template: Record<string, unknown>): TemplateIssue[] {
  const issues: TemplateIssue[] = [];
  if (template.version !== TEMPLATE_VERSION) {
    issues.push({ code: 'UNSUPPORTED_VERSION', field: 'template.version', message: `version ${JSON.stringify(template.version)} is not supported; this service reads templates of version ${TEMPLATE_VERSION}` });
  }
  if (!TEMPLATE_PLATFORMS.includes(template.platform as TemplatePlatform)) {
    issues.push({ code: 'UNSUPPORTED_PLATFORM', field: 'template.platform', message: `platform must be CONSORTIUM, EVM or LEDGERX, got ${JSON.stringify(template.platform)}` });
  }
  const variables = Array.isArray(template.variables) ? (template.variables as Array<Record<string, unknown>>) : [];
  const declared = new Map<string, VariableType>();
  variables.forEach((v, i) => {
    const field = `template.variables[${i}]`;
    if (typeof v?.name !== 'string' || !VARIABLE_NAME.test(v.name)) issues.push({ code: 'INVALID_VARIABLE', field: `${field}.name`, message: 'a name of letters, digits, "_" and "-", starting with a letter or "_"' });
    else if (declared.has(v.name)) issues.push({ code: 'INVALID_VARIABLE', field: `${field}.name`, message: `variable ${v.name} is declared twice` });
    else if (!VARIABLE_TYPES.includes(v.type as VariableType)) issues.push({ code: 'INVALID_VARIABLE', field: `${field}.type`, message: `type must be one of ${VARIABLE_TYPES.join(', ')}, got ${JSON.stringify(v.type)}` });
    else declared.set(v.name, v.type as VariableType);
  });
  for (const use of placeholdersOf(template.network)) {
    const type = declared.get(use.variable);
    if (!type) {
      if (!variables.some((v) => v?.name === use.variable)) issues.push({ code: 'PLACEHOLDER_WITHOUT_VARIABLE', field: use.field, message: `${placeholder(use.variable, use.property)} names no declared variable` });
      continue;
    }
    if (!VARIABLE_PROPERTIES[type].includes(use.property)) {
      const has = VARIABLE_PROPERTIES[type].map((p) => placeholder(use.variable, p)).join(', ');
      issues.push({ code: 'UNKNOWN_PROPERTY', field: use.field, message: `${placeholder(use.variable, use.property)}: a ${type} variable resolves to ${has}` });
    }
  }
  return issues;
}

/** The bindings' shape against the declared variables: each names a declared variable, with the field its type takes; every variable is bound. */
export function bindingIssues(variables: TemplateVariable[], bindings: Record<string, unknown>): TemplateIssue[] {
  const issues: TemplateIssue[] = [];
  const byName = new Map(variables.map((v) => [v.name, v]));
  for (const [name, binding] of Object.entries(bindings)) {
    const field = `variableBindings.${name}`;
    const v = byName.get(name);
    if (!v) {
      issues.push({ code: 'UNKNOWN_VARIABLE', field, message: `the template declares no variable ${name}` });
      continue;
    }
    const wanted = BINDING_FIELD[v.type];
    const keys = binding && typeof binding === 'object' ? Object.keys(binding) : [];
    const value = (binding as Record<string, unknown> | null)?.[wanted];
    if (keys.length !== 1 || !Number.isSafeInteger(value) || (value as number) < 1) {
      issues.push({ code: 'WRONG_BINDING_TYPE', field, message: `${name} is a ${v.type} variable: bind it with {"${wanted}": <id>}, got ${JSON.stringify(binding)}` });
    }
  }
  for (const v of variables) {
    if (!Object.hasOwn(bindings, v.name)) issues.push({ code: 'MISSING_BINDING', field: `variableBindings.${v.name}`, message: `variable ${v.name} (${v.type}) has no binding: give {"${BINDING_FIELD[v.type]}": <id>}` });
  }
  return issues;
}

/**
 * The network body with every placeholder replaced. A string that is one placeholder becomes the
 * value itself (a node id stays a number); placeholders inside a longer string are spliced in.
 */
export function substitute(value: unknown, resolved: Record<string, ResolvedVariable>): unknown {
  const one = (s: string): string | number => {
    const whole = WHOLE.exec(s);
    if (whole) return lookup(whole[1], whole[2] ?? '');
    return s.replace(PLACEHOLDER, (_m, v: string, p: string | undefined) => String(lookup(v, p ?? '')));
  };
  // Own properties only: a variable named constructor or toString is not Object.prototype's.
  const lookup = (variable: string, property: string) => {
    const r = Object.hasOwn(resolved, variable) && Object.hasOwn(resolved[variable], property) ? resolved[variable][property] : undefined;
    if (r === undefined) throw new Error(`${placeholder(variable, property)} is not resolved`);
    return r;
  };
  if (typeof value === 'string') return one(value);
  if (Array.isArray(value)) return value.map((v) => substitute(v, resolved));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [String(one(k)), substitute(v, resolved)]));
  return value;
}
