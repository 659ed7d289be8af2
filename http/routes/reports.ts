import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { dateBound, queryAudit } from './audit.ts';
import { NotFoundError, ValidationError } from '../../domain/shared/errors.ts';
import { getUser } from '../../projections/users.ts';
import type { AppDeps } from '../../application/deps.ts';
import type { ReportEntry } from '../../domain/audit/reports.ts';

const tags = ['reports'];
const MAX_ROWS = 100_000;
const DateField = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}([T ][0-9:.]+(Z|[+-]\\d{2}:?\\d{2})?)?$', description: 'YYYY-MM-DD (whole day) or ISO 8601 date-time' });

async function entriesFor(deps: AppDeps, q: { start_date: string; end_date: string; user_id?: number }): Promise<ReportEntry[]> {
  const start = dateBound(q.start_date, false)!;
  const end = dateBound(q.end_date, true)!;
  if (start > end) throw new ValidationError('start_date is after end_date.', [{ field: 'start_date', message: 'must not be after end_date' }]);
  const out: ReportEntry[] = [];
  for (let offset = 0; offset < MAX_ROWS; offset += 500) {
    const r = await queryAudit(deps, { start_date: q.start_date, end_date: q.end_date, user_id: q.user_id, include_archived: true, offset, limit: 500 });
    out.push(...(r.items as ReportEntry[]));
    if (r.items.length < 500) break;
  }
  return out.reverse(); // oldest first reads best in a report
}

function file(ctx: import('koa').Context, r: { body: Buffer | string; fileName: string; contentType: string }) {
  ctx.status = 200;
  ctx.type = r.contentType;
  ctx.set('Content-Disposition', `attachment; filename="${r.fileName}"`);
  ctx.body = r.body;
}

export const reportRoutes = [
  defineRoute({
    method: 'post', path: '/reports/activity', summary: 'Activity report over a period (CSV, one row per audit entry)', tags, permission: 'REPORT_GENERATE', raw: true,
    body: Type.Object({ start_date: DateField, end_date: DateField, format: Type.Optional(Type.Literal('csv', { description: 'csv (the only format of this report)' })) }, { additionalProperties: false }),
    responses: { 200: { description: 'the CSV file (Content-Disposition: attachment)', contentType: 'text/csv' } },
    async handler({ deps, body, ctx }) {
      const entries = await entriesFor(deps, body);
      file(ctx, await deps.reports.activityCsv(entries, { start: body.start_date, end: body.end_date }));
    },
  }),
  defineRoute({
    method: 'post', path: '/reports/user-access', summary: "A user's access report over a period (PDF)", tags, permission: 'REPORT_GENERATE', raw: true,
    body: Type.Object({ user_id: Type.Integer({ minimum: 1 }), start_date: DateField, end_date: DateField, format: Type.Optional(Type.Literal('pdf', { description: 'pdf (the only format of this report)' })) }, { additionalProperties: false }),
    responses: { 200: { description: 'the PDF file (Content-Disposition: attachment)', contentType: 'application/pdf' }, 404: { description: 'no such user' } },
    async handler({ deps, body, ctx }) {
      const user = await getUser(deps.pool, body.user_id);
      if (!user) throw new NotFoundError('User', body.user_id);
      const entries = await entriesFor(deps, body);
      file(ctx, await deps.reports.userAccessPdf({ user: { id: user.id, username: user.username, role: user.role, email: user.email }, period: { start: body.start_date, end: body.end_date }, generatedAt: deps.clock().toISOString(), entries }));
    },
  }),
];
