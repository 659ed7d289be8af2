// The console offers the button or link that does a thing; it never tells its user to call an
// API route ("POST /metrics/deploy first"). Comments may name routes; text shown may not. The
// service's own messages (errors it answers, warnings, notifications) name the action ("deploy
// the metrics stack first"); routes stay in the OpenAPI document.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.tsx') || (p.endsWith('.ts') && !p.endsWith('.d.ts')) ? [p] : [];
  });
}

/** The source without its comments (line and block), strings kept. */
const withoutComments = (src: string) => src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

test('no text of the console tells its user to call an API route', () => {
  const found: string[] = [];
  for (const f of files('web/src')) {
    withoutComments(readFileSync(f, 'utf8')).split('\n').forEach((line, i) => {
      if (/\b(GET|POST|PUT|DELETE|PATCH) \/[a-z]/.test(line)) found.push(`${f}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.equal(found, []);
});

const ROUTE = /\b(GET|POST|PUT|DELETE|PATCH) \/[a-z{]/;

/** Literal texts a user reads in a server source: inside `new ...Error(...)`, a `warnings` value or a notification's `lines(...)`. */
export function routeTextInMessages(file: string, src = readFileSync(file, 'utf8')): string[] {
  const sf = ts.createSourceFile(file, src, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const literals = (n: ts.Node) => {
    if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) && ROUTE.test(n.text)) {
      found.push(`${file}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}: ${n.text.trim()}`);
    }
    ts.forEachChild(n, literals);
  };
  const visit = (n: ts.Node) => {
    if (ts.isNewExpression(n) && /Error$/.test(n.expression.getText())) literals(n);
    else if (ts.isPropertyAssignment(n) && n.name.getText() === 'warnings') literals(n.initializer);
    else if (ts.isCallExpression(n) && n.expression.getText() === 'lines') literals(n);
    else ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

test('no message of the service tells its user to call an API route', () => {
  const found = ['application', 'domain', 'sagas', 'adapters', 'http'].flatMap((d) => files(d)).flatMap((f) => routeTextInMessages(f));
  assert.equal(found, []);
});

test('the message check sees a route in an error, a warning and a notification line', () => {
  const probe = `throw new ConflictError(\`Chaincode \${n} is not installed: install it first (POST /sc/consortium/peer/\${id}/chaincode/install).\`);
const r = { warnings: ['join each (POST /networks/ledgerx/{id}/committers/{nodeId}/join)'] };
const l = lines([['To resume', 'PUT /api/v1/webhooks/' + id + ' with enabled: true']]);
const ok = { description: 'POST /metrics/deploy deploys it' };`;
  assert.is(routeTextInMessages('probe.ts', probe).length, 3);
});

test.run();
