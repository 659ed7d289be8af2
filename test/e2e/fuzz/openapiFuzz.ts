// The OpenAPI fuzzer (issue 20): walks the running server's own OpenAPI document and sends every
// operation inputs generated from its schemas (fast-check) and from hostile generators, as ADMIN,
// OPERATOR, VIEWER and without credentials. Used by test/e2e/fuzz/openapiFuzz.e2e.test.ts (fixed
// seed, bounded) and by bench/fuzz.ts (longer). Two phases:
//   refused  inputs the service must refuse whatever the route (text PostgreSQL cannot store,
//            integers out of range, JSON deeper than 64 levels, bodies that are not JSON, no
//            body): every answer must be a 4xx, and afterwards no resource count and no setting
//            may have changed (nothing stored from a refused request).
//   generated  schema-valid inputs and mutations of them (wrong types, missing and extra fields,
//            Object.prototype names as keys, huge and deep values, odd content types). Valid
//            creates may succeed; operations whose success would start processes, reach other
//            hosts or run long work (BOUNDED below) get only the refused kind of input.
//   cross-origin  (first) every state-changing operation, bodiless, with the ADMIN's session cookie
//            and a foreign Origin (or Origin: null, or Sec-Fetch-Site cross-site or same-site, or
//            none of them): each must be 403 CROSS_ORIGIN (issue 36), and nothing may change.
// Both: never a 5xx (but the documented 503 of a feature this server lacks: isStated503), never an answer slower than the time bound, a 4xx always in the one error
// body shape. After both: GET /health answers 200 and the audit hash chain verifies.
import fc from 'fast-check';
import http from 'node:http';
import net from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import { call } from '../../helpers/httpCall.ts';

const basic = (u: string, p: string) => 'Basic ' + Buffer.from(`${u}:${p}`).toString('base64');

/** SESSION: the ADMIN's session cookie, used only by the cross-origin phase. */
export type Role = 'ADMIN' | 'OPERATOR' | 'VIEWER' | 'ANONYMOUS' | 'SESSION';
export const ROLES: Role[] = ['ADMIN', 'OPERATOR', 'VIEWER', 'ANONYMOUS'];

/**
 * Operations only ever sent inputs that must be refused, because their success would start
 * processes or containers, reach hosts the generator names, or run long work. Each with why.
 */
export const BOUNDED: Array<[method: string, path: RegExp, why: string]> = [
  ['post', /^\/api\/v1\/nodes$/, 'creates a node process or container'],
  ['post', /^\/api\/v1\/networks\/(consortium\/\{id\}|\{networkId\})\/nodes$/, 'creates a node process or container'],
  ['post', /^\/api\/v1\/networks\/\{networkId\}\/start$/, 'starts node processes'],
  ['post', /^\/api\/v1\/nodes\/\{id\}\/(start|restart)$/, 'starts a node process'],
  ['post', /^\/api\/v1\/networks\/templates\/import$/, 'creates a network and starts its nodes'],
  ['post', /^\/api\/v1\/plugins\/\{name\}\/(deploy|resume)$/, 'starts Docker Compose services'],
  ['post', /^\/api\/v1\/metrics\/(deploy|start)$/, 'starts the metrics containers'],
  ['post', /^\/api\/v1\/backups$/, 'runs a backup to a storage target'],
  ['post', /^\/api\/v1\/backups\/(targets|schedules)$/, 'reaches the storage endpoint it names; schedules backups'],
  ['put', /^\/api\/v1\/backups\/(targets\/\{id\}|schedules\/\{id\}\/enable)$/, 'reaches the storage endpoint it names; schedules backups'],
  ['post', /^\/api\/v1\/webhooks$/, 'delivers every later event to the URL it names'],
  ['put', /^\/api\/v1\/webhooks\/\{id\}$/, 'delivers every later event to the URL it names'],
  ['post', /^\/api\/v1\/webhooks\/\{id\}\/(test|replay\/\{deliveryId\})$/, 'sends a request to another host'],
  ['post', /^\/api\/v1\/notifications\/providers(\/\{id\}\/test)?$/, 'sends mail through the host it names'],
  ['put', /^\/api\/v1\/notifications\/providers\/\{id\}$/, 'sends mail through the host it names'],
  ['post', /^\/api\/v1\/key-providers$/, 'reaches the Vault or AWS KMS endpoint it names'],
  ['post', /^\/api\/v1\/hosts$/, 'reaches the Docker Engine it names (up to 5 s for one that does not answer)'],
  ['post', /^\/api\/v1\/nodesharing\/(invitations|accept|sync)$/, 'reaches the peer service it names'],
  ['post', /^\/api\/v1\/nodesharing\/proposals\/\{id\}\/submit$/, 'reaches peer services'],
  ['post', /^\/api\/v1\/sc\//, 'builds and deploys contracts on running networks'],
  ['post', /^\/api\/v1\/(keys|organizations\/\{id\}\/keys)$/, 'generates keys (RSA 4096 takes seconds on a loaded machine)'],
  ['post', /^\/api\/v1\/keys\/\{keyId\}\/(rotate|renew)$/, 'generates keys'],
  ['post', /^\/api\/v1\/organizations$/, 'generates the organization\'s CA keys'],
];

export const boundedWhy = (method: string, path: string) => BOUNDED.find(([m, p]) => m === method && p.test(path))?.[2] ?? null;

interface Operation {
  method: string;
  path: string;
  pathParams: Array<{ name: string; schema: Schema }>;
  query: Array<{ name: string; schema: Schema; required: boolean }>;
  body: Schema | null;
  isPublic: boolean;
  bounded: string | null;
}

type Schema = Record<string, any>;

export function operationsOf(doc: { paths: Record<string, Record<string, any>> }): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = (op.parameters ?? []) as Array<{ name: string; in: string; required?: boolean; schema: Schema }>;
      ops.push({
        method,
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: p.schema ?? { type: 'string' } })),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? { type: 'string' }, required: Boolean(p.required) })),
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
        isPublic: Array.isArray(op.security) && op.security.length === 0,
        bounded: boundedWhy(method, path),
      });
    }
  }
  return ops;
}

// ---- values ------------------------------------------------------------------------------

/** An object with the given own keys, __proto__ included (as JSON.parse would make it). */
function withKey(obj: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  const out = { ...obj };
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

export const PROTO_NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];
/** Text PostgreSQL cannot store. */
export const UNSTORABLE = ['\u0000', 'a\u0000b', '\uD800', '\uDFFF', 'x\uDBFFy', '\uDC00\uD800', 'ok\u0000'];
/** The same, as a URL can carry it: a lone surrogate cannot travel in a URL (its bytes decode to U+FFFD). */
const UNSTORABLE_IN_URL = ['\u0000', 'a\u0000b', 'ok\u0000', '\u0000\u0000'];
export const HUGE_NUMBERS = [2 ** 64, 1e308, -1e308, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, 99999999999999999999999];
const ODD_NUMBERS = [-0, 1.5, 0.1, -1, 0, Number.MIN_VALUE];
const WRONG_TYPES: unknown[] = [null, true, false, 0, -1, '', 'x', [], {}, [null], { a: 1 }];

const nest = (n: number, leaf: unknown): unknown => {
  let v = leaf;
  for (let i = 0; i < n; i++) v = i % 2 ? { a: v } : [v];
  return v;
};

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...UNSTORABLE),
  fc.constantFrom(...HUGE_NUMBERS, ...ODD_NUMBERS),
  fc.constantFrom(...WRONG_TYPES),
  fc.constantFrom(...PROTO_NAMES),
  fc.constantFrom('x'.repeat(70_000), '../../../../etc/passwd', '${constructor}', '{{ .parameters.constructor }}', '%00', '\u2028\u2029\u0085', 'a: b\nprivileged: true'),
  fc.integer({ min: 1, max: 60 }).map((n) => nest(n, 'deep')),
  fc.constant(Array.from({ length: 5_000 }, (_, i) => i)),
  fc.string({ unit: 'binary', maxLength: 30 }),
);

const FORMATS: Record<string, fc.Arbitrary<string>> = {
  'date-time': fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  date: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  email: fc.emailAddress(),
  uri: fc.webUrl(),
  url: fc.webUrl(),
  uuid: fc.uuid(),
  ipv4: fc.ipV4(),
  hostname: fc.domain(),
};

function patternArb(pattern: string, min: number, max: number): fc.Arbitrary<string> {
  try {
    return fc.stringMatching(new RegExp(pattern)).filter((s) => s.length >= min && s.length <= max);
  } catch {
    return fc.string({ minLength: min, maxLength: Math.min(max, 40) });
  }
}

/** Values of a JSON schema (as the OpenAPI document writes them), within its bounds. */
export function schemaArb(s: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!s || typeof s !== 'object' || depth > 8) return fc.constantFrom<unknown>('x', 1, true, null);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum) && s.enum.length) return fc.constantFrom(...s.enum);
  const union = s.anyOf ?? s.oneOf;
  if (Array.isArray(union) && union.length) return fc.oneof(...union.map((x: Schema) => schemaArb(x, depth + 1)));
  if (Array.isArray(s.allOf) && s.allOf.length) return schemaArb(s.allOf[0], depth + 1);
  const type = Array.isArray(s.type) ? s.type[0] : s.type ?? (s.properties || s.patternProperties ? 'object' : undefined);
  switch (type) {
    case 'string': {
      const min = s.minLength ?? 0;
      const max = Math.min(s.maxLength ?? 40, 300);
      if (s.format && FORMATS[s.format]) return FORMATS[s.format].filter((v) => v.length >= min && v.length <= (s.maxLength ?? Infinity));
      if (typeof s.pattern === 'string') return patternArb(s.pattern, min, s.maxLength ?? 300);
      return fc.string({ minLength: min, maxLength: Math.max(min, max) });
    }
    case 'integer':
      return fc.integer({ min: Math.ceil(s.minimum ?? -(2 ** 31)), max: Math.floor(s.maximum ?? 2 ** 31 - 1) });
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schemaArb(s.items, depth + 1), { minLength: s.minItems ?? 0, maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 3, 4)) });
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const names = Object.keys(props);
      if (names.length) {
        const record = fc.record(Object.fromEntries(names.map((n) => [n, schemaArb(props[n], depth + 1)])), { requiredKeys: (s.required ?? []).filter((r: string) => names.includes(r)) });
        return record;
      }
      const pp = s.patternProperties ? (Object.values(s.patternProperties)[0] as Schema) : typeof s.additionalProperties === 'object' ? s.additionalProperties : null;
      if (pp) return fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), schemaArb(pp, depth + 1), { maxKeys: 3 });
      return fc.constant({});
    }
    default:
      return fc.constantFrom<unknown>('x', 1, true, null, {}, []);
  }
}

/** Every place in a value: [] is the value itself. */
function placesOf(v: unknown, at: Array<string | number> = [], out: Array<Array<string | number>> = []): Array<Array<string | number>> {
  out.push(at);
  if (out.length > 200) return out;
  if (Array.isArray(v)) v.forEach((x, i) => placesOf(x, [...at, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) placesOf(x, [...at, k], out);
  return out;
}

function setAt(v: unknown, at: Array<string | number>, f: (old: unknown) => unknown): unknown {
  if (!at.length) return f(v);
  const [head, ...rest] = at;
  if (Array.isArray(v)) return v.map((x, i) => (i === head ? setAt(x, rest, f) : x));
  if (v && typeof v === 'object') return withKey(v as Record<string, unknown>, String(head), setAt((v as Record<string, unknown>)[head as string], rest, f));
  return v;
}

function deleteAt(v: unknown, at: Array<string | number>): unknown {
  if (!at.length) return v;
  if (at.length === 1 && v && typeof v === 'object' && !Array.isArray(v)) {
    return Object.fromEntries(Object.entries(v).filter(([k]) => k !== at[0]));
  }
  const [head, ...rest] = at;
  return setAt(v, [head], (x) => deleteAt(x, rest));
}

/** A mutation of a valid value: what a careless or hostile client sends. */
function mutate(v: unknown, pick: number, kind: number, value: unknown, key: string): { value: unknown; what: string } {
  const places = placesOf(v);
  const at = places[pick % places.length];
  const where = at.join('.') || '(root)';
  switch (kind % 6) {
    case 0:
      return { value: setAt(v, at, () => value), what: `replace ${where}` };
    case 1:
      return { value: deleteAt(v, at), what: `drop ${where}` };
    case 2: {
      const objects = places.filter((p) => { let x: any = v; for (const k of p) x = x?.[k]; return x && typeof x === 'object' && !Array.isArray(x); });
      const target = objects.length ? objects[pick % objects.length] : [];
      return { value: setAt(v, target, (o) => (o && typeof o === 'object' && !Array.isArray(o) ? withKey(o as Record<string, unknown>, key, value) : o)), what: `extra key ${JSON.stringify(key)} at ${target.join('.') || '(root)'}` };
    }
    case 3:
      return { value: setAt(v, at, (old) => nest(60, old)), what: `nest ${where} 60 levels` };
    case 4:
      return { value: setAt(v, at, (old) => (typeof old === 'string' ? old + UNSTORABLE[pick % UNSTORABLE.length] : WRONG_TYPES[pick % WRONG_TYPES.length])), what: `taint ${where}` };
    default:
      return { value: WRONG_TYPES[pick % WRONG_TYPES.length], what: 'body of a wrong type' };
  }
}

/** A mutation that every route must refuse: unstorable text somewhere in it. */
function taint(v: unknown, pick: number, asKey: boolean): unknown {
  const bad = UNSTORABLE[pick % UNSTORABLE.length];
  const objects = placesOf(v).filter((p) => { let x: any = v; for (const k of p) x = x?.[k]; return x && typeof x === 'object' && !Array.isArray(x); });
  if (!asKey) {
    const strings = placesOf(v).filter((p) => { let x: any = v; for (const k of p) x = x?.[k]; return typeof x === 'string'; });
    if (strings.length) return setAt(v, strings[pick % strings.length], (s) => `${s}${bad}`);
  }
  if (objects.length) return setAt(v, objects[pick % objects.length], (o) => withKey(o as Record<string, unknown>, `k${bad}`, 1));
  return { [`k${bad}`]: v };
}

// ---- requests ----------------------------------------------------------------------------

export interface FuzzRequest {
  role: Role;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Body chunks as sent (null: no body). */
  chunks: string[] | null;
  what: string;
}

/** Percent-encoding of any text, lone surrogates included (as WTF-8 bytes, which the server decodes to U+FFFD: a URL cannot carry them). */
function pct(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (/[A-Za-z0-9\-_.~]/.test(text[i])) out += text[i];
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && text.charCodeAt(i + 1) >= 0xdc00 && text.charCodeAt(i + 1) <= 0xdfff) {
      out += encodeURIComponent(text.slice(i, i + 2));
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => '%' + b.toString(16).toUpperCase()).join('');
    else out += encodeURIComponent(text[i]);
  }
  return out;
}

const encodePathValue = (v: unknown) => pct(typeof v === 'object' ? JSON.stringify(v) ?? 'null' : String(v));

function fillPath(op: Operation, values: Record<string, unknown>): string {
  return op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodePathValue(values[name]));
}

function queryString(values: Record<string, unknown>): string {
  const parts = Object.entries(values)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${pct(k)}=${pct(typeof v === 'object' ? JSON.stringify(v) ?? 'null' : String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** Ids of the fuzzer's own users and API keys: never edited, deleted or revoked, or the run would lose its roles. */
export const PROTECTED_USER_IDS = new Set<number>();
export const PROTECTED_API_KEY_IDS = new Set<number>();

function pathValueArb(op: Operation, p: { name: string; schema: Schema }): fc.Arbitrary<unknown> {
  const base = schemaArb(p.schema);
  const ids = p.schema.type === 'integer' ? fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 100_000, max: 2 ** 31 - 1 })) : base;
  return fc.oneof({ weight: 3, arbitrary: ids }, { weight: 1, arbitrary: base });
}

/** Whether path values name one of the fuzzer's own users or keys, however spelled ('01', ' 1', '1e0'). */
function namesProtected(op: Operation, values: Record<string, unknown>): boolean {
  const set = op.path.startsWith('/api/v1/users/') ? PROTECTED_USER_IDS : op.path.startsWith('/api/v1/api-keys/') ? PROTECTED_API_KEY_IDS : null;
  return set !== null && Object.values(values).some((v) => set.has(Number(String(v).trim())));
}

const json = (v: unknown) => JSON.stringify(v) ?? 'null';

/** Bodies and transports every route must refuse (415, 400), whatever the route. */
const refusedTransport = fc.constantFrom<[Record<string, string>, string[] | null, string]>(
  [{ 'content-type': 'text/plain', 'transfer-encoding': 'chunked' }, ['{"a":', '1}'], 'chunked text/plain'],
  [{ 'content-type': 'text/plain' }, ['{}'], 'text/plain'],
  [{ 'content-type': 'application/vnd.lnm+json' }, ['{}'], '+json type'],
  [{ 'content-type': 'application/x-www-form-urlencoded' }, ['a=1&b=2'], 'form'],
  [{ 'content-type': 'multipart/form-data; boundary=x' }, ['--x\r\n\r\n--x--'], 'multipart'],
  [{ 'content-type': 'application/json; charset=utf-16' }, ['{}'], 'utf-16 charset'],
  [{ 'content-type': 'application/json', 'content-encoding': 'gzip' }, ['{}'], 'gzip'],
  [{}, ['{}'], 'no content type'],
  [{ 'content-type': 'application/json' }, ['{"a":'], 'truncated JSON'],
  [{ 'content-type': 'application/json' }, ["{'a':1}"], 'not JSON'],
  [{ 'content-type': 'application/json' }, ['null'], 'null'],
  [{ 'content-type': 'application/json' }, ['12'], 'a number'],
  [{ 'content-type': 'application/json' }, ['[[[[' .repeat(2_000) + ']]]]'.repeat(2_000)], '8000 levels'],
  [{ 'content-type': 'application/json' }, [json(nest(65, 1))], '65 levels'],
  [{ 'content-type': 'application/json' }, [''], 'empty'],
  [{ 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, [' ', '\n'], 'chunked whitespace'],
);

/** A request the service must refuse (4xx) whatever the route and the role. Null when the operation takes no input to spoil. */
export function refusedArb(op: Operation, roleOf: () => Role): fc.Arbitrary<FuzzRequest> | null {
  const hasInput = op.pathParams.length || op.body || op.query.length;
  if (!hasInput) return null;
  const choices: Array<fc.Arbitrary<{ path: Record<string, unknown>; query: Record<string, unknown>; chunks: string[] | null; headers: Record<string, string>; what: string }>> = [];
  const validPath = (fc.record(Object.fromEntries(op.pathParams.map((p) => [p.name, pathValueArb(op, p)]))) as fc.Arbitrary<Record<string, unknown>>).filter((v) => !namesProtected(op, v));
  const validBody = op.body ? schemaArb(op.body) : fc.constant(undefined);
  const body = (v: unknown) => (op.body ? [json(v)] : null);
  const headers: Record<string, string> = op.body ? { 'content-type': 'application/json' } : {};
  if (op.pathParams.length) {
    const p = op.pathParams;
    choices.push(
      fc.tuple(validPath, validBody, fc.nat(p.length - 1), fc.nat(20)).map(([path, b, i, k]) => {
        const param = p[i];
        const bad = param.schema.type === 'integer' ? [...HUGE_NUMBERS, '1e308', '18446744073709551616', '-0', '1.5', 'x', '0x10g'][k % 12] : `a${UNSTORABLE_IN_URL[k % UNSTORABLE_IN_URL.length]}`;
        return { path: { ...path, [param.name]: bad }, query: {}, chunks: body(b), headers, what: `path ${param.name}=${JSON.stringify(bad)}` };
      }),
    );
  }
  if (op.query.length) {
    choices.push(
      fc.tuple(validPath, validBody, fc.nat(op.query.length - 1), fc.nat(20)).map(([path, b, i, k]) => {
        const q = op.query[i];
        const bad = q.schema.type === 'integer' ? ['18446744073709551616', '1e308', '2147483648', '1.5', 'x'][k % 5] : `q${UNSTORABLE_IN_URL[k % UNSTORABLE_IN_URL.length]}`;
        return { path, query: { [q.name]: bad }, chunks: body(b), headers, what: `query ${q.name}=${JSON.stringify(bad)}` };
      }),
    );
  }
  if (op.body) {
    choices.push(
      fc.tuple(validPath, validBody, fc.nat(1000), fc.boolean()).map(([path, b, pick, asKey]) => ({ path, query: {}, chunks: [json(taint(b, pick, asKey))], headers, what: `body with unstorable text${asKey ? ' in a key' : ''}` })),
      fc.tuple(validPath, validBody, fc.nat(1000)).map(([path, b, pick]) => {
        const places = placesOf(b);
        return { path, query: {}, chunks: [json(setAt(b, places[pick % places.length], (old) => nest(70, old)))], headers, what: 'body nested past 64 levels' };
      }),
      fc.tuple(validPath, refusedTransport).map(([path, [h, chunks, what]]) => ({ path, query: {}, chunks, headers: h, what: `transport: ${what}` })),
      validPath.map((path) => ({ path, query: {}, chunks: null, headers: {}, what: 'no body' })),
    );
  }
  return fc.oneof(...choices).map((x) => ({ role: roleOf(), method: op.method.toUpperCase(), path: fillPath(op, x.path) + queryString(x.query), headers: x.headers, chunks: x.chunks, what: x.what }));
}

/** Inputs from the schemas and mutations of them; the service may accept them. */
export function generatedArb(op: Operation, roleOf: () => Role): fc.Arbitrary<FuzzRequest> {
  const validPath = (fc.record(Object.fromEntries(op.pathParams.map((p) => [p.name, pathValueArb(op, p)]))) as fc.Arbitrary<Record<string, unknown>>).filter((v) => !namesProtected(op, v));
  const validQuery = fc.record(Object.fromEntries(op.query.map((q) => [q.name, schemaArb(q.schema)])), { requiredKeys: op.query.filter((q) => q.required).map((q) => q.name) }) as fc.Arbitrary<Record<string, unknown>>;
  const hostileQuery = fc.tuple(validQuery, fc.constantFrom(...op.query.map((q) => q.name), ...PROTO_NAMES, 'extra'), hostileValue).map(([q, k, v]) => withKey(q, k, v));
  const query = op.query.length ? fc.oneof({ weight: 3, arbitrary: validQuery }, { weight: 1, arbitrary: hostileQuery }) : fc.constant({});
  const pathVals = op.pathParams.length ? fc.oneof({ weight: 4, arbitrary: validPath }, { weight: 1, arbitrary: fc.tuple(validPath, fc.constantFrom(...op.pathParams.map((p) => p.name)), fc.oneof(hostileValue, fc.constantFrom(...PROTO_NAMES, '..', '%2e%2e', '0', '-1', ' 1', '1 ', '01'))).map(([p, k, v]) => ({ ...p, [k]: v })) }).filter((v) => !namesProtected(op, v)) : fc.constant({});
  type Body = { chunks: string[] | null; headers: Record<string, string>; what: string };
  let body: fc.Arbitrary<Body> = fc.constant({ chunks: null, headers: {}, what: 'no body' });
  if (op.body) {
    const valid = schemaArb(op.body);
    const mutated = fc.tuple(valid, fc.nat(1000), fc.nat(5), hostileValue, fc.oneof(fc.constantFrom(...PROTO_NAMES), fc.string({ maxLength: 10 }))).map(([v, pick, kind, value, key]) => mutate(v, pick, kind, value, key));
    body = fc.oneof(
      { weight: 4, arbitrary: valid.map((v) => ({ chunks: [json(v)], headers: { 'content-type': 'application/json' }, what: 'valid body' })) },
      { weight: 4, arbitrary: mutated.map((m) => ({ chunks: [json(m.value)], headers: { 'content-type': 'application/json' }, what: m.what })) },
      { weight: 1, arbitrary: fc.tuple(valid, fc.constantFrom('application/json; charset=utf-8', 'application/json;charset=UTF-8', 'APPLICATION/JSON')).map(([v, ct]) => ({ chunks: [json(v)], headers: { 'content-type': ct }, what: `valid body as ${ct}` })) },
      { weight: 1, arbitrary: valid.map((v) => { const t = json(v); const cut = Math.max(1, t.length >> 1); return { chunks: [t.slice(0, cut), t.slice(cut)], headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, what: 'valid body, chunked' }; }) },
      { weight: 2, arbitrary: refusedTransport.map(([h, chunks, what]) => ({ chunks, headers: h, what: `transport: ${what}` })) },
    );
  }
  return fc.tuple(pathVals, query, body).map(([p, q, b]) => ({ role: roleOf(), method: op.method.toUpperCase(), path: fillPath(op, p) + queryString(q), headers: b.headers, chunks: b.chunks, what: b.what }));
}

/** Ways a browser shows a request comes from another site (or shows nothing, which a browser never does on a write). */
const crossSite = (foreignOrigin: string) =>
  fc.constantFrom<[Record<string, string>, string]>(
    [{ origin: foreignOrigin }, `Origin ${foreignOrigin}`],
    [{ origin: foreignOrigin, 'sec-fetch-site': 'same-site' }, `Origin ${foreignOrigin}, Sec-Fetch-Site same-site`],
    [{ origin: 'null' }, 'Origin null'],
    [{ 'sec-fetch-site': 'cross-site' }, 'Sec-Fetch-Site cross-site'],
    [{ 'sec-fetch-site': 'same-site' }, 'Sec-Fetch-Site same-site'],
    [{}, 'no Origin, Sec-Fetch-Site or X-Requested-With'],
  );

/** A bodiless state-changing request with the session cookie from another origin; null for reads and public operations. */
export function crossOriginArb(op: Operation, foreignOrigin: string): fc.Arbitrary<FuzzRequest> | null {
  if (op.method === 'get' || op.isPublic) return null;
  // Path values that reach the route (an empty segment matches none: a 404 before any check).
  const validPath = (fc.record(Object.fromEntries(op.pathParams.map((p) => [p.name, pathValueArb(op, p)]))) as fc.Arbitrary<Record<string, unknown>>).filter((v) => !namesProtected(op, v) && Object.values(v).every((x) => encodePathValue(x) !== ''));
  return fc.tuple(validPath, crossSite(foreignOrigin)).map(([path, [headers, what]]) => ({ role: 'SESSION' as Role, method: op.method.toUpperCase(), path: fillPath(op, path), headers, chunks: null, what: `no body, session cookie, ${what}` }));
}

// ---- running -----------------------------------------------------------------------------

export interface Answer {
  status: number;
  retryAfter: string | null;
  ms: number;
  json: any;
  text: string;
}

export function send(base: string, auth: Record<Role, Record<string, string>>, req: FuzzRequest, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const headers: Record<string, string> = { ...auth[req.role], ...req.headers };
    if (req.chunks && !headers['transfer-encoding']) headers['content-length'] = String(Buffer.byteLength(req.chunks.join('')));
    const r = http.request(base + req.path, { method: req.method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        let json: any = null;
        try {
          json = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({ status: res.statusCode ?? 0, retryAfter: (res.headers['retry-after'] as string | undefined) ?? null, ms: performance.now() - t0, json, text });
      });
    });
    r.setTimeout(timeoutMs * 5, () => r.destroy(new Error('timeout')));
    r.on('error', (err) => resolve({ status: 0, retryAfter: null, ms: performance.now() - t0, json: null, text: `request failed: ${err.message}` }));
    for (const c of req.chunks ?? []) r.write(c);
    r.end();
  });
}

export interface FuzzStats {
  operations: number;
  requests: number;
  byPhase: Record<string, number>;
  byRole: Record<Role, number>;
  statuses: Record<string, number>;
  operationsAccepted: number;
  maxMs: number;
  p99Ms: number;
  slowest: string;
  bounded: Array<{ operation: string; why: string }>;
  /** Operations that answered the documented 503 for a feature this server does not have (not a failure). */
  unavailable: string[];
  failures: string[];
}

/**
 * The one 5xx that is not a failure: the documented 503 of a feature this server lacks or a state
 * to wait out (docs/api.md), in the error body, with Retry-After and a message that names it
 * (not the generic one of an internal error).
 */
function isStated503(a: Answer): boolean {
  return a.json?.status === 503 && typeof a.json.code === 'string' && typeof a.json.message === 'string' && !/^The server could not complete the request/.test(a.json.message) && a.retryAfter !== null;
}

/** Resource counts and settings: what a refused request must not change. */
export async function storedState(base: string, auth: Record<string, string>): Promise<Record<string, unknown>> {
  const lists = ['/users', '/api-keys', '/organizations', '/keys', '/networks/evm', '/networks/consortium', '/nodes', '/webhooks', '/notifications/providers', '/backups/targets', '/backups/schedules', '/backups', '/plugins', '/key-providers', '/nodesharing/peers'];
  const out: Record<string, unknown> = {};
  for (const l of lists) {
    const r = await fetch(`${base}${l}`, { headers: auth });
    const body = (await r.json()) as any;
    out[l] = r.status === 200 ? (body.total ?? (Array.isArray(body) ? body.length : Array.isArray(body.items) ? body.items.length : null)) : `status ${r.status}`;
  }
  const s = (await (await fetch(`${base}/settings`, { headers: auth })).json()) as any;
  out.settings = { general: s.general, audit: s.audit };
  return out;
}

export async function fuzz(opts: {
  base: string;
  doc: { paths: Record<string, Record<string, any>> };
  auth: Record<Role, Record<string, string>>;
  seed: number;
  refusedRuns: number;
  generatedRuns: number;
  /** Requests per state-changing operation in the cross-origin phase (0: no such phase). */
  crossOriginRuns?: number;
  /** Header-value cases per operation (0: no such phase). */
  headerRuns?: number;
  slowMs: number;
  log?: (m: string) => void;
  /** Between the phases: the counts must match. */
  checkStored: () => Promise<void>;
}): Promise<FuzzStats> {
  const ops = operationsOf(opts.doc).filter((o) => o.path.startsWith('/api/v1/') && !(o.method === 'post' && o.path === '/api/v1/auth/logout'));
  const stats: FuzzStats = { operations: ops.length, requests: 0, byPhase: {}, byRole: { ADMIN: 0, OPERATOR: 0, VIEWER: 0, ANONYMOUS: 0, SESSION: 0 }, statuses: {}, operationsAccepted: 0, maxMs: 0, p99Ms: 0, slowest: '', bounded: [], unavailable: [], failures: [] };
  const times: number[] = [];
  const accepted = new Set<string>();
  const unavailable = new Set<string>();
  stats.bounded = ops.filter((o) => o.bounded).map((o) => ({ operation: `${o.method.toUpperCase()} ${o.path}`, why: o.bounded! }));

  const run = async (phase: 'cross-origin' | 'refused' | 'generated', op: Operation, arb: fc.Arbitrary<FuzzRequest>, runs: number, seed: number) => {
    const name = `${op.method.toUpperCase()} ${op.path}`;
    const samples = fc.sample(arb, { seed, numRuns: runs });
    for (const req of samples) {
      const a = await send(opts.base, opts.auth, req, opts.slowMs);
      stats.requests++;
      stats.byPhase[phase] = (stats.byPhase[phase] ?? 0) + 1;
      stats.byRole[req.role]++;
      stats.statuses[a.status] = (stats.statuses[a.status] ?? 0) + 1;
      times.push(a.ms);
      if (a.ms > stats.maxMs) {
        stats.maxMs = a.ms;
        stats.slowest = `${req.method} ${req.path.slice(0, 120)} (${req.what}, ${req.role}) -> ${a.status}`;
      }
      const where = `[${phase}] ${req.method} ${req.path.slice(0, 160)} as ${req.role} (${req.what}) -> ${a.status} in ${Math.round(a.ms)} ms`;
      if (a.status === 503 && isStated503(a)) unavailable.add(`${name}: ${a.json.code}`);
      else if (a.status >= 500 || a.status === 0) stats.failures.push(`${where}: ${a.text.slice(0, 300)}`);
      else if (a.ms > opts.slowMs) stats.failures.push(`${where}: slower than ${opts.slowMs} ms`);
      else if (a.status >= 400 && (a.json?.status !== a.status || typeof a.json?.code !== 'string' || typeof a.json?.message !== 'string')) stats.failures.push(`${where}: not the error body: ${a.text.slice(0, 200)}`);
      else if (phase === 'refused' && a.status < 400) stats.failures.push(`${where}: accepted an input it must refuse: ${a.text.slice(0, 200)}`);
      else if (phase === 'cross-origin' && (a.status !== 403 || a.json?.code !== 'CROSS_ORIGIN')) stats.failures.push(`${where}: not refused as cross-origin (403 CROSS_ORIGIN): ${a.text.slice(0, 200)}`);
      if (a.status < 300) accepted.add(name);
    }
  };

  // After each operation, each role's credentials must still work: a request that disables
  // another identity's key is a finding of its own (and would make the rest of the run moot).
  let rolesBroken = false;
  const rolesIntact = async (after: string) => {
    if (rolesBroken) return;
    for (const role of ['ADMIN', 'OPERATOR', 'VIEWER'] as const) {
      const r = await send(opts.base, opts.auth, { role, method: 'GET', path: '/api/v1/auth/me', headers: {}, chunks: null, what: 'role check' }, opts.slowMs);
      if (r.status !== 200 || r.json?.role !== role) {
        rolesBroken = true;
        stats.failures.push(`the ${role} credentials stopped working after ${after}: ${r.status} ${r.text.slice(0, 200)}`);
      }
    }
  };

  let roleTurn = 0;
  const roleOf = () => ROLES[roleTurn++ % ROLES.length];
  let i = 0;
  if (opts.crossOriginRuns) {
    const own = new URL(opts.base);
    const foreignOrigin = `${own.protocol}//${own.hostname}:${Number(own.port) + 1}`;
    for (const op of ops) {
      const arb = crossOriginArb(op, foreignOrigin);
      if (arb) await run('cross-origin', op, arb, opts.crossOriginRuns, opts.seed + 20_000 + i);
      i++;
    }
    await rolesIntact('the cross-origin phase');
    opts.log?.(`cross-origin phase: ${stats.byPhase['cross-origin'] ?? 0} requests`);
    i = 0;
  }
  for (const op of ops) {
    const arb = refusedArb(op, roleOf);
    if (arb) await run('refused', op, arb, opts.refusedRuns, opts.seed + i);
    else await run('refused', op, fc.constant(null).map(() => ({ role: 'ANONYMOUS' as Role, method: op.method.toUpperCase(), path: op.path, headers: {}, chunks: null, what: 'no credentials' })), op.isPublic ? 0 : 1, opts.seed + i);
    await rolesIntact(`[refused] ${op.method.toUpperCase()} ${op.path}`);
    i++;
  }
  opts.log?.(`refused phase: ${stats.requests} requests`);
  await opts.checkStored();
  i = 0;
  for (const op of ops) {
    const arb = op.bounded ? refusedArb(op, roleOf) : generatedArb(op, roleOf);
    if (arb) await run('generated', op, arb, opts.generatedRuns, opts.seed + 10_000 + i);
    await rolesIntact(`[generated] ${op.method.toUpperCase()} ${op.path}`);
    i++;
    if (i % 40 === 0) opts.log?.(`generated phase: ${i}/${ops.length} operations, ${stats.requests} requests`);
  }
  if (opts.headerRuns) {
    await headerPhase({ base: opts.base, ops, key: opts.auth.ADMIN.authorization.slice('Bearer '.length), runs: opts.headerRuns, seed: opts.seed, slowMs: opts.slowMs, stats, times });
    await rolesIntact('the header-value phase');
    opts.log?.(`header-value phase: ${stats.byPhase.headers ?? 0} requests`);
  }
  stats.operationsAccepted = accepted.size;
  stats.unavailable = [...unavailable].sort();
  times.sort((a, b) => a - b);
  stats.p99Ms = Math.round(times[Math.floor(times.length * 0.99)] ?? 0);
  stats.maxMs = Math.round(stats.maxMs);
  return stats;
}

/**
 * The whole run against a started server: the fuzzer's OPERATOR and VIEWER users, the stored
 * state before, both phases, then health and the audit chain. `stored` is null when nothing
 * changed across the refused phase, else both states.
 */
export async function fuzzServer(s: { url: string; api: string }, adminBasic: Record<string, string>, opts: { seed: number; refusedRuns: number; generatedRuns: number; crossOriginRuns?: number; headerRuns?: number; pairRounds?: number; slowMs: number; log?: (m: string) => void }) {
  // Each role calls with an API key of its own: the fuzzer's failed logins lock its address out
  // of password logins (login throttling, as designed), and API keys do not depend on sessions
  // or settings the fuzzer may change. The keys and their users are never edited or revoked.
  const keyFor = async (basicAuth: Record<string, string>) => {
    const r = await call(s.api, 'POST', '/api-keys', { headers: basicAuth, body: { name: `fuzz-${opts.seed}` } });
    if (r.status !== 201) throw new Error(`creating an API key: ${r.status} ${r.text}`);
    PROTECTED_API_KEY_IDS.add(r.json.id);
    return { authorization: `Bearer ${r.json.key}` };
  };
  const me = await call(s.api, 'GET', '/auth/me', { headers: adminBasic });
  PROTECTED_USER_IDS.add(me.json.id);
  const admin = await keyFor(adminBasic);
  // The ADMIN's session cookie, taken before the fuzzer's failed logins lock this address out.
  const decoded = Buffer.from(adminBasic.authorization.slice(6), 'base64').toString('utf8');
  const sep = decoded.indexOf(':');
  const login = await call(s.api, 'POST', '/auth/login', { body: { username: decoded.slice(0, sep), password: decoded.slice(sep + 1) } });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  if (login.status !== 200 || !cookie.startsWith('lnm_session=')) throw new Error(`logging in: ${login.status} ${login.text}`);
  const auth: Record<Role, Record<string, string>> = { ADMIN: admin, OPERATOR: {}, VIEWER: {}, ANONYMOUS: {}, SESSION: { cookie } };
  for (const role of ['OPERATOR', 'VIEWER'] as const) {
    const username = `fuzz-${role.toLowerCase()}-${opts.seed}`;
    const password = `fuzz-${role.toLowerCase()}-password-1`;
    // A VIEWER may not create API keys: the user makes its key as an OPERATOR, then becomes a
    // VIEWER (a key acts with its user's current role).
    const r = await call(s.api, 'POST', '/users', { headers: admin, body: { username, password, role: 'OPERATOR' } });
    if (r.status !== 201) throw new Error(`creating the ${role} user: ${r.status} ${r.text}`);
    PROTECTED_USER_IDS.add(r.json.id);
    auth[role] = await keyFor({ authorization: basic(username, password) });
    if (role === 'VIEWER') {
      const demoted = await call(s.api, 'PUT', `/users/${r.json.id}/role`, { headers: admin, body: { role } });
      if (demoted.status !== 200) throw new Error(`making the user a VIEWER: ${demoted.status} ${demoted.text}`);
    }
    const who = await call(s.api, 'GET', '/auth/me', { headers: auth[role] });
    if (who.json?.role !== role) throw new Error(`the ${role} key acts as ${who.status} ${who.text}`);
  }
  const doc = (await (await fetch(`${s.url}/api/swagger/doc.json`)).json()) as { paths: Record<string, Record<string, any>> };
  const before = await storedState(s.api, admin);
  let stored: { before: unknown; after: unknown } | null = null;
  const { pairRounds, ...fuzzOpts } = opts;
  const stats = await fuzz({
    base: s.url,
    doc,
    auth,
    ...fuzzOpts,
    checkStored: async () => {
      const after = await storedState(s.api, admin);
      if (!isDeepStrictEqual(after, before)) stored = { before, after };
    },
  });
  const pairs = pairRounds ? await concurrentPairs(s.api, admin, { rounds: pairRounds, seed: opts.seed, chainId: 46_000 + (opts.seed % 1000) }) : null;
  if (pairs) opts.log?.(`concurrent command pairs: ${pairs.rounds} rounds, statuses ${JSON.stringify(pairs.statuses)}, outcomes ${JSON.stringify(pairs.outcomes)}`);
  const health = await call(s.api, 'GET', '/health');
  // The whole chain: verify stops at the last entry.
  const verify = await call(s.api, 'POST', '/audit-logs/verify', { headers: admin, body: { start_id: 1, end_id: 2 ** 31 - 1 } });
  const me2 = await call(s.api, 'GET', '/audit-logs?limit=1&include_archived=true', { headers: admin });
  return { stats: { ...stats, stored }, pairs, health, verify, auditEntries: verify.json?.checked as number | undefined, adminStillWorks: me2.status };
}

// ---------------------------------------------------------------------------------------------
// Header values (issue 36): what Node's http client refuses to send (bytes above Latin-1, CR/LF,
// duplicate credentials) goes over a raw socket. Every case carries no valid credential, or a
// valid one beside another (which the server must refuse as ambiguous), so all must be refused.

/** Raw header lines (without CRLF) of each case; `key` is a valid API key of the ADMIN. */
export function headerCases(key: string): Array<{ what: string; lines: Buffer[] }> {
  const utf8 = (s: string) => Buffer.from(s, 'utf8');
  const latin1 = (s: string) => Buffer.from(s, 'latin1');
  return [
    { what: 'Authorization Basic of UTF-8 bytes, not base64', lines: [utf8('Authorization: Basic ädmin:пароль-€')] },
    { what: 'Authorization Basic of base64 UTF-8 above Latin-1', lines: [latin1(`Authorization: Basic ${Buffer.from('админ:пароль😀').toString('base64')}`)] },
    { what: 'Authorization Bearer with UTF-8 bytes', lines: [utf8('Authorization: Bearer lnm_ключ€😀')] },
    { what: 'X-API-Key with UTF-8 bytes', lines: [utf8('X-API-Key: ключ-😀')] },
    { what: 'a session cookie with UTF-8 bytes', lines: [utf8('Cookie: lnm_session=сессия😀')] },
    { what: 'X-Request-Id, Origin and User-Agent above Latin-1', lines: [utf8('X-Request-Id: 請求-😀'), utf8('Origin: http://пример.испытание'), utf8('User-Agent: агент\u2028😀')] },
    { what: 'a bare CR inside a header value', lines: [latin1('X-API-Key: lnm_a\rb')] },
    { what: 'a bare LF inside a header value', lines: [latin1('Authorization: Bearer lnm_a\nX-Injected: 1')] },
    { what: 'an obsolete folded header', lines: [latin1('Authorization: Bearer'), latin1(' lnm_folded')] },
    { what: 'a NUL in a header value', lines: [latin1('Authorization: Bearer lnm_\u0000x')] },
    { what: 'an Authorization of 15 KiB (under the 16 KiB limit)', lines: [latin1(`Authorization: Bearer lnm_${'a'.repeat(15 * 1024)}`)] },
    { what: 'a Basic Authorization of 12 KiB', lines: [latin1(`Authorization: Basic ${Buffer.from(`${'u'.repeat(4096)}:${'p'.repeat(4096)}`).toString('base64')}`)] },
    { what: 'headers over 16 KiB', lines: [latin1(`X-API-Key: ${'k'.repeat(17 * 1024)}`)] },
    { what: 'two Authorization headers, the valid key first', lines: [latin1(`Authorization: Bearer ${key}`), latin1('Authorization: Bearer lnm_other')] },
    { what: 'two Authorization headers, the valid key second', lines: [latin1('Authorization: Basic bm86bm8='), latin1(`Authorization: Bearer ${key}`)] },
    { what: 'two X-API-Key headers, the valid key first', lines: [latin1(`X-API-Key: ${key}`), latin1('X-API-Key: lnm_other')] },
    { what: 'two X-API-Key headers, both the valid key', lines: [latin1(`X-API-Key: ${key}`), latin1(`X-API-Key: ${key}`)] },
  ];
}

/** One request over a raw socket: request line, `lines`, Host, and a JSON body when given. */
export function sendRaw(base: string, method: string, path: string, lines: Buffer[], body: string | null, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const url = new URL(base);
    const socket = net.connect(Number(url.port), url.hostname);
    let raw = Buffer.alloc(0);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = raw.toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const bodyText = end >= 0 ? text.slice(end + 4) : '';
      let json: any = null;
      try {
        json = JSON.parse(bodyText);
      } catch {
        /* not JSON */
      }
      resolve({ status, retryAfter: /\r\nretry-after: *([^\r]*)/i.exec(text)?.[1] ?? null, ms: performance.now() - t0, json, text: status ? bodyText : `no answer: ${text.slice(0, 200)}` });
    };
    const timer = setTimeout(finish, timeoutMs * 5);
    socket.on('data', (b: Buffer) => {
      raw = Buffer.concat([raw, b]);
      const text = raw.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text)?.[1] ?? NaN);
      if (end >= 0 && raw.length - (end + 4) >= length) finish();
    });
    socket.on('close', finish);
    socket.on('error', finish);
    const head = [`${method} ${path} HTTP/1.1`, `Host: ${url.host}`, 'Connection: close', ...(body === null ? [] : ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`])];
    socket.write(Buffer.concat([Buffer.from(head.join('\r\n') + '\r\n'), ...lines.flatMap((l) => [l, Buffer.from('\r\n')]), Buffer.from('\r\n'), Buffer.from(body ?? '')]));
  });
}

/** The header-value phase: every operation gets `runs` of the cases (all of them in turn over the operations), each must be refused with a 4xx in the error body. */
export async function headerPhase(opts: { base: string; ops: Operation[]; key: string; runs: number; seed: number; slowMs: number; stats: FuzzStats; times: number[] }): Promise<void> {
  const cases = headerCases(opts.key);
  let turn = opts.seed % cases.length;
  for (const op of opts.ops) {
    // An id no resource has: a refusal that slipped through could not touch the fuzzer's own users and keys.
    const path = op.path.replace(/\{[^}]+\}/g, '999999');
    for (let r = 0; r < opts.runs; r++) {
      const c = cases[turn++ % cases.length];
      const a = await sendRaw(opts.base, op.method.toUpperCase(), path, c.lines, op.method === 'get' || op.method === 'delete' ? null : '{}', opts.slowMs);
      opts.stats.requests++;
      opts.stats.byPhase.headers = (opts.stats.byPhase.headers ?? 0) + 1;
      opts.stats.statuses[a.status] = (opts.stats.statuses[a.status] ?? 0) + 1;
      opts.times.push(a.ms);
      const where = `[headers] ${op.method.toUpperCase()} ${path} (${c.what}) -> ${a.status} in ${Math.round(a.ms)} ms`;
      if (a.status >= 500 || a.status === 0) opts.stats.failures.push(`${where}: ${a.text.slice(0, 300)}`);
      else if (a.ms > opts.slowMs) opts.stats.failures.push(`${where}: slower than ${opts.slowMs} ms`);
      else if (a.status < 400 && !op.isPublic) opts.stats.failures.push(`${where}: accepted: ${a.text.slice(0, 200)}`);
      else if (a.status >= 400 && (a.json?.status !== a.status || typeof a.json?.code !== 'string' || typeof a.json?.message !== 'string')) opts.stats.failures.push(`${where}: not the error body: ${a.text.slice(0, 200)}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Concurrent command pairs on one real node (issue 36): two of start, stop, restart and delete
// sent together, then the node's recorded state must agree with what runs (its RPC answers).

type Command = 'start' | 'stop' | 'restart' | 'delete';
export const COMMAND_PAIRS: Array<[Command, Command]> = [['stop', 'start'], ['start', 'start'], ['stop', 'stop'], ['restart', 'stop'], ['start', 'restart'], ['delete', 'start'], ['delete', 'stop'], ['delete', 'delete']];

/**
 * Whether this test's node answers at `url`: an EVM node of chain `chainId` (eth_chainId). Only
 * the chain tells it apart from a node of another test that took the port once this one freed it
 * (the suite runs in two lanes; a port is handed out again as soon as it is free).
 */
async function rpcAnswers(url: string, chainId: number): Promise<boolean> {
  try {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }), signal: AbortSignal.timeout(2_000) });
    const result = ((await r.json()) as { result?: unknown }).result;
    return r.ok && typeof result === 'string' && Number(result) === chainId;
  } catch {
    return false;
  }
}

export interface PairStats {
  rounds: number;
  statuses: Record<string, number>;
  failures: string[];
  outcomes: Record<string, number>;
}

/**
 * `rounds` pairs (all of COMMAND_PAIRS in turn, from a seeded start) on an anvil validator of an
 * evm network made for it; a deleted node is replaced by a new one. After each pair: no 5xx,
 * every 4xx in the error body, and once the node settles (no command in flight) its recorded
 * status says what runs: `running` with its RPC answering, `stopped` with nothing answering at
 * its RPC address, and a deleted node is gone (404) with nothing answering there.
 */
export async function concurrentPairs(api: string, auth: Record<string, string>, opts: { rounds: number; seed: number; chainId: number }): Promise<PairStats> {
  const stats: PairStats = { rounds: 0, statuses: {}, failures: [], outcomes: {} };
  const req = (method: string, path: string, body?: unknown) => call(api, method, path, { headers: auth, body });
  const net = await req('POST', '/networks', { name: `fuzz-pairs-${opts.seed}`, type: 'evm', genesis: { chain_id: opts.chainId, consensus: 'IBFT_2', block_time: 1, gas_limit: '0x1C9C380', validators: [], accounts: {} } });
  if (net.status !== 201) throw new Error(`creating the network: ${net.status} ${net.text}`);
  let made = 0;
  const newNode = async () => {
    const n = await req('POST', `/networks/${net.json.id}/nodes`, { name: `fuzz-pairs-${opts.seed}-${++made}`, type: 'validator' });
    if (n.status !== 201) throw new Error(`adding a node: ${n.status} ${n.text}`);
    const started = await req('POST', `/nodes/${n.json.id}/start`);
    if (started.json?.status !== 'running') throw new Error(`starting the node: ${started.status} ${started.text}`);
    return { id: n.json.id as number, rpc: started.json.endpoints.rpc_http as string };
  };
  let node = await newNode();
  for (let r = 0; r < opts.rounds; r++) {
    const [a, b] = COMMAND_PAIRS[(opts.seed + r) % COMMAND_PAIRS.length];
    const send = (c: Command) => (c === 'delete' ? req('DELETE', `/nodes/${node.id}`) : req('POST', `/nodes/${node.id}/${c}`));
    const answers = await Promise.all([send(a), send(b)]);
    stats.rounds++;
    const where = `${a}/${b} on node ${node.id}`;
    for (const x of answers) {
      stats.statuses[x.status] = (stats.statuses[x.status] ?? 0) + 1;
      if (x.status >= 500 || x.status === 0) stats.failures.push(`${where}: ${x.status} ${x.text.slice(0, 300)}`);
      else if (x.status >= 400 && (x.json?.status !== x.status || typeof x.json?.code !== 'string')) stats.failures.push(`${where}: not the error body: ${x.text.slice(0, 200)}`);
    }
    // Settled: the recorded status no longer changes without a command (a bound to see a hang).
    let view = await req('GET', `/nodes/${node.id}`);
    for (let i = 0; i < 100 && view.status === 200 && !['running', 'stopped', 'error'].includes(view.json.status); i++) {
      await new Promise((res) => setTimeout(res, 200));
      view = await req('GET', `/nodes/${node.id}`);
    }
    const runs = await rpcAnswers(node.rpc, opts.chainId);
    const outcome = view.status === 404 ? 'deleted' : String(view.json?.status);
    stats.outcomes[`${a}/${b} -> ${outcome}`] = (stats.outcomes[`${a}/${b} -> ${outcome}`] ?? 0) + 1;
    if (view.status === 404) {
      if (runs) stats.failures.push(`${where}: deleted, but its node still answers at ${node.rpc}`);
      node = await newNode();
      continue;
    }
    if (view.status !== 200) stats.failures.push(`${where}: reading the node: ${view.status} ${view.text.slice(0, 200)}`);
    else if (view.json.status === 'running' && !runs) stats.failures.push(`${where}: recorded running, but nothing answers at ${node.rpc}`);
    else if (view.json.status === 'stopped' && runs) stats.failures.push(`${where}: recorded stopped, but the node still answers at ${node.rpc}`);
    else if (!['running', 'stopped'].includes(view.json.status)) stats.failures.push(`${where}: settled as ${view.json.status}: ${view.json.error ?? ''}`);
    // The next round starts from a running node.
    if (view.json?.status !== 'running') {
      const s = await req('POST', `/nodes/${node.id}/start`);
      if (s.json?.status !== 'running') stats.failures.push(`${where}: could not start it again: ${s.status} ${s.text.slice(0, 200)}`);
    }
  }
  // Leave nothing running.
  await req('POST', `/networks/${net.json.id}/stop`).catch(() => undefined);
  for (const n of ((await req('GET', `/networks/evm/${net.json.id}/nodes`)).json?.items ?? []) as Array<{ id: number }>) await req('POST', `/nodes/${n.id}/stop`);
  return stats;
}
