// Backups: on demand (everything, or one node) and from schedules. POST answers at once with
// status IN_PROGRESS; the backup saga runs restic and records COMPLETED or FAILED.
import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.ts';
import { runCommand } from '../../application/commands.ts';
import { IdParam } from './schemas.ts';
import { Page, PageQuery, page, pageRequest } from '../pagination.ts';
import { backupStream, backups } from '../../domain/backups/backups.ts';
import { NotFoundError, UnavailableError, ValidationError } from '../../domain/shared/errors.ts';
import { getBackup, getBackupTarget, listBackups } from '../../projections/backups.ts';
import { getNode } from '../../projections/nodes.ts';
import { backupServices } from './backupTargets.ts';

const tags = ['backups'];
const Nullable = <T extends import('@sinclair/typebox').TSchema>(t: T) => Type.Union([t, Type.Null()]);

const BackupSchema = Type.Object({
  id: Type.Integer(),
  status: Type.String({ description: 'IN_PROGRESS, COMPLETED or FAILED' }),
  provider: Type.Literal('S3'),
  target_id: Type.Integer(),
  node_id: Nullable(Type.Integer({ description: 'null: everything' })),
  schedule_id: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  snapshot_id: Nullable(Type.String({ description: 'the restic snapshot (restore with `lnm restore --backup <id>` or `restic restore <snapshot_id>`)' })),
  event_position: Nullable(Type.Integer({ description: 'the last event position the backup covers' })),
  size_added: Nullable(Type.Integer({ description: 'bytes this backup added to the repository (after deduplication and compression)' })),
  total_size: Nullable(Type.Integer({ description: 'bytes the repository holds after this backup' })),
  files: Nullable(Type.Integer()),
  duration_ms: Nullable(Type.Integer()),
  created_at: Type.String({ format: 'date-time' }),
  started_at: Nullable(Type.String({ format: 'date-time' })),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
  progress: Type.Optional(Type.Object({ percent_done: Type.Number(), bytes_done: Type.Integer(), total_bytes: Type.Integer(), files_done: Type.Integer(), total_files: Type.Integer() })),
});

function withProgress(deps: { backups?: { progressOf(id: number): { percentDone: number; bytesDone: number; totalBytes: number; filesDone: number; totalFiles: number } | null } }, b: NonNullable<Awaited<ReturnType<typeof getBackup>>>) {
  const p = b.status === 'IN_PROGRESS' ? deps.backups?.progressOf(b.id) : null;
  return p ? { ...b, progress: { percent_done: p.percentDone, bytes_done: p.bytesDone, total_bytes: p.totalBytes, files_done: p.filesDone, total_files: p.totalFiles } } : b;
}

export const backupRoutes = [
  defineRoute({
    method: 'get', path: '/backups', summary: 'List backups, newest first', tags, permission: 'BACKUP_READ',
    query: Type.Object({ ...PageQuery, schedule_id: Type.Optional(Type.Integer({ minimum: 1 })) }, { additionalProperties: false }),
    responses: { 200: { description: 'backups', schema: Page(BackupSchema) } },
    async handler({ deps, query }) {
      const { limit, offset } = pageRequest(deps.config, query);
      const r = await listBackups(deps.pool, { limit, offset }, { scheduleId: query.schedule_id });
      return { body: page(r.items.map((b) => withProgress(deps, b)), r.total, limit, offset) };
    },
  }),
  defineRoute({
    method: 'post', path: '/backups', summary: 'Start a backup to a target: everything, or one node', tags, permission: 'BACKUP_CREATE',
    description: 'Body {target_id} or {targetId, nodeId}. Everything: the event store (a consistent cut at one position, hash chain included), key material as stored (encrypted; KEY_ENCRYPTION_KEY is never in a backup), and every node directory. With a node: the same database part and that node\'s directory only. Answers at once with status IN_PROGRESS (backup.scheduled); the backup then ends COMPLETED (backup.success) or FAILED with the error (backup.failure). Backups run one at a time.',
    body: Type.Object({
      target_id: Type.Optional(Type.Integer({ minimum: 1 })),
      targetId: Type.Optional(Type.Integer({ minimum: 1 })),
      nodeId: Type.Optional(Type.Integer({ minimum: 1 })),
      node_id: Type.Optional(Type.Integer({ minimum: 1 })),
    }, { additionalProperties: false }),
    responses: { 201: { description: 'queued, IN_PROGRESS', schema: BackupSchema }, 400: { description: 'no target, or an unknown target or node' }, 503: { description: 'restic is not installed' } },
    async handler(input) {
      const { deps, body } = input;
      await backupServices(deps);
      const targetId = body.target_id ?? body.targetId;
      if (targetId === undefined) throw new ValidationError('Name the backup target: target_id (or targetId).', [{ field: 'target_id', message: 'is required' }]);
      const target = await getBackupTarget(deps.pool, targetId);
      if (!target) throw new ValidationError(`Backup target ${targetId} does not exist.`, [{ field: body.target_id !== undefined ? 'target_id' : 'targetId', message: 'no such backup target' }]);
      const nodeId = body.nodeId ?? body.node_id ?? null;
      if (nodeId !== null && !(await getNode(deps.pool, nodeId))) throw new ValidationError(`Node ${nodeId} does not exist.`, [{ field: body.nodeId !== undefined ? 'nodeId' : 'node_id', message: 'no such node' }]);
      const backupId = await deps.nextId('backup');
      await runCommand(input, backupStream(backupId), backups, { type: 'RequestBackup', backupId, targetId, nodeId, scheduleId: null, backupName: nodeId === null ? `backup #${backupId}` : `backup #${backupId} of node ${nodeId}`, targetName: target.name, at: deps.clock().toISOString() });
      return { status: 201, body: (await getBackup(deps.pool, backupId))!, headers: { Location: `/api/v1/backups/${backupId}` } };
    },
  }),
  defineRoute({
    method: 'get', path: '/backups/:id', summary: 'Read a backup (with restic\'s progress while it runs)', tags, permission: 'BACKUP_READ', params: IdParam,
    responses: { 200: { description: 'the backup', schema: BackupSchema }, 404: { description: 'no such backup' } },
    async handler({ deps, params }) {
      const b = await getBackup(deps.pool, params.id);
      if (!b) throw new NotFoundError('Backup', params.id);
      return { body: withProgress(deps, b) };
    },
  }),
  defineRoute({
    method: 'delete', path: '/backups/:id', summary: 'Delete a backup: its snapshot is removed from the repository', tags, permission: 'BACKUP_DELETE', params: IdParam,
    responses: { 204: { description: 'deleted' }, 404: { description: 'no such backup' }, 409: { description: 'still running' }, 503: { description: 'restic is not installed, or the target cannot be reached (nothing deleted)' } },
    async handler(input) {
      const { deps, params } = input;
      const services = await backupServices(deps);
      const b = await getBackup(deps.pool, params.id);
      if (!b) throw new NotFoundError('Backup', params.id);
      if (b.status === 'COMPLETED' && b.snapshot_id) {
        const t = await getBackupTarget(deps.pool, b.target_id);
        if (t) {
          // The snapshot goes first: a backup row never outlives a failed removal silently.
          await services.deleteSnapshot({ targetId: t.id, name: t.name, publicConfig: t.publicConfig, sealedSecrets: t.sealedSecrets }, b.snapshot_id).catch((err: Error) => {
            throw new UnavailableError(`The snapshot ${b.snapshot_id} could not be removed from target ${t.name}, so the backup is kept: ${err.message}`);
          });
        }
      }
      await runCommand(input, backupStream(params.id), backups, { type: 'DeleteBackup', backupId: params.id, reason: 'deleted', at: deps.clock().toISOString() });
      return { status: 204 };
    },
  }),
];
