// The web console's browser tests: playwright-core driving the machine's own Chromium (Debian's
// package; never a downloaded browser), with the flags this closed network needs (no background
// connections to Google's hosts), a fresh profile per launch, axe-core run inside each page, and
// screenshots for the README written only when LNM_UPDATE_SCREENSHOTS=1.
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onGlobalTeardown } from './globalTeardown.ts';

const require = createRequire(import.meta.url);

export const chromiumPath = process.env.LNM_CHROMIUM || '/usr/bin/chromium';

/** Why the browser tests cannot run here, or undefined. */
export function chromiumMissing(): string | undefined {
  return existsSync(chromiumPath) ? undefined : `no Chromium at ${chromiumPath}`;
}

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

/** A browser with a fresh, empty profile (its own --user-data-dir), closed and removed at teardown. */
export async function launchBrowser(): Promise<BrowserContext> {
  const profile = mkdtempSync(path.join(tmpdir(), 'lnm-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 860 },
    timeout: 60_000,
  });
  context.setDefaultTimeout(30_000);
  onGlobalTeardown(async () => {
    await context.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  });
  return context;
}

// Page functions run in the browser; the project's tsconfig has no DOM library.
declare const window: unknown;
declare const document: unknown;

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * axe-core over the page as it is now; the serious and critical violations (an empty list when
 * the page passes). axe is evaluated through the DevTools protocol, so the console's CSP
 * (script-src 'self') stays in force for the page's own code.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  const result = (await page.evaluate(async () => {
    const axe = (window as { axe: { run(ctx: unknown, opts: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  })) as { violations: AxeViolation[] };
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

export function describeViolations(vs: AxeViolation[]): string {
  return vs.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`).join('\n');
}

/** docs/screenshots/<name>.png, only when LNM_UPDATE_SCREENSHOTS=1 (CI must not rewrite tracked files). */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.LNM_UPDATE_SCREENSHOTS !== '1') return;
  const dir = path.resolve('docs', 'screenshots');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: false });
}

/**
 * Fills a code editor (CodeMirror, the console's YAML editor) and waits until it shows the text.
 * CodeMirror reads a change of its DOM a moment after it happens and throws away one still unread
 * when an update of its own comes first (EditorView.update: observer.clear(); its linter's pass
 * 300 ms after it opens, a focus change): the DOM is then drawn again from the old text. A person
 * typing never meets that window; a program filling the field at once can, on a loaded machine
 * (seen in CI: the form's sample descriptor still there after fill). So the fill is repeated,
 * at most three times, until the editor holds the text (compared without whitespace: CodeMirror
 * draws each line as an element of its own).
 */
export async function fillCodeEditor(editor: Locator, text: string): Promise<void> {
  const flat = (s: string | null) => (s ?? '').replace(/\s+/g, '');
  for (let attempt = 1; ; attempt++) {
    await editor.fill(text);
    const until = Date.now() + 2000;
    while (Date.now() < until) {
      if (flat(await editor.textContent()) === flat(text)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (attempt === 3) throw new Error(`the code editor did not take the text after 3 fills; it shows: ${(await editor.textContent())?.slice(0, 200)}`);
  }
}
