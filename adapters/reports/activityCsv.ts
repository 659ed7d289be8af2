// The activity report (POST /reports/activity, format csv): one RFC 4180 row per audit entry.
//
//   ACTIVITY_CSV_COLUMNS            the header row, in order (SPEC.md's audit field names)
//   activityCsv(entries, opts?)     the whole file as a string (a promise: it yields to the event
//                                   loop every CSV_YIELD_EVERY rows, so 100,000 rows do not hold
//                                   other requests for a second)
//   activityCsvChunks(entries)      the same, one line at a time, for streaming large ranges
//   activityCsvFileName(start, end) e.g. activity-2026-01-01_2026-01-31.csv
//   ACTIVITY_CSV_CONTENT_TYPE       text/csv; charset=utf-8
//
// RFC 4180: CRLF line ends, fields holding a comma, quote, CR or LF are quoted and inner quotes
// doubled. A UTF-8 byte-order mark leads the file by default because Excel otherwise reads UTF-8
// as the local code page. Text cells starting with = + - @ TAB or CR get a leading apostrophe
// (OWASP's advice against CSV/formula injection): a username or resource name such as
// `=HYPERLINK(...)` must show as text, not run in the auditor's spreadsheet. Numbers we produce
// (ids, codes, durations) are written as they are.

import type { ReportEntry } from '../../domain/audit/reports.ts';

/** One audit entry as reports see it: the audit context's ReportEntry, with looser input types. */
export type ActivityEntry = Omit<ReportEntry, 'id' | 'timestamp' | 'resource_id'> & { id: number | string; timestamp: string | Date; resource_id: string | number | null };

export const ACTIVITY_CSV_COLUMNS = [
  'id',
  'timestamp',
  'username',
  'ip_address',
  'action',
  'resource_type',
  'resource_id',
  'resource_name',
  'status',
  'error_message',
  'method',
  'endpoint',
  'response_code',
  'duration_ms',
  'request_id',
] as const satisfies ReadonlyArray<keyof ActivityEntry>;

export const ACTIVITY_CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';
const CRLF = '\r\n';
const BOM = '\uFEFF';

/** One CSV field: numbers verbatim, text neutralised against formulas and quoted when needed. */
export function csvField(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  let text = value instanceof Date ? value.toISOString() : value;
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const line = (cells: Array<string | number | Date | null | undefined>) => cells.map(csvField).join(',') + CRLF;

export function* activityCsvChunks(entries: Iterable<ActivityEntry>, opts: { bom?: boolean } = {}): Generator<string> {
  yield (opts.bom === false ? '' : BOM) + ACTIVITY_CSV_COLUMNS.join(',') + CRLF;
  for (const e of entries) yield line(ACTIVITY_CSV_COLUMNS.map((c) => e[c]));
}

/** Lines made between two turns of the event loop (a few milliseconds of work). */
export const CSV_YIELD_EVERY = 2000;

export async function activityCsv(entries: Iterable<ActivityEntry>, opts: { bom?: boolean } = {}): Promise<string> {
  const lines: string[] = [];
  for (const chunk of activityCsvChunks(entries, opts)) {
    if (lines.length > 0 && lines.length % CSV_YIELD_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    lines.push(chunk);
  }
  return lines.join('');
}

const day = (d: string | Date) => (d instanceof Date ? d.toISOString() : new Date(d).toISOString()).slice(0, 10);

/** A Content-Disposition-safe name built only from the two dates. */
export function activityCsvFileName(start: string | Date, end: string | Date): string {
  return `activity-${day(start)}_${day(end)}.csv`;
}
