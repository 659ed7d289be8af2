// The console's audit and users pages in Chromium against the real server: entries filtered by
// a user picked by name and by status, paged by the server (next page and a page jumped to by
// number), an entry's detail; the user-access report downloaded as a PDF; an API key made on the
// page with an expiry and a scope, its secret shown once, working within its scope against the
// API, gone after a reload, and refused once revoked on the page. axe-core checks every page.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { ADMIN, adminAuth, basic, call, type TestServer } from '../../helpers/server.ts';
import { requires } from '../../helpers/requirements.ts';
import { chromiumMissing } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';

const it = requires(test, 'chromium', chromiumMissing());
const AUDITED = { username: 'audited-user', password: 'audited-user-password-1' };

let s: TestServer;
let ui: ConsoleSession;
let page: Page;
let auditedId = 0;

const accessible = (what: string) => ui.accessible(what);

/** The table shows the previous page while the next loads (dimmed, class refreshing): wait for the new one. */
const settled = () => page.locator('table.refreshing').waitFor({ state: 'detached' });
const nav = (name: string) => ui.nav(name);
const api = (method: string, p: string, body?: unknown, headers: Record<string, string> = adminAuth()) => call(s.api, method, p, { headers, ...(body === undefined ? {} : { body }) });

it.before(async () => {
  ui = await startConsoleSession();
  ({ server: s, page } = ui);
  const r = await api('POST', '/users', { ...AUDITED, role: 'OPERATOR' });
  assert.is(r.status, 201, r.text);
  auditedId = r.json.id;
  // Entries of that user (some refused), and enough of the admin's for three pages of 50.
  for (let i = 0; i < 3; i++) assert.is((await api('POST', '/users', { username: `nope-${i}`, password: 'nope-password-123', role: 'VIEWER' }, { authorization: basic(AUDITED.username, AUDITED.password) })).status, 403);
  assert.is((await api('POST', '/api-keys', { name: 'operator-key', expiresInDays: 1 }, { authorization: basic(AUDITED.username, AUDITED.password) })).status, 201);
  for (let i = 0; i < 110; i++) assert.is((await api('POST', '/api-keys', { name: `bulk-${i}`, expiresInDays: 1 })).status, 201);
});

it.after(async () => {
  await ui?.close();
});

it('audit entries filtered by a user picked by name and by status, paged by the server, with a page jumped to', async () => {
  await ui.signIn(ADMIN, { path: '/audit', heading: 'Audit' });
  const table = page.getByRole('table', { name: 'Audit entries, newest first' });
  await table.waitFor();
  const total = (await api('GET', '/audit-logs?limit=1')).json.total as number;
  assert.ok(total > 100, `total ${total}`);
  const pages = Math.ceil(total / 50);
  await page.getByText(`Page 1 of ${pages} (`, { exact: false }).waitFor();
  const firstIds = await table.getByRole('button', { name: /Show audit entry/ }).allTextContents();
  assert.is(firstIds.length, 50);
  await page.getByRole('button', { name: 'Next', exact: true }).click();
  await page.getByText(`Page 2 of ${pages} (`, { exact: false }).waitFor();
  await settled();
  const secondIds = await table.getByRole('button', { name: /Show audit entry/ }).allTextContents();
  assert.ok(Number(secondIds[0]) < Number(firstIds[49]), 'page 2 continues below page 1');
  const jump = page.getByRole('form', { name: 'Go to a page' });
  await jump.getByLabel('Page').fill(String(pages));
  await jump.getByRole('button', { name: 'Go' }).click();
  await page.getByText(`Page ${pages} of ${pages} (`, { exact: false }).waitFor();
  await settled();
  const lastPage = (await api('GET', `/audit-logs?limit=50&offset=${(pages - 1) * 50}`)).json.items.map((e: { id: number }) => String(e.id));
  assert.equal(await table.getByRole('button', { name: /Show audit entry/ }).allTextContents(), lastPage);
  await accessible('audit, last page');

  const filters = page.getByRole('search', { name: 'Filter audit entries' });
  await filters.getByLabel(/^User/).selectOption({ label: `${AUDITED.username} (OPERATOR)` });
  await filters.getByRole('button', { name: 'Apply filters' }).click();
  await page.waitForURL(/user_id=/);
  await page.getByText(/^\d+ in all$/).waitFor();
  await settled();
  const users = await table.locator('tbody tr td:nth-child(3)').allTextContents();
  assert.ok(users.length >= 4, users.join(','));
  assert.ok(users.every((u) => u === AUDITED.username), users.join(','));
  const mine = (await api('GET', `/audit-logs?user_id=${auditedId}&limit=500`)).json;
  assert.is(users.length, mine.total);

  await filters.getByLabel(/^Status/).selectOption('denied');
  await filters.getByRole('button', { name: 'Apply filters' }).click();
  await page.waitForURL(/status=denied/);
  const denied = (await api('GET', `/audit-logs?user_id=${auditedId}&status=denied&limit=500`)).json;
  assert.ok(denied.total >= 3, JSON.stringify(denied.total));
  await page.getByText(`${denied.total} in all`).waitFor();
  await settled();
  const statuses = await table.locator('tbody tr td:nth-child(6)').allTextContents();
  assert.ok(statuses.every((x) => x === 'denied'), statuses.join(','));
  await table.getByRole('button', { name: /Show audit entry/ }).first().click();
  await page.getByRole('heading', { name: /^Audit entry \d+$/ }).waitFor();
  await page.getByText('POST /api/v1/users 403', { exact: false }).waitFor();
  await accessible('audit filtered, entry shown');
});

it("a user's access report downloads as a PDF from the page", async () => {
  const reports = page.getByRole('form', { name: 'Reports' });
  await reports.getByLabel('User (access report)').selectOption({ label: `${AUDITED.username} (OPERATOR)` });
  const [pdf] = await Promise.all([page.waitForEvent('download'), reports.getByRole('button', { name: 'Download user access (PDF)' }).click()]);
  const bytes = readFileSync((await pdf.path())!);
  assert.is(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
  assert.match(pdf.suggestedFilename(), /\.pdf$/);
});

it('an API key made on the page is shown once, works within its scope, and is refused once revoked', async () => {
  await nav('Users and API keys').click();
  const form = page.getByRole('form', { name: 'New API key' });
  await form.getByLabel('Key name').fill('console-made');
  await form.getByLabel('Expires after (days)').fill('7');
  await form.getByLabel(/^Scopes/).selectOption(['NODE_READ']);
  await accessible('api key form');
  await form.getByRole('button', { name: 'Create API key' }).click();
  const secret = ((await page.getByTestId('api-key-secret').textContent()) ?? '').trim();
  assert.match(secret, /^lnm_/);
  assert.is((await api('GET', '/nodes', undefined, { 'x-api-key': secret })).status, 200);
  assert.is((await api('GET', '/users', undefined, { 'x-api-key': secret })).status, 403, 'outside its scope');
  const row = page.getByRole('table', { name: 'API keys' }).getByRole('row', { name: /console-made/ });
  await row.getByText('NODE_READ', { exact: true }).waitFor();
  await page.reload();
  await page.getByRole('table', { name: 'API keys' }).getByRole('row', { name: /console-made/ }).waitFor();
  assert.is(await page.getByTestId('api-key-secret').count(), 0, 'not shown again');
  assert.not.ok((await page.content()).includes(secret));
  await page.getByRole('button', { name: 'Revoke API key console-made' }).click();
  await page.getByRole('table', { name: 'API keys' }).getByRole('row', { name: /console-made/ }).getByText('revoked').waitFor();
  assert.is((await api('GET', '/nodes', undefined, { 'x-api-key': secret })).status, 401);
  await accessible('users and api keys');
});

it('verify with "To entry" empty checks up to the newest entry; a checkpoint signed on the page is listed and verify holds the chain to it', async () => {
  await ui.signIn(ADMIN);
  await nav('Audit').click();
  await page.getByRole('heading', { name: 'Audit', exact: true }).waitFor();
  const checkpoints = page.getByTestId('audit-checkpoints');
  await checkpoints.getByRole('heading', { name: 'Checkpoints' }).waitFor();
  // The list is read once the page's POST has answered (a fresh-clone CI run read it before: no item).
  const signing = page.waitForResponse((r) => r.url().endsWith('/audit-logs/checkpoints') && r.request().method() === 'POST');
  await checkpoints.getByRole('button', { name: 'Sign a checkpoint now' }).click();
  assert.ok((await signing).ok(), 'the checkpoint was signed');
  const signed = (await api('GET', '/audit-logs/checkpoints')).json.items;
  await checkpoints.getByText(`entry ${signed[0].height}:`, { exact: false }).waitFor();
  // The page sends no end_id when the field is empty (the API's default, the head).
  const sent = page.waitForRequest((r) => r.url().endsWith('/audit-logs/verify'));
  await page.getByRole('button', { name: 'Verify', exact: true }).click();
  assert.equal((await sent).postDataJSON(), { start_id: 1 });
  await page.getByTestId('verify-result').waitFor();
  const verdict = (await page.getByTestId('verify-result').textContent()) ?? '';
  assert.match(verdict, /^Valid/);
  const newest = (await api('GET', '/audit-logs/checkpoints?limit=1')).json.items[0];
  assert.ok(newest.height >= signed[0].height && verdict.includes(`checkpoint ${newest.height}`), verdict);
  await accessible('audit checkpoints');
});

it.run();
