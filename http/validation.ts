import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { ValidationError, type FieldIssue } from '../domain/shared/errors.ts';

const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

// Bodies are checked as sent (no type coercion); path and query strings are coerced to the
// declared types because they only ever arrive as strings.
const bodyAjv = addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: false }));
const paramAjv = addFormats(new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: 'array' }));

const cache = new WeakMap<TSchema, ValidateFunction>();

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
    fn = (where === 'body' ? bodyAjv : paramAjv).compile(schema);
    cache.set(schema, fn);
  }
  if (!fn(value)) {
    const details = issuesOf(fn.errors, where);
    throw new ValidationError(`The request ${where === 'path' ? 'path' : where} is invalid: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}.`, details);
  }
  return value as T;
}
