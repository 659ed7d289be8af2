// The console's backups page in Chromium against the real server, restic and an S3 server
// (s3rver over TLS with its own CA): a target added on the page, a backup started with
// "Back up now" that completes on screen with its size, confirmed by the API; a schedule made over
// the API shown with its cron expression in words and its next three runs (as the scheduler computes them).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { ADMIN, adminAuth, call, type TestServer } from '../../helpers/server.ts';
import { startS3Server, type S3Server } from '../../helpers/s3Server.ts';
import { nextCronRun } from '../../../adapters/backups/cronSchedule.ts';
import { requires } from '../../helpers/requirements.ts';
import { chromiumMissing, axeViolations, describeViolations } from '../../helpers/browser.ts';
import { startConsoleSession, type ConsoleSession } from '../../helpers/consoleSession.ts';

const t = requires(suite('console: backups page (restic, s3rver, Chromium)'), 'chromium', chromiumMissing());
let server: TestServer;
let s3: S3Server;
let ui: ConsoleSession;
let page: Page;

t.before(async () => {
  s3 = await startS3Server(['backups']);
  ui = await startConsoleSession({ server: { embedded: true, env: { KEY_ENCRYPTION_KEY: 'console-backup-key-encryption-key-0123456789', LNM_BACKUP_CHECK_SECONDS: '1' } } });
  ({ server, page } = ui);
});

t.after(async () => {
  await ui?.close();
  await s3?.stop();
  s3?.remove();
});

t('a backup target added on the page, and a backup started there that completes on screen', async () => {
  await ui.signIn(ADMIN, { path: '/backups', heading: 'Backups', level: 1 });
  await page.getByRole('button', { name: 'Add backup target' }).click();
  await page.getByLabel('Name', { exact: true }).fill('console-s3');
  await page.getByLabel('Endpoint (empty: AWS S3)').fill(s3.endpoint);
  await page.getByLabel('Bucket', { exact: true }).fill('backups');
  await page.getByLabel('Path in the bucket (optional)').fill('console');
  await page.getByLabel('Access key id').fill(s3.accessKeyId);
  await page.getByLabel('Secret access key').fill(s3.secretAccessKey);
  await page.getByLabel('Repository password (optional; generated when empty)').fill('console-repository-password');
  await page.getByLabel(/CA certificate/).fill(s3.caPem);
  let v = await axeViolations(page);
  assert.is(v.length, 0, describeViolations(v));
  await page.getByRole('button', { name: 'Add target', exact: true }).click();
  await page.getByRole('button', { name: 'Back up now to console-s3' }).click({ timeout: 60_000 });
  const table = page.getByRole('table', { name: 'Backups, newest first' });
  await table.getByText('Completed', { exact: true }).waitFor({ timeout: 120_000 });
  const list = await call(server.api, 'GET', '/backups', { headers: adminAuth() });
  assert.is(list.json.items[0].status, 'COMPLETED', JSON.stringify(list.json.items[0]));
  assert.ok(list.json.items[0].total_size > 0);
  assert.match((await table.textContent()) ?? '', /\d+(\.\d)? (B|KiB|MiB|GiB)/, 'the size is shown');
  v = await axeViolations(page);
  assert.is(v.length, 0, describeViolations(v));
});

t('a schedule is shown with its cron expression in words and its next three runs; one is added on the page', async () => {
  const targets = await call(server.api, 'GET', '/backups/targets', { headers: adminAuth() });
  const targetId = targets.json.items[0].id;
  const made = await call(server.api, 'POST', '/backups/schedules', { headers: adminAuth(), body: { name: 'nightly', cron_expression: '0 30 2 * * *', target_id: targetId } });
  assert.is(made.status, 201, made.text);
  await page.reload();
  const table = page.getByRole('table', { name: 'Backup schedules' });
  const row = table.getByRole('row', { name: /nightly/ });
  await row.getByText('At 02:30 (UTC)', { exact: true }).waitFor({ timeout: 30_000 });
  const shown = await row.locator('time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime')));
  let from = new Date();
  const expected: string[] = [];
  for (let i = 0; i < 3; i++) {
    from = nextCronRun('0 30 2 * * *', from);
    expected.push(from.toISOString());
  }
  assert.equal(shown, expected);
  // A schedule added on the page: the preview reads the expression as it is typed.
  const form = page.getByRole('form', { name: 'Add a schedule' });
  await form.getByLabel('Schedule name').fill('hourly');
  await form.getByLabel(/^Cron expression/).fill('61 * * * * *');
  await form.getByText('Not a six-field cron expression the scheduler can read.').waitFor();
  await form.getByLabel(/^Cron expression/).fill('0 0 * * * *');
  await form.getByText(/^Every hour \(UTC\); next: /).waitFor();
  await form.getByLabel('Keep the last N backups (optional)').fill('5');
  await form.getByRole('button', { name: 'Add schedule' }).click();
  await table.getByRole('row', { name: /hourly/ }).getByText('Every hour (UTC)', { exact: true }).waitFor({ timeout: 30_000 });
  const listed = (await call(server.api, 'GET', '/backups/schedules', { headers: adminAuth() })).json.items as Array<{ name: string; cron_expression: string; target_id: number }>;
  const hourly = listed.find((x) => x.name === 'hourly');
  assert.ok(hourly, JSON.stringify(listed));
  assert.is(hourly!.cron_expression, '0 0 * * * *');
  assert.is(hourly!.target_id, targetId);
  const v = await axeViolations(page);
  assert.is(v.length, 0, describeViolations(v));
});

t.run();
