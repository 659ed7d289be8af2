// The OpenAPI 3.0 document, built from the route table and the same schemas that validate.
import type { TSchema } from '@sinclair/typebox';
import type { RouteDef } from './route.ts';
import { ErrorBody } from './errors.ts';
import { boundIntegers } from './validation.ts';

function plain(schema: TSchema): Record<string, unknown> {
  // TypeBox schemas are JSON Schema with symbol keys; JSON round trip keeps the JSON part.
  const s = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  delete s.$id;
  return s;
}

function parameters(schema: TSchema | undefined, where: 'path' | 'query') {
  if (!schema) return [];
  const s = boundIntegers(plain(schema)) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(s.properties ?? {}).map(([name, prop]) => ({
    name,
    in: where,
    required: where === 'path' || (s.required ?? []).includes(name),
    description: prop.description,
    schema: prop,
  }));
}

function uniqueId(used: Set<string>, id: string): string {
  let candidate = id;
  for (let n = 2; used.has(candidate); n++) candidate = `${id}${n}`;
  used.add(candidate);
  return candidate;
}

export interface OpenApiInfo {
  version: string;
  edition: string;
  defaultPageSize: number;
  maxPageSize: number;
  bodyLimit: string;
}

export function buildOpenApi(routes: RouteDef[], info: OpenApiInfo): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  // operationIds must be unique (generated clients key on them): two spellings of one path
  // (/audit/logs and /audit-logs) get the second a numbered suffix.
  const usedIds = new Set<string>();
  for (const r of routes) {
    const p = '/api/v1' + r.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const responses: Record<string, unknown> = {};
    for (const [code, spec] of Object.entries(r.responses)) {
      responses[code] = {
        description: spec.description,
        ...(spec.schema || spec.contentType
          ? { content: { [spec.contentType ?? 'application/json']: { schema: spec.schema ? plain(spec.schema) : { type: 'string', format: 'binary' } } } }
          : {}),
      };
    }
    for (const code of ['400', ...(r.permission === 'PUBLIC' ? [] : ['401', '403']), '500']) {
      // A write made with the session cookie is also refused from another origin (http/auth/requestOrigin.ts).
      const forbidden = r.method === 'get' ? 'The identity lacks the permission (or the edition lacks the feature)' : 'The identity lacks the permission (or the edition lacks the feature), or the session cookie came with a request from another origin (CROSS_ORIGIN)';
      responses[code] ??= { description: { '400': 'Bad input', '401': 'Missing or invalid credentials', '403': forbidden, '500': 'Internal error' }[code], content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } };
    }
    const op: Record<string, unknown> = {
      summary: r.summary,
      description: [r.description, r.permission === 'PUBLIC' ? 'No credentials needed.' : `Permission: \`${r.permission}\`.`, r.edition ? `Edition: ${r.edition}.` : '']
        .filter(Boolean)
        .join('\n\n'),
      tags: r.tags,
      operationId: uniqueId(usedIds, `${r.method}${r.path.replace(/[/:{}-]+(\w)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`),
      parameters: [...parameters(r.params, 'path'), ...parameters(r.query, 'query')],
      responses,
      ...(r.permission === 'PUBLIC' ? { security: [] } : {}),
      'x-permission': r.permission,
      ...(r.edition ? { 'x-edition': r.edition } : {}),
    };
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: boundIntegers(plain(r.body)) } } };
    (paths[p] ??= {})[r.method] = op;
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'Ledger network manager API',
      version: info.version,
      description: [
        'Creates and runs consortium and EVM ledger networks: organizations, keys, nodes, networks, backups, notifications, webhooks and audit logs.',
        `Running edition: ${info.edition}.`,
        `Lists take \`limit\` (default ${info.defaultPageSize}, maximum ${info.maxPageSize}) and \`offset\` (default 0) and answer { items, total, limit, offset }.`,
        `Request bodies are JSON, at most ${info.bodyLimit}. Every error has the ErrorBody shape; every response carries X-Request-Id.`,
      ].join('\n\n'),
    },
    servers: [{ url: '/' }],
    components: {
      schemas: { ErrorBody: plain(ErrorBody) },
      securitySchemes: {
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'lnm_session', description: 'Set by POST /api/v1/auth/login. A write (any method but GET, HEAD, OPTIONS) or a log WebSocket made with it must carry the service\'s own Origin (or one of LNM_ALLOWED_ORIGINS), else Sec-Fetch-Site: same-origin, else (a client that is not a browser) an X-Requested-With header; otherwise 403 CROSS_ORIGIN.' },
        basicAuth: { type: 'http', scheme: 'basic' },
        bearerApiKey: { type: 'http', scheme: 'bearer', description: 'API key (pro edition).' },
        headerApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'API key (pro edition).' },
      },
    },
    security: [{ sessionCookie: [] }, { basicAuth: [] }, { bearerApiKey: [] }, { headerApiKey: [] }],
    paths,
  };
}
