import { test } from 'uvu';
import * as assert from 'uvu/assert';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readPdf } from '../../helpers/documents.ts';
import {
  USER_ACCESS_REPORT_TITLE,
  pdfSafeText,
  userAccessPdf,
  userAccessPdfFileName,
  YIELD_EVERY,
  type UserAccessEntry,
  type UserAccessReportInput,
} from '../../../adapters/reports/userAccessPdf.ts';

/** Reads the PDF with Mozilla's PDF.js, as a viewer would: text per page, and the document title. */

const ACTIONS = ['NETWORK_CREATE', 'NODE_UPDATE', 'SIGN', 'READ', 'API_KEY_REVOKE'];
const STATUSES = ['success', 'success', 'failed', 'denied'];
const entries = (n: number): UserAccessEntry[] =>
  Array.from({ length: n }, (_, i) => ({
    timestamp: new Date(Date.parse('2026-03-01T00:00:00Z') + i * 3_600_000).toISOString(),
    action: ACTIONS[i % ACTIONS.length],
    resource_type: 'node',
    resource_id: i,
    resource_name: `node-${String(i).padStart(4, '0')}`,
    status: STATUSES[i % STATUSES.length],
    ip_address: i % 2 ? '10.0.0.1' : '2001:db8::7',
  }));

const input = (over: Partial<UserAccessReportInput> = {}): UserAccessReportInput => ({
  user: { id: 3, username: 'alice', role: 'OPERATOR' },
  period: { start: '2026-03-01T00:00:00Z', end: '2026-03-31T23:59:59Z' },
  generatedAt: '2026-04-01T08:00:00Z',
  entries: entries(8),
  ...over,
});

test('the report is a PDF that PDF.js opens, with title, period, user, role, summary and actions', async () => {
  const pdf = await userAccessPdf(input());
  assert.is(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
  assert.ok(pdf.subarray(-8).toString('latin1').includes('%%EOF'));
  const { pages, title } = await readPdf(pdf);
  assert.is(pages.length, 1);
  const text = pages[0];
  assert.ok(text.startsWith(USER_ACCESS_REPORT_TITLE), 'title first');
  assert.is(title, 'User access report: alice');
  assert.match(text, '2026-03-01 00:00:00 UTC to 2026-03-31 23:59:59 UTC');
  assert.match(text, 'alice (id 3)');
  assert.match(text, 'OPERATOR');
  assert.match(text, '8 recorded actions: success 4, denied 2, failed 2.');
  assert.match(text, 'By action: NETWORK_CREATE 2, NODE_UPDATE 2, SIGN 2, API_KEY_REVOKE 1, READ 1.');
  for (const h of ['Timestamp (UTC)', 'Action', 'Resource', 'Status', 'IP address']) assert.match(text, h);
  // one table row: timestamp, action, resource, status, address
  assert.match(text, '2026-03-01 02:00:00\nSIGN\nnode node-0002\nfailed\n2001:db8::7');
  assert.match(text, 'Page 1 of 1');
});

test('a long table breaks across pages, repeats its header and loses no row', async () => {
  const many = entries(130);
  const { pages } = await readPdf(await userAccessPdf(input({ entries: many })));
  assert.ok(pages.length >= 3, `${pages.length} pages`);
  pages.forEach((p, i) => {
    assert.match(p, 'Timestamp (UTC)\nAction\nResource\nStatus\nIP address', `header on page ${i + 1}`);
    assert.match(p, `Page ${i + 1} of ${pages.length}`);
  });
  const all = pages.join('\n');
  for (const e of many) {
    assert.is(all.split(`node ${e.resource_name}\n`).length - 1, 1, `${e.resource_name} appears once`);
  }
});

test('a large report leaves the event loop turning while it is drawn: a concurrent request is answered meanwhile (issue 36 item 9)', async () => {
  // Counted, not timed: event-loop turns (setImmediate) and answers of a loopback HTTP server
  // during the generation. Drawn in one go, as before, a report gives about none of either.
  const rows = 1200;
  const health = http.createServer((_q, r) => r.end('ok'));
  await new Promise<void>((r) => health.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(health.address() as AddressInfo).port}/health`;
  const agent = new http.Agent({ keepAlive: true });
  let running = true;
  let turns = 0;
  let answered = 0;
  const spin = () => {
    if (!running) return;
    turns++;
    setImmediate(spin);
  };
  const ask = () => {
    if (!running) return;
    http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => {
        if (running) answered++;
        ask();
      });
    }).on('error', () => {});
  };
  try {
    // The client's socket is connected first, so answers need only turns of the loop.
    await new Promise<void>((r) => http.get(url, { agent }, (res) => res.resume().on('end', () => r())));
    setImmediate(spin);
    ask();
    const pdf = await userAccessPdf(input({ entries: entries(rows) }));
    running = false;
    assert.ok(turns >= rows / YIELD_EVERY / 2, `${turns} event-loop turns while ${rows} rows were drawn`);
    assert.ok(answered >= 3, `${answered} requests answered while ${rows} rows were drawn`);
    // And the document is whole: every page numbered out of the right total, the last row there.
    const { pages } = await readPdf(pdf);
    assert.ok(pages.length > 20, `${pages.length} pages`);
    assert.match(pages[pages.length - 1], `Page ${pages.length} of ${pages.length}`);
    assert.match(pages[pages.length - 1], `node node-${String(rows - 1).padStart(4, '0')}`);
  } finally {
    running = false;
    agent.destroy();
    await new Promise<void>((r) => health.close(() => r()));
  }
});

test('a period without actions says so', async () => {
  const { pages } = await readPdf(await userAccessPdf(input({ entries: [] })));
  assert.match(pages[0], '0 recorded actions.');
  assert.match(pages[0], 'No recorded actions in this period.');
});

test('long cells are cut with an ellipsis instead of running into the next column', async () => {
  const long = { ...entries(1)[0], resource_name: 'an-extremely-long-resource-name-that-cannot-fit-in-the-column' };
  const { pages } = await readPdf(await userAccessPdf(input({ entries: [long] })));
  assert.not.match(pages[0], 'cannot-fit-in-the-column');
  assert.match(pages[0], /node an-extremely-long-[a-z-]*\u2026/);
});

test('characters the built-in font lacks print as ? and control characters as spaces', async () => {
  assert.is(pdfSafeText('caf\u00e9 \u20ac \u2019 \u4e2d\u6587\tx\u0007'), 'caf\u00e9 \u20ac \u2019 ?? x ');
  const { pages } = await readPdf(await userAccessPdf(input({ user: { id: 9, username: 'j\u00fcrgen\u4e2d', role: 'VIEWER' } })));
  assert.match(pages[0], 'j\u00fcrgen? (id 9)');
});

test('the file name carries the username (made safe) and the period', () => {
  assert.is(userAccessPdfFileName('alice', '2026-03-01T00:00:00Z', '2026-03-31T23:59:59Z'), 'user-access-alice-2026-03-01_2026-03-31.pdf');
  assert.is(userAccessPdfFileName('a/"b c', new Date('2026-03-01T00:00:00Z'), '2026-03-02'), 'user-access-a__b_c-2026-03-01_2026-03-02.pdf');
});

test.run();
