// Issue 35 item 9: every console form says a refusal's field messages beside their fields, with
// the one shared display (FieldError of web/src/components/states.tsx, which the form's
// ActionError then leaves out so nothing is said twice). The console's source is read with the
// TypeScript parser; each <form> element must, in its own subtree, draw a FieldError or hand the
// refusal to a field component (an `error` or `refusal` prop), or sit in a component that marks
// the fields its own field component draws (useShownFields). Forms that send the API nothing a
// field could be refused in are listed below with their reason.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { tmpdir } from 'node:os';
import ts from 'typescript';

const WEB_SRC = join(import.meta.dirname, '../../web/src');

/** file (under web/src) and the form's aria-label or aria-labelledby: why it has no field error. */
const noRefusableField: Record<string, string> = {
  'pages/nodes/Nodes.tsx Filter nodes': 'filters the list through the page address; nothing is sent but the listing, whose refusal is the list\'s error state',
  'pages/nodes/NodeMetrics.tsx Chart': 'picks which series the chart draws; nothing is sent',
  'pages/audit/Audit.tsx Filter audit entries': 'filters the listing through the page address; a refused filter is the listing\'s error state',
  'pages/audit/Audit.tsx Go to a page': 'moves the pager; nothing is sent',
  'pages/networks/ContractCalls.tsx Contract address and ABI': 'checked in the browser (its own messages beside both fields); nothing is sent until a call, whose form has its field errors',
  'pages/networks/ConsortiumNetworkDetail.tsx Join a peer of this instance': 'the join sends no body (the peer is in the path); its refusal is said once by the members list',
  'pages/keys/ClientIdentities.tsx revoke-identity': 'a confirmation: the identity is in the path and nothing else is sent',
  'pages/keys/ClientIdentities.tsx export-key': 'a confirmation with an acknowledgement checkbox the browser checks; the identity is in the path and no body is sent',
  'pages/keys/ClientIdentities.tsx push-crl': 'the chosen network and the organization are in the path and no body is sent; a refusal (not a member, signatures missing) is said once under the form',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : name.endsWith('.tsx') ? [p] : [];
  });
}

const attr = (el: ts.JsxOpeningLikeElement, name: string): string | undefined => {
  for (const p of el.attributes.properties) {
    if (!ts.isJsxAttribute(p) || p.name.getText() !== name || !p.initializer) continue;
    if (ts.isStringLiteral(p.initializer)) return p.initializer.text;
    if (ts.isJsxExpression(p.initializer) && p.initializer.expression) return p.initializer.expression.getText();
  }
  return undefined;
};

/** Components that say a refusal under the form, not at a field. */
const FORM_LEVEL = new Set(['ActionError', 'ErrorState', 'FormActions']);

/** True when the subtree draws a FieldError or hands a refusal to a field component. */
function saysFieldErrors(node: ts.Node): boolean {
  let found = false;
  const visit = (n: ts.Node) => {
    if (found) return;
    if (ts.isJsxOpeningElement(n) || ts.isJsxSelfClosingElement(n)) {
      const tag = n.tagName.getText();
      if (tag === 'FieldError') found = true;
      else if (/^[A-Z]/.test(tag) && !FORM_LEVEL.has(tag) && n.attributes.properties.some((p) => ts.isJsxAttribute(p) && ['error', 'refusal'].includes(p.name.getText()))) found = true;
    }
    ts.forEachChild(n, visit);
  };
  visit(node);
  return found;
}

/** True when the function component around `node` marks its field component's errors as said. */
function inComponentMarkingFields(node: ts.Node): boolean {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if ((ts.isFunctionDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n)) && /\buseShownFields\(/.test(n.getText())) return true;
  }
  return false;
}

export function formsWithoutFieldErrors(files = sourceFiles(WEB_SRC)): { missing: string[]; exemptSeen: Set<string>; forms: number } {
  const missing: string[] = [];
  const exemptSeen = new Set<string>();
  let forms = 0;
  for (const file of files) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
    const where = relative(WEB_SRC, file);
    const visit = (n: ts.Node) => {
      if (ts.isJsxElement(n) && n.openingElement.tagName.getText() === 'form') {
        forms++;
        const label = attr(n.openingElement, 'aria-label') ?? attr(n.openingElement, 'aria-labelledby') ?? '(unlabelled)';
        const key = `${where} ${label}`;
        if (noRefusableField[key] !== undefined) exemptSeen.add(key);
        else if (!saysFieldErrors(n) && !inComponentMarkingFields(n)) missing.push(`${key} (line ${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1})`);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return { missing, exemptSeen, forms };
}

test('every console form says its refused fields beside them through the shared field error display', () => {
  const { missing, forms } = formsWithoutFieldErrors();
  assert.ok(forms >= 50, `only ${forms} forms found: the scan no longer sees the console's forms`);
  assert.equal(missing, [], 'forms whose refused fields are said only under the form (or not at all)');
});

test('every exempt form still exists (the list only shrinks)', () => {
  const { exemptSeen } = formsWithoutFieldErrors();
  assert.equal(Object.keys(noRefusableField).filter((k) => !exemptSeen.has(k)), []);
});

test('the scan finds a form without a field error (it can fail)', () => {
  const sf = `function F() { const m = useMutation({}); return (<form aria-label="probe" onSubmit={() => m.mutate()}><input value="" /><ActionError error={m.error} /></form>); }`;
  const tmp = join(tmpdir(), `formProbe-${process.pid}.tsx`);
  writeFileSync(tmp, sf);
  try {
    assert.equal(formsWithoutFieldErrors([tmp]).missing.length, 1);
  } finally {
    rmSync(tmp);
  }
});

test.run();
