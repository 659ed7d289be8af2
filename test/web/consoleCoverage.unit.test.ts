// Every capability of the API has a place in the console (issue 23): each route of the service's
// own route table (allRoutes, the source of the OpenAPI document and of the route-table test)
// must be called somewhere in web/src, or be exempt below with its reason. The console's source
// is read with the TypeScript parser, so a path in a type (Json<'/api/v1/...', 'get'>), a comment
// or a sentence does not count: only a path the console sends.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { allRoutes } from '../../http/routes/index.ts';

const WEB_SRC = join(import.meta.dirname, '../../web/src');
const GENERATED = join(WEB_SRC, 'api/schema.d.ts');
const PREFIX = '/api/v1';
const METHODS = ['get', 'post', 'put', 'delete', 'patch'] as const;
type Method = (typeof METHODS)[number];

/**
 * Routes with no sensible page, each with its reason. Be strict: a route that gives a user a
 * capability is not exempt, it gets a page or a control.
 */
const exempt: Record<string, string> = {
  'get /health': 'liveness probe for load balancers and orchestrators, not for people',
  'get /auth/oidc/login': 'a browser redirect to the identity provider; the console links to the login URL GET /auth/providers gives',
  'get /auth/oidc/callback': "the identity provider's redirect back to the service; never called by the console",
  'get /networks/consortium/by-name/:name': 'a look-up by name for scripts; the console navigates by id',
  'get /networks/ledgerx/by-name/:name': 'a look-up by name for scripts; the console navigates by id',
  'get /organizations/by-mspid/:mspid': 'a look-up by MSP id for scripts; the console lists organizations and navigates by id',
  'get /audit/logs': 'an alias of GET /audit-logs, which the audit page calls',
  'get /audit/logs/:id': 'an alias of GET /audit-logs/{logId}, which the audit page calls',
  'get /backup-targets': 'an alias of GET /backups/targets, which the backups page calls',
  'get /networks/:networkId/channels/:channelName/config': 'the same decoded configuration as GET /networks/consortium/{id}/channel-config, which the channel panel reads (a network has one channel)',
  'get /api-keys/:id': 'the list the users page shows answers the same view of each key, and a key has nothing to edit (no update route)',
  'get /key-providers/:id': 'the list the keys page shows answers the same view of each provider (status from its own routes), and a provider has no update route',
  'get /backups/schedules/:id': 'the list the backups page shows answers the same view of each schedule, and a schedule has no update route',
  'post /networks/evm/:id/rpc': 'the JSON-RPC gateway is for programs (ethers, curl, wallets reading the chain); the console reads the same chain through the explorer routes on the EVM network page',
  'post /networks/evm/:id/nodes/:nodeId/rpc': 'the JSON-RPC gateway to one node, for programs; the console reads the chain through the explorer routes',
  'get /organizations/:id/identities/:identityId': 'the list on the organization page answers the same view of each client identity, and an identity has nothing to edit (revoke and key download are its actions)',
  'post /networks': 'the generic create (type evm) takes the same body and runs the same use case as POST /networks/evm, which the EVM wizard calls',
};

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.tsx?$/.test(name) && p !== GENERATED) out.push(p);
  }
  return out;
}

/** The text of a literal, with each `${...}` of a template as `*`. */
function literalText(node: ts.Node): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((s) => '*' + s.literal.text).join('');
  return undefined;
}

/** '/api/v1/nodes/{id}/logs?tail=30' or '/api/v1/nodes/*\/logs' -> '/nodes/*\/logs'. */
function shape(path: string): string {
  return path
    .slice(PREFIX.length)
    .replace(/[?#].*$/, '')
    .split('/')
    .map((s) => (/^\{[^}]+\}$/.test(s) || s.includes('*') ? '*' : s))
    .join('/');
}

const routeShape = (path: string) => path.replace(/:[A-Za-z_]+/g, '*');

/** Every (method, path shape) the console sends, and where. */
export function consoleCalls(files = sourceFiles(WEB_SRC)): Map<string, string> {
  const calls = new Map<string, string>();
  for (const file of files) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const where = relative(WEB_SRC, file);
    // Methods this file sends a path held in a variable with (api.POST(path), fetch(path, { method: 'POST' })):
    // a literal handed to such a helper (useOperate('/api/v1/metrics/start')) is sent with one of them.
    const variableMethods = new Set<Method>();
    const literals: Array<{ text: string; method?: Method }> = [];
    const visit = (node: ts.Node) => {
      if (ts.isLiteralTypeNode(node)) return; // a path in a type is not a call
      if (ts.isCallExpression(node)) {
        const callee = node.expression;
        const first = node.arguments[0];
        const apiMethod = ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'api' ? (callee.name.text.toLowerCase() as Method) : undefined;
        if (first && !literalText(first)) {
          if (apiMethod) variableMethods.add(apiMethod);
          if (ts.isIdentifier(callee) && callee.text === 'fetch') {
            const opts = node.arguments[1];
            const m = opts && /method:\s*['"](\w+)['"]/.exec(opts.getText(sf));
            variableMethods.add(((m?.[1] ?? 'get').toLowerCase()) as Method);
          }
        }
        if (apiMethod && first && literalText(first) !== undefined) {
          literals.push({ text: literalText(first)!, method: apiMethod });
          node.arguments.slice(1).forEach((a) => ts.forEachChild(a, visit));
          return;
        }
      }
      const text = literalText(node);
      if (text !== undefined) {
        const at = text.indexOf(PREFIX + '/');
        // A plain string must be a path; a template may start with the origin (WebSocket URLs).
        if (at === 0 || (at > 0 && ts.isTemplateExpression(node) && !/\s/.test(text.slice(0, at)))) {
          const fetchCall = ts.isCallExpression(node.parent) && ts.isIdentifier(node.parent.expression) && node.parent.expression.text === 'fetch' ? node.parent : undefined;
          const m = fetchCall?.arguments[1] && /method:\s*['"](\w+)['"]/.exec(fetchCall.arguments[1].getText(sf));
          literals.push({ text: text.slice(at), method: fetchCall ? ((m?.[1] ?? 'get').toLowerCase() as Method) : undefined });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    for (const l of literals) {
      const methods: Method[] = l.method ? [l.method] : ['get', ...variableMethods];
      for (const m of methods) if (!calls.has(`${m} ${shape(l.text)}`)) calls.set(`${m} ${shape(l.text)}`, where);
    }
  }
  return calls;
}

const calls = consoleCalls();
const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;

test('the scan finds the kinds of calls the console makes (typed client, getJson, WebSocket, href, helper)', () => {
  assert.ok(calls.has('get /nodes/*'), 'api.GET with a path parameter');
  assert.ok(calls.has('post /auth/login'), 'api.POST');
  assert.ok(calls.has('get /nodes/*/events'), 'getJson over a template string');
  assert.ok(calls.has('get /nodes/*/logs'), 'the WebSocket URL');
  assert.ok(calls.has('get /keys/*/crl'), 'a download link');
  assert.ok(calls.has('post /metrics/start'), 'a literal handed to a helper that POSTs it');
  assert.ok(calls.has('post /reports/activity'), "a literal handed to a helper that fetch()es it with method: 'POST'");
  assert.not.ok(calls.has('post /nodes/*/events'), 'a GET-only path is not counted for other methods');
});

test('the exemptions name routes that exist, each with its reason', () => {
  const all = new Set(allRoutes.map(key));
  const stale = Object.keys(exempt).filter((k) => !all.has(k));
  assert.equal(stale, [], 'names of routes that are not in the route table');
  for (const [k, why] of Object.entries(exempt)) assert.ok(why.length > 10, `${k} needs a reason`);
});

test('every route of the API is called by the console, or exempt with its reason', () => {
  const uncovered = allRoutes.filter((r) => !exempt[key(r)] && !calls.has(`${r.method} ${routeShape(r.path)}`)).map(key);
  if (uncovered.length) console.log(`Routes without a console page or control (${uncovered.length}):\n  ${uncovered.join('\n  ')}`);
  assert.equal(uncovered, []);
});

test('an exempt route is not also called (then it needs no exemption)', () => {
  const needless = Object.keys(exempt).filter((k) => {
    const [m, p] = k.split(' ');
    return calls.has(`${m} ${routeShape(p)}`);
  });
  assert.equal(needless, []);
});

test.run();
