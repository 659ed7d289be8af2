import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { ValidationError, type FieldIssue } from '../domain/shared/errors.ts';
import { unstorablePath } from '../domain/shared/storableText.ts';

const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

// Bodies are checked as sent (no type coercion); path and query strings are coerced to the
// declared types because they only ever arrive as strings.
const bodyAjv = addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: false }));
const paramAjv = addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: 'array' }));

const cache = new WeakMap<TSchema, ValidateFunction>();

/** PostgreSQL's integer range: ids and counts land in integer columns. */
export const PG_INTEGER_MIN = -2147483648;
export const PG_INTEGER_MAX = 2147483647;

/**
 * A copy of a JSON schema in which every `integer` without its own bound gets PostgreSQL's
 * integer range (an id of 2^64 or 1e308 is a 400 at validation, never an out-of-range error
 * from a query). Explicit `minimum`/`maximum` win. The OpenAPI document shows the same bounds.
 */
export function boundIntegers<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map((s) => boundIntegers(s)) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    // `properties` and the like are maps of names to schemas; `const`, `default`, `enum` and `examples` are data.
    out[k] = k === 'const' || k === 'default' || k === 'enum' || k === 'examples' ? v : boundIntegers(v);
  }
  const types = Array.isArray(out.type) ? out.type : [out.type];
  if (types.includes('integer')) {
    if (out.minimum === undefined && out.exclusiveMinimum === undefined) out.minimum = PG_INTEGER_MIN;
    if (out.maximum === undefined && out.exclusiveMaximum === undefined) out.maximum = PG_INTEGER_MAX;
  }
  return out as T;
}

function fieldOf(err: ErrorObject, root: string): string {
  const base = err.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const extra =
    err.keyword === 'required' ? (err.params as { missingProperty: string }).missingProperty :
    err.keyword === 'additionalProperties' ? (err.params as { additionalProperty: string }).additionalProperty : '';
  const path = [base, extra].filter(Boolean).join('.');
  return path || root;
}

function messageOf(err: ErrorObject): string {
  switch (err.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'enum':
      return `must be one of ${((err.params as { allowedValues: unknown[] }).allowedValues ?? []).map(String).join(', ')}`;
    case 'type':
      return `must be ${(err.params as { type: string }).type}`;
    default:
      return err.message ?? 'is invalid';
  }
}

export function issuesOf(errors: ErrorObject[] | null | undefined, root: string): FieldIssue[] {
  const seen = new Set<string>();
  const out: FieldIssue[] = [];
  for (const e of errors ?? []) {
    // anyOf/oneOf wrappers repeat their branches' errors; keep the specific ones.
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') continue;
    const issue = { field: fieldOf(e, root), message: messageOf(e) };
    const key = issue.field + issue.message;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(issue);
    }
  }
  return out;
}

export function validate<T>(schema: TSchema, value: unknown, where: 'body' | 'query' | 'path'): T {
  let fn = cache.get(schema);
  if (!fn) {
    fn = (where === 'body' ? bodyAjv : paramAjv).compile(boundIntegers(JSON.parse(JSON.stringify(schema)) as TSchema));
    cache.set(schema, fn);
  }
  if (!fn(value)) {
    const details = issuesOf(fn.errors, where);
    throw new ValidationError(`The request ${where === 'path' ? 'path' : where} is invalid: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}.`, details);
  }
  // No string (value or key) that PostgreSQL cannot store goes further: not in a text column,
  // not in a jsonb event, not in a lookup. Path, query and body alike.
  const at = unstorablePath(value);
  if (at !== null) {
    const field = at || where;
    throw new ValidationError(`The request ${where} is invalid: ${field} contains a NUL character or a lone UTF-16 surrogate, which cannot be stored.`, [
      { field, message: 'contains a NUL character or a lone UTF-16 surrogate' },
    ]);
  }
  return value as T;
}
