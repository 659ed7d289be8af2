// The user-access report (POST /reports/user-access, format pdf), drawn with pdfkit.
//
//   userAccessPdf(input) -> Promise<Buffer>   title, period, user, summary, table of actions
//   userAccessPdfFileName(username, start, end), USER_ACCESS_PDF_CONTENT_TYPE
//
// A4 portrait; the table repeats its header on every page and each page carries "Page i of n".
// Cells are cut with an ellipsis rather than wrapped, so a row is always one line and page
// breaks stay predictable: the page count is known before the first row is drawn, so each page
// gets its footer and is written out (compressed) as soon as it is full, instead of all pages
// being kept and written at the end.
//
// Drawing is synchronous work of about half a millisecond a row (the report may hold 100,000),
// so the table yields to the event loop every YIELD_EVERY rows (issue 36 item 9): other requests
// are served between slices of at most that many rows, where before a report of 8,000 rows held
// them for 3.5 s. The built-in Helvetica covers only the Windows-1252 repertoire, so
// other characters print as '?' instead of as wrong glyphs (no font file needs shipping).
import PDFDocument from 'pdfkit';
import type { ActivityEntry } from './activityCsv.ts';

export type UserAccessEntry = Pick<ActivityEntry, 'timestamp' | 'action' | 'resource_type' | 'resource_id' | 'resource_name' | 'status' | 'ip_address'>;

export interface UserAccessReportInput {
  user: { id: number | string; username: string; role: string; email?: string | null };
  period: { start: string | Date; end: string | Date };
  /** When the report was made; passed in so the document states it and tests are repeatable. */
  generatedAt: string | Date;
  entries: readonly UserAccessEntry[];
  /** Shown under the title, e.g. the instance name. */
  serviceName?: string;
}

export const USER_ACCESS_PDF_CONTENT_TYPE = 'application/pdf';
export const USER_ACCESS_REPORT_TITLE = 'User access report';

const MARGIN = 50;
/** Rows drawn between two turns of the event loop (about 20-30 ms of work here). */
export const YIELD_EVERY = 50;
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const ROW = 14;
const FONT_SIZE = 8.5;
const COLUMNS = [
  { title: 'Timestamp (UTC)', width: 105 },
  { title: 'Action', width: 115 },
  { title: 'Resource', width: 145 },
  { title: 'Status', width: 50 },
  { title: 'IP address', width: 80 },
] as const;
const TABLE_WIDTH = COLUMNS.reduce((s, c) => s + c.width, 0);
const WIN_ANSI_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

/** Text the standard fonts can show: controls become spaces, unsupported characters '?'. */
export function pdfSafeText(s: string): string {
  return [...s]
    .map((ch) => {
      const c = ch.codePointAt(0)!;
      if (c < 0x20 || (c >= 0x7f && c < 0xa0)) return ' ';
      return c <= 0xff || WIN_ANSI_EXTRA.has(ch) ? ch : '?';
    })
    .join('');
}

const iso = (d: string | Date) => (d instanceof Date ? d : new Date(d)).toISOString();
const utc = (d: string | Date) => iso(d).slice(0, 19).replace('T', ' ');

function resourceLabel(e: UserAccessEntry): string {
  const name = e.resource_name ?? (e.resource_id == null ? '' : `#${e.resource_id}`);
  return [e.resource_type, name].filter(Boolean).join(' ') || '-';
}

function countBy<T>(items: readonly T[], key: (t: T) => string): Array<[string, number]> {
  const m = new Map<string, number>();
  for (const i of items) m.set(key(i), (m.get(key(i)) ?? 0) + 1);
  return [...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

export async function userAccessPdf(input: UserAccessReportInput): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: {
      Title: `${USER_ACCESS_REPORT_TITLE}: ${pdfSafeText(input.user.username)}`,
      Subject: `Actions from ${iso(input.period.start)} to ${iso(input.period.end)}`,
      Producer: 'ledger-network-manager',
      CreationDate: new Date(iso(input.generatedAt)),
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const left = MARGIN;
  const bottom = () => doc.page.height - MARGIN;
  const text = (s: string) => pdfSafeText(s);

  // Title and header block
  doc.font('Helvetica-Bold').fontSize(20).fillColor('#111111').text(USER_ACCESS_REPORT_TITLE, left, MARGIN);
  if (input.serviceName) doc.font('Helvetica').fontSize(10).fillColor('#555555').text(text(input.serviceName));
  doc.moveDown(0.6);
  const field = (label: string, value: string) =>
    doc.font('Helvetica-Bold').fontSize(10).fillColor('#111111').text(`${label}: `, { continued: true }).font('Helvetica').text(text(value));
  field('Period', `${utc(input.period.start)} UTC to ${utc(input.period.end)} UTC`);
  field('User', `${input.user.username} (id ${input.user.id})${input.user.email ? `, ${input.user.email}` : ''}`);
  field('Role', input.user.role);
  field('Generated', `${utc(input.generatedAt)} UTC`);

  // Summary
  const entries = input.entries;
  doc.moveDown(0.8).font('Helvetica-Bold').fontSize(13).text('Summary');
  doc.moveDown(0.2).font('Helvetica').fontSize(10);
  const byStatus = countBy(entries, (e) => e.status);
  doc.text(`${entries.length} recorded action${entries.length === 1 ? '' : 's'}${byStatus.length ? `: ${byStatus.map(([s, n]) => `${s} ${n}`).join(', ')}` : ''}.`);
  const byAction = countBy(entries, (e) => e.action);
  const shown = byAction.slice(0, 12);
  if (shown.length) {
    doc.text(`By action: ${shown.map(([a, n]) => `${text(a)} ${n}`).join(', ')}${byAction.length > shown.length ? `, and ${byAction.length - shown.length} more` : ''}.`, { width: TABLE_WIDTH });
  }
  const ips = countBy(entries, (e) => e.ip_address ?? 'unknown');
  if (ips.length) doc.text(`From ${ips.length} address${ips.length === 1 ? '' : 'es'}: ${ips.slice(0, 6).map(([ip, n]) => `${text(ip)} (${n})`).join(', ')}${ips.length > 6 ? ', ...' : ''}.`, { width: TABLE_WIDTH });

  // Table of actions
  doc.moveDown(0.8).font('Helvetica-Bold').fontSize(13).text('Actions');
  doc.moveDown(0.3);
  let y = doc.y;
  const cells = (values: string[], bold: boolean, color: (i: number) => string) => {
    let x = left;
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(FONT_SIZE);
    values.forEach((v, i) => {
      doc.fillColor(color(i)).text(text(v), x + 3, y + 3.5, { width: COLUMNS[i].width - 6, height: ROW, lineBreak: false, ellipsis: true });
      x += COLUMNS[i].width;
    });
  };
  const header = () => {
    doc.rect(left, y, TABLE_WIDTH, ROW).fill('#2f3b4c');
    cells(COLUMNS.map((c) => c.title), true, () => '#ffffff');
    y += ROW;
  };
  header();
  if (!entries.length) {
    doc.font('Helvetica-Oblique').fontSize(FONT_SIZE).fillColor('#555555').text('No recorded actions in this period.', left + 3, y + 4);
  }
  // The page count, by the same rule the loop below breaks pages with.
  let pages = 1;
  for (let n = 0, yy = y; n < entries.length; n++, yy += ROW) {
    if (yy + ROW > bottom()) {
      pages++;
      yy = MARGIN + ROW;
    }
  }
  // Footer; the bottom margin is lifted so the footer cannot spill onto a new page.
  let page = 1;
  const footer = () => {
    const keep = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.font('Helvetica').fontSize(8).fillColor('#777777')
      .text(`${USER_ACCESS_REPORT_TITLE} - ${text(input.user.username)}`, left, doc.page.height - MARGIN + 15, { lineBreak: false })
      .text(`Page ${page} of ${pages}`, left, doc.page.height - MARGIN + 15, { width: TABLE_WIDTH, align: 'right', lineBreak: false });
    doc.page.margins.bottom = keep;
  };
  for (let n = 0; n < entries.length; n++) {
    if (n > 0 && n % YIELD_EVERY === 0) await turn();
    const e = entries[n];
    if (y + ROW > bottom()) {
      footer();
      doc.addPage();
      page++;
      y = MARGIN;
      header();
    }
    if (n % 2 === 1) doc.rect(left, y, TABLE_WIDTH, ROW).fill('#eef1f5');
    const statusColor = e.status === 'success' ? '#1d6b2f' : '#a3161b';
    cells([utc(e.timestamp), e.action, resourceLabel(e), e.status, e.ip_address ?? '-'], false, (i) => (i === 3 ? statusColor : '#111111'));
    y += ROW;
  }
  footer();
  doc.end();
  return done;
}

export function userAccessPdfFileName(username: string, start: string | Date, end: string | Date): string {
  const safe = username.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64);
  return `user-access-${safe}-${iso(start).slice(0, 10)}_${iso(end).slice(0, 10)}.pdf`;
}
