// Backup schedules: a cron expression with six fields (seconds first), a target, what to
// include (everything, or chosen nodes) and retention applied after each successful run.
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { runCommand } from '../../application/commands.ts';
import { IdParam } from './schemas.ts';
import { Page, PageQuery, page, pageRequest } from '../pagination.ts';
import { backupScheduleStream, backupSchedules, type Retention } from '../../domain/backups/backupSchedules.ts';
import { ConflictError, NotFoundError, ValidationError, type FieldIssue } from '../../domain/shared/errors.ts';
import { getBackupSchedule, getBackupTarget, listBackupSchedules } from '../../projections/backups.ts';
import { getNode } from '../../projections/nodes.ts';
import { backupServices } from './backupTargets.ts';

const tags = ['backups'];
const Nullable = <T extends import('@sinclair/typebox').TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Keep = Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 10000 })));

const ScheduleSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Nullable(Type.String()),
  cron_expression: Type.String(),
  target_id: Type.Integer(),
  node_ids: Nullable(Type.Array(Type.Integer(), { description: 'null: everything' })),
  retention: Type.Object({ keepLast: Nullable(Type.Integer()), keepDaily: Nullable(Type.Integer()), keepWeekly: Nullable(Type.Integer()), keepMonthly: Nullable(Type.Integer()) }),
  enabled: Type.Boolean(),
  last_backup_id: Nullable(Type.Integer()),
  last_run_at: Nullable(Type.String({ format: 'date-time' })),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

const toggle = (action: 'enable' | 'disable') => defineRoute({
  method: 'put', path: `/backups/schedules/:id/${action}`, summary: `${action === 'enable' ? 'Enable' : 'Disable'} a backup schedule`, tags, permission: 'BACKUP_SCHEDULE_MANAGE', params: IdParam,
  responses: { 200: { description: 'the schedule', schema: ScheduleSchema }, 404: { description: 'no such schedule' } },
  async handler(input) {
    const { deps, params } = input;
    await runCommand(input, backupScheduleStream(params.id), backupSchedules, { type: action === 'enable' ? 'EnableBackupSchedule' : 'DisableBackupSchedule', scheduleId: params.id, at: deps.clock().toISOString() });
    return { body: (await getBackupSchedule(deps.pool, params.id))! };
  },
});

export const backupScheduleRoutes = [
  defineRoute({
    method: 'get', path: '/backups/schedules', summary: 'List backup schedules', tags, permission: 'BACKUP_READ',
    query: Type.Object(PageQuery, { additionalProperties: false }),
    responses: { 200: { description: 'schedules', schema: Page(ScheduleSchema) } },
    async handler({ deps, query }) {
      const { limit, offset } = pageRequest(deps.config, query);
      const all = await listBackupSchedules(deps.pool);
      return { body: page(all.slice(offset, offset + limit), all.length, limit, offset) };
    },
  }),
  defineRoute({
    method: 'post', path: '/backups/schedules', summary: 'Create a backup schedule', tags, permission: 'BACKUP_SCHEDULE_MANAGE',
    description: 'cron_expression (cronExpression): six fields, seconds first, evaluated in UTC, e.g. "0 0 2 * * *" for 02:00 every day. node_ids (nodeIds): the nodes whose directories go in; left out or null for everything (the database part is always in). retention {keep_last, keep_daily, keep_weekly, keep_monthly} (camelCase too) is applied to this schedule\'s snapshots after each successful backup (restic forget --prune). A run whose time passed while the service was down runs once at start-up; runs of one schedule never overlap.',
    body: Type.Object({
      name: Type.String({ minLength: 1, maxLength: 100 }),
      description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
      cron_expression: Type.Optional(Type.String({ maxLength: 200 })),
      cronExpression: Type.Optional(Type.String({ maxLength: 200 })),
      target_id: Type.Optional(Type.Integer({ minimum: 1 })),
      targetId: Type.Optional(Type.Integer({ minimum: 1 })),
      node_ids: Type.Optional(Nullable(Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 500 }))),
      nodeIds: Type.Optional(Nullable(Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 500 }))),
      retention: Type.Optional(Type.Object({ keep_last: Keep, keep_daily: Keep, keep_weekly: Keep, keep_monthly: Keep, keepLast: Keep, keepDaily: Keep, keepWeekly: Keep, keepMonthly: Keep }, { additionalProperties: false })),
      enabled: Type.Optional(Type.Boolean()),
    }, { additionalProperties: false }),
    responses: { 201: { description: 'created', schema: ScheduleSchema }, 400: { description: 'invalid cron expression (says why), unknown target or node' }, 409: { description: 'name taken' }, 503: { description: 'restic is not installed' } },
    async handler(input) {
      const { deps, body } = input;
      const services = await backupServices(deps);
      const issues: FieldIssue[] = [];
      const cron = (body.cron_expression ?? body.cronExpression ?? '').trim();
      const cronField = body.cronExpression !== undefined && body.cron_expression === undefined ? 'cronExpression' : 'cron_expression';
      const cronProblem = cron ? services.cronIssue(cron) : 'is required';
      if (cronProblem) issues.push({ field: cronField, message: cronProblem });
      const targetId = body.target_id ?? body.targetId;
      if (targetId === undefined) issues.push({ field: 'target_id', message: 'is required' });
      else if (!(await getBackupTarget(deps.pool, targetId))) issues.push({ field: body.target_id !== undefined ? 'target_id' : 'targetId', message: `no backup target ${targetId}` });
      const nodeIds = body.node_ids ?? body.nodeIds ?? null;
      for (const id of nodeIds ?? []) if (!(await getNode(deps.pool, id))) issues.push({ field: body.node_ids !== undefined ? 'node_ids' : 'nodeIds', message: `no node ${id}` });
      if (issues.length) throw new ValidationError(cronProblem ? `The cron expression ${cron ? `"${cron}" ` : ''}is not valid: ${cronProblem}` : 'The backup schedule is not valid.', issues);
      if ((await listBackupSchedules(deps.pool)).some((s) => s.name.toLowerCase() === body.name.trim().toLowerCase())) throw new ConflictError(`A backup schedule named ${body.name} exists already.`, { field: 'name' });
      const r = body.retention ?? {};
      const retention: Retention = { keepLast: r.keep_last ?? r.keepLast ?? null, keepDaily: r.keep_daily ?? r.keepDaily ?? null, keepWeekly: r.keep_weekly ?? r.keepWeekly ?? null, keepMonthly: r.keep_monthly ?? r.keepMonthly ?? null };
      const scheduleId = await deps.nextId('backup_schedule');
      await runCommand(input, backupScheduleStream(scheduleId), backupSchedules, {
        type: 'CreateBackupSchedule', enabled: body.enabled ?? true, at: deps.clock().toISOString(),
        schedule: { scheduleId, name: body.name.trim(), description: body.description ?? null, cronExpression: cron, targetId: targetId!, nodeIds: nodeIds ? [...new Set(nodeIds)] : null, retention },
      });
      return { status: 201, body: (await getBackupSchedule(deps.pool, scheduleId))!, headers: { Location: `/api/v1/backups/schedules/${scheduleId}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/backups/schedules/:id', summary: 'Read a backup schedule', tags, permission: 'BACKUP_READ', params: IdParam,
    responses: { 200: { description: 'the schedule', schema: ScheduleSchema }, 404: { description: 'no such schedule' } },
    async handler({ deps, params }) {
      const s = await getBackupSchedule(deps.pool, params.id);
      if (!s) throw new NotFoundError('Backup schedule', params.id);
      return { body: s };
    },
  }),
  defineRoute({
    method: 'delete', path: '/backups/schedules/:id', summary: 'Delete a backup schedule (its backups stay)', tags, permission: 'BACKUP_SCHEDULE_MANAGE', params: IdParam,
    responses: { 204: { description: 'deleted' }, 404: { description: 'no such schedule' } },
    async handler(input) {
      await runCommand(input, backupScheduleStream(input.params.id), backupSchedules, { type: 'DeleteBackupSchedule', scheduleId: input.params.id, at: input.deps.clock().toISOString() });
      return { status: 204 };
    },
  }),
  toggle('enable'),
  toggle('disable'),
];
