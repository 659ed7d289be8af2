// Backups: targets (S3-compatible; create, edit, delete), "back up now" per target, backups with
// status, size and error (polled while one runs; details, delete), and the schedules with their cron expressions, in words
// and with the next three runs (components/cron.ts); enable, disable and delete a schedule (the
// API has no route to change one: delete it and add another).
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ConfirmDelete } from '../../components/ConfirmDelete';
import { Can, useSession } from '../../session';
import { ActionError, Empty, Fresh, QueryView, FieldError, invalid } from '../../components/states';
import { Pager, StatusBadge, When } from '../../components/format';
import { DataTable, bytes } from '../../components/DataTable';
import { cronInWords, nextCronRuns } from '../../components/cron';
import { ListTitle } from '../../components/ListTitle';

export default function Backups() {
  const { can } = useSession();
  const qc = useQueryClient();
  const [offset, setOffset] = useState(0);
  const [targetAction, setTargetAction] = useState<{ id: number; name: string; what: 'edit' | 'delete' } | null>(null);
  const [backupAction, setBackupAction] = useState<{ id: number; what: 'details' | 'delete' } | null>(null);
  const targets = useQuery({ queryKey: ['backup-targets'], queryFn: () => unwrap(api.GET('/api/v1/backups/targets', { params: { query: { limit: 500 } } })) });
  const backups = useQuery({
    queryKey: ['backups', offset],
    refetchInterval: (q) => (q.state.data?.items.some((b) => b.status === 'IN_PROGRESS' || b.status === 'PENDING') ? 1_000 : 10_000),
    queryFn: () => unwrap(api.GET('/api/v1/backups', { params: { query: { limit: 20, offset } } })),
  });
  const schedules = useQuery({ queryKey: ['backup-schedules'], queryFn: () => unwrap(api.GET('/api/v1/backups/schedules', { params: { query: { limit: 500 } } })) });
  const [confirmingSchedule, setConfirmingSchedule] = useState<number | null>(null);
  const scheduleAction = useMutation({
    mutationFn: ({ id, action }: { id: number; action: 'enable' | 'disable' | 'delete' }) => {
      const params = { params: { path: { id } } };
      if (action === 'enable') return unwrap(api.PUT('/api/v1/backups/schedules/{id}/enable', params));
      if (action === 'disable') return unwrap(api.PUT('/api/v1/backups/schedules/{id}/disable', params));
      return unwrap(api.DELETE('/api/v1/backups/schedules/{id}', params));
    },
    onSuccess: () => setConfirmingSchedule(null),
    onSettled: () => qc.invalidateQueries({ queryKey: ['backup-schedules'] }),
  });
  const run = useMutation({
    mutationFn: (targetId: number) => unwrap(api.POST('/api/v1/backups', { body: { target_id: targetId } })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['backups'] }),
  });
  return (
    <section>
      <ListTitle title="Backups" permission="BACKUP_TARGET_MANAGE" open="Add backup target" form={(close) => <TargetForm onDone={close} />} />
      <h2>Targets</h2>
      <ActionError error={run.error} />
      {targetAction?.what === 'edit' ? <EditTarget key={targetAction.id} id={targetAction.id} onDone={() => setTargetAction(null)} /> : null}
      {targetAction?.what === 'delete' ? (
        <ConfirmDelete
          key={targetAction.id}
          title={`Delete the backup target ${targetAction.name}?`}
          name={targetAction.name}
          action={() => unwrap(api.DELETE('/api/v1/backups/targets/{id}', { params: { path: { id: targetAction.id } } }))}
          onDeleted={async () => {
            await qc.invalidateQueries({ queryKey: ['backup-targets'] });
            setTargetAction(null);
          }}
          onCancel={() => setTargetAction(null)}
          inUse={{ title: 'Schedules still use this target; it was not deleted (409).', help: 'Delete the schedules that back up to it first (their backups stay), then delete the target.' }}
        >
          <p>The service forgets the target and its credentials. The repository and its snapshots stay in the bucket: restores from it need the repository password.</p>
        </ConfirmDelete>
      ) : null}
      <QueryView q={targets} what="Loading targets">
        {(d) => (
          <DataTable
            empty="No backup targets yet. A target is an S3-compatible bucket the service writes an encrypted, deduplicated repository to."
            caption="Backup targets"
            rows={d.items}
            rowKey={(t) => t.id}
            columns={[
              { header: 'Name', cell: (t) => t.name },
              { header: 'Bucket', cell: (t) => <code>{`${t.endpoint ?? 's3'}/${t.bucket_name}${t.bucket_path ? '/' + t.bucket_path : ''}`}</code> },
              { header: 'Authentication', cell: (t) => t.auth_method },
              { header: 'Reachable', cell: (t) => (t.reachable ? 'yes' : `no${t.last_error ? `: ${t.last_error}` : ''}`) },
              {
                header: 'Actions',
                cell: (t) => (
                  <div className="actions">
                    {can('BACKUP_CREATE') ? (
                      <button type="button" disabled={run.isPending} onClick={() => run.mutate(t.id)} aria-label={`Back up now to ${t.name}`}>
                        Back up now
                      </button>
                    ) : null}
                    {can('BACKUP_TARGET_MANAGE') ? (
                      <>
                        <button type="button" onClick={() => setTargetAction({ id: t.id, name: t.name, what: 'edit' })} aria-label={`Edit target ${t.name}`}>
                          Edit
                        </button>
                        <button type="button" className="danger" onClick={() => setTargetAction({ id: t.id, name: t.name, what: 'delete' })} aria-label={`Delete target ${t.name}`}>
                          Delete
                        </button>
                      </>
                    ) : null}
                  </div>
                ),
              },
            ]}
          />
        )}
      </QueryView>
      <h2>Backups</h2>
      {backupAction?.what === 'details' ? <BackupDetails key={backupAction.id} id={backupAction.id} targetName={(id) => targets.data?.items.find((t) => t.id === id)?.name} onDone={() => setBackupAction(null)} /> : null}
      {backupAction?.what === 'delete' ? (
        <ConfirmDelete
          key={backupAction.id}
          title={`Delete backup #${backupAction.id}?`}
          name={`backup #${backupAction.id}`}
          action={() => unwrap(api.DELETE('/api/v1/backups/{id}', { params: { path: { id: backupAction.id } } }))}
          onDeleted={async () => {
            await qc.invalidateQueries({ queryKey: ['backups'] });
            setBackupAction(null);
          }}
          onCancel={() => setBackupAction(null)}
          inUse={{ title: 'The backup is still running; it was not deleted (409).', help: 'Wait until it has completed or failed, then delete it.' }}
        >
          <p>Its snapshot is removed from the target's repository first (when the target cannot be reached, nothing is deleted); it can no longer be restored.</p>
        </ConfirmDelete>
      ) : null}
      <QueryView q={backups} what="Loading backups">
        {(d) => (
          <>
            <DataTable
              empty="No backups yet."
              caption="Backups, newest first"
              rows={d.items}
              rowKey={(b) => b.id}
              columns={[
                { header: 'Id', cell: (b) => b.id },
                { header: 'Status', cell: (b) => <StatusBadge status={b.status} /> },
                { header: 'Target', cell: (b) => targets.data?.items.find((t) => t.id === b.target_id)?.name ?? `#${b.target_id}` },
                { header: 'Started', cell: (b) => <When at={b.started_at ?? b.created_at} /> },
                { header: 'Progress', cell: (b) => (b.progress ? `${Math.round(b.progress.percent_done * 100)} %` : b.duration_ms !== null ? `${(b.duration_ms / 1000).toFixed(1)} s` : '—') },
                { header: 'Size', cell: (b) => `${bytes(b.total_size)}${b.size_added !== null ? ` (+${bytes(b.size_added)})` : ''}` },
                { header: 'Error', cell: (b) => (b.error ? <span className="error-text">{b.error}</span> : '—') },
                {
                  header: 'Actions',
                  cell: (b) => (
                    <div className="actions">
                      <button type="button" onClick={() => setBackupAction({ id: b.id, what: 'details' })} aria-label={`Details of backup #${b.id}`}>
                        Details
                      </button>
                      {can('BACKUP_DELETE') && b.status !== 'IN_PROGRESS' && b.status !== 'PENDING' ? (
                        <button type="button" className="danger" onClick={() => setBackupAction({ id: b.id, what: 'delete' })} aria-label={`Delete backup #${b.id}`}>
                          Delete
                        </button>
                      ) : null}
                    </div>
                  ),
                },
              ]}
            />
            {d.items.length ? <Pager total={d.total} limit={20} offset={offset} onOffset={setOffset} /> : null}
          </>
        )}
      </QueryView>
      <h2>Schedules</h2>
      {targets.data && targets.data.items.length > 0 ? (
        <Can permission="BACKUP_SCHEDULE_MANAGE">
          <CreateSchedule targets={targets.data.items.map((t) => ({ id: t.id, name: t.name }))} />
        </Can>
      ) : null}
      {can('BACKUP_SCHEDULE_MANAGE') ? <p className="hint">A schedule cannot be changed (the API has no route for it): disable or delete it and add a new one. Deleting a schedule keeps its backups.</p> : null}
      <ActionError error={scheduleAction.error} />
      <QueryView q={schedules} what="Loading schedules">
        {(d) => (
          <DataTable
            empty="No schedules. A schedule runs backups by a cron expression (six fields, seconds first)."
            caption="Backup schedules"
            rows={d.items}
            rowKey={(s) => s.id}
            columns={[
              { header: 'Name', cell: (s) => s.name },
              { header: 'Cron', cell: (s) => <code>{s.cron_expression}</code> },
              { header: 'When', cell: (s) => cronInWords(s.cron_expression) ?? 'not readable' },
              {
                header: 'Next runs',
                cell: (s) =>
                  s.enabled ? (
                    <ul className="plain">
                      {nextCronRuns(s.cron_expression, 3).map((d) => (
                        <li key={d.toISOString()}>
                          <When at={d.toISOString()} />
                        </li>
                      ))}
                    </ul>
                  ) : (
                    'disabled'
                  ),
              },
              { header: 'Target', cell: (s) => targets.data?.items.find((t) => t.id === s.target_id)?.name ?? `#${s.target_id}` },
              { header: 'Enabled', cell: (s) => (s.enabled ? 'yes' : 'no') },
              { header: 'Last run', cell: (s) => <When at={s.last_run_at} /> },
              ...(can('BACKUP_SCHEDULE_MANAGE')
                ? [
                    {
                      header: 'Actions',
                      cell: (s: (typeof d.items)[number]) => {
                        const busy = scheduleAction.isPending && scheduleAction.variables?.id === s.id;
                        return confirmingSchedule === s.id ? (
                          <div className="actions" role="group" aria-label={`Delete schedule ${s.name}?`}>
                            <button type="button" className="danger" disabled={busy} onClick={() => scheduleAction.mutate({ id: s.id, action: 'delete' })} aria-label={`Yes, delete schedule ${s.name}`}>
                              {busy ? 'Deleting…' : 'Yes, delete'}
                            </button>
                            <button type="button" onClick={() => setConfirmingSchedule(null)}>
                              Keep
                            </button>
                          </div>
                        ) : (
                          <div className="actions">
                            <button type="button" disabled={busy} onClick={() => scheduleAction.mutate({ id: s.id, action: s.enabled ? 'disable' : 'enable' })} aria-label={`${s.enabled ? 'Disable' : 'Enable'} schedule ${s.name}`}>
                              {s.enabled ? 'Disable' : 'Enable'}
                            </button>
                            <button type="button" className="danger" disabled={busy} onClick={() => setConfirmingSchedule(s.id)} aria-label={`Delete schedule ${s.name}`}>
                              Delete
                            </button>
                          </div>
                        );
                      },
                    },
                  ]
                : []),
            ]}
          />
        )}
      </QueryView>
    </section>
  );
}

type Target = Awaited<ReturnType<typeof readTarget>>;
const readTarget = (id: number) => unwrap(api.GET('/api/v1/backups/targets/{id}', { params: { path: { id } } }));

/** A target read fresh (GET /backups/targets/{id}) into the form; secrets left empty are kept. */
function EditTarget({ id, onDone }: { id: number; onDone: () => void }) {
  return (
    <Fresh queryKey={['backup-targets', id]} load={() => readTarget(id)} what="Loading the target">
      {(t) =>
        t.auth_method === 'STATIC' ? (
          <TargetForm target={t} onDone={onDone} />
        ) : (
          <Empty>
            The target {t.name} authenticates with {t.auth_method}, which this form does not edit (it edits targets with static credentials): to change it, delete it from the list and add it again.{' '}
            <button type="button" onClick={onDone}>
              Close
            </button>
          </Empty>
        )
      }
    </Fresh>
  );
}

/** Add a target, or change one (then the repository password is not asked: the repository keeps it). */
function TargetForm({ target, onDone }: { target?: Target; onDone: () => void }) {
  const qc = useQueryClient();
  const [f, setF] = useState({
    name: target?.name ?? '',
    endpoint: target?.endpoint ?? '',
    bucket_name: target?.bucket_name ?? '',
    bucket_path: target?.bucket_path ?? '',
    region: target?.region ?? 'us-east-1',
    access_key_id: target?.access_key_id ?? '',
    secret_access_key: '',
    repository_password: '',
    ca_certificate: typeof target?.config.caCertificate === 'string' ? target.config.caCertificate : '',
    force_path_style: target?.force_path_style ?? true,
  });
  const m = useMutation({
    mutationFn: () => {
      const body = {
        ...f,
        endpoint: f.endpoint || undefined,
        bucket_path: f.bucket_path || undefined,
        access_key_id: f.access_key_id || undefined,
        secret_access_key: f.secret_access_key || undefined,
        repository_password: f.repository_password || undefined,
        ca_certificate: f.ca_certificate.trim() || undefined,
      };
      if (!target) return unwrap(api.POST('/api/v1/backups/targets', { body }));
      const { repository_password: _kept, ...changes } = body;
      return unwrap(api.PUT('/api/v1/backups/targets/{id}', { params: { path: { id: target.id } }, body: changes }));
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['backup-targets'] });
      onDone();
    },
  });
  const field = (k: keyof typeof f, label: string, props: Record<string, unknown> = {}) => (
    <label>
      {label}
      <input value={String(f[k])} onChange={(e) => setF({ ...f, [k]: e.target.value })} {...props} {...invalid(m.error, k)} />
      <FieldError error={m.error} field={k} />
    </label>
  );
  const titleId = target ? 'edit-target' : 'new-target';
  return (
    <form
      className="card form-grid"
      aria-labelledby={titleId}
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h2 id={titleId}>{target ? `Edit the backup target ${target.name}` : 'New S3 backup target'}</h2>
      {target ? <p className="hint">The service checks the bucket and repository before it saves. The secret access key left empty is kept while the access key id stays the same.</p> : null}
      {field('name', 'Name', { required: true })}
      {field('endpoint', 'Endpoint (empty: AWS S3)', { type: 'url', placeholder: 'https://minio.example:9000' })}
      {field('bucket_name', 'Bucket', { required: true })}
      {field('bucket_path', 'Path in the bucket (optional)')}
      {field('region', 'Region', { required: true })}
      {field('access_key_id', 'Access key id', { autoComplete: 'off' })}
      {field('secret_access_key', target?.has_secret_access_key ? 'Secret access key (empty: keep the current one)' : 'Secret access key', { type: 'password', autoComplete: 'new-password' })}
      {target ? null : field('repository_password', 'Repository password (optional; generated when empty)', { type: 'password', autoComplete: 'new-password' })}
      <label>
        CA certificate of the endpoint (PEM, optional: for a private CA)
        <textarea {...invalid(m.error, 'ca_certificate')} className="code" rows={3} spellCheck={false} value={f.ca_certificate} onChange={(e) => setF({ ...f, ca_certificate: e.target.value })} />
        <FieldError error={m.error} field="ca_certificate" />
      </label>
      <label className="inline">
        <input type="checkbox" checked={f.force_path_style} onChange={(e) => setF({ ...f, force_path_style: e.target.checked })} /> Path-style addressing (MinIO and most S3-compatible stores)
      </label>
      <ActionError error={m.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={m.isPending}>
          {target ? (m.isPending ? 'Checking and saving…' : 'Save target') : 'Add target'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** One backup as GET /backups/{id} answers it (polled while it runs). */
function BackupDetails({ id, targetName, onDone }: { id: number; targetName: (id: number) => string | undefined; onDone: () => void }) {
  const b = useQuery({
    queryKey: ['backups', 'one', id],
    refetchInterval: (q) => (q.state.data?.status === 'IN_PROGRESS' || q.state.data?.status === 'PENDING' ? 1_000 : false),
    queryFn: () => unwrap(api.GET('/api/v1/backups/{id}', { params: { path: { id } } })),
  });
  return (
    <div className="card" role="group" aria-labelledby="backup-details-title">
      <h3 id="backup-details-title">Backup #{id}</h3>
      <QueryView q={b} what="Loading the backup">
        {(d) => (
          <dl className="facts">
            <dt>Status</dt>
            <dd>
              <StatusBadge status={d.status} />
            </dd>
            <dt>Target</dt>
            <dd>{targetName(d.target_id) ?? `#${d.target_id}`}</dd>
            <dt>What</dt>
            <dd>{d.node_id === null ? 'everything (event store, read models, node data)' : `node #${d.node_id}`}</dd>
            <dt>Schedule</dt>
            <dd>{d.schedule_id === null ? 'started by hand' : `#${d.schedule_id}`}</dd>
            <dt>Snapshot</dt>
            <dd>{d.snapshot_id ? <code>{d.snapshot_id}</code> : '—'}</dd>
            <dt>Events covered up to position</dt>
            <dd>{d.event_position ?? '—'}</dd>
            <dt>Files</dt>
            <dd>{d.files ?? '—'}</dd>
            <dt>Added to the repository</dt>
            <dd>{bytes(d.size_added)}</dd>
            <dt>Repository size after it</dt>
            <dd>{bytes(d.total_size)}</dd>
            <dt>Started</dt>
            <dd>
              <When at={d.started_at ?? d.created_at} />
            </dd>
            <dt>Completed</dt>
            <dd>
              <When at={d.completed_at} />
            </dd>
            <dt>Error</dt>
            <dd>{d.error ? <span className="error-text">{d.error}</span> : '—'}</dd>
            <dt>Restore</dt>
            <dd>
              <code>lnm restore --backup {d.id}</code>
            </dd>
          </dl>
        )}
      </QueryView>
      <button type="button" onClick={onDone}>
        Close
      </button>
    </div>
  );
}

function CreateSchedule({ targets }: { targets: Array<{ id: number; name: string }> }) {
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [cron, setCron] = useState('0 0 2 * * *');
  const [targetId, setTargetId] = useState(targets[0].id);
  const [keepLast, setKeepLast] = useState('');
  const words = cronInWords(cron);
  const runs = words ? nextCronRuns(cron, 3) : [];
  const m = useMutation({
    mutationFn: () =>
      unwrap(
        api.POST('/api/v1/backups/schedules', {
          body: { name, cron_expression: cron.trim(), target_id: targets.some((t) => t.id === targetId) ? targetId : targets[0].id, ...(keepLast ? { retention: { keep_last: Number(keepLast) } } : {}) },
        }),
      ),
    onSuccess: () => {
      setName('');
      return qc.invalidateQueries({ queryKey: ['backup-schedules'] });
    },
  });
  return (
    <form
      className="card form-grid"
      aria-labelledby="schedule-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h3 id="schedule-title">Add a schedule</h3>
      <label>
        Schedule name
        <input {...invalid(m.error, 'name')} required maxLength={128} value={name} onChange={(e) => setName(e.target.value)} />
        <FieldError error={m.error} field="name" />
      </label>
      <label>
        Cron expression (six fields, seconds first, UTC)
        <input {...invalid(m.error, 'cron_expression')} className="code" required value={cron} onChange={(e) => setCron(e.target.value)} aria-describedby="schedule-preview" />
        <FieldError error={m.error} field="cron_expression" />
      </label>
      <p id="schedule-preview" aria-live="polite">
        {words ? (
          <>
            {words}; next: {runs.map((d) => d.toLocaleString()).join(', ')}
          </>
        ) : (
          'Not a six-field cron expression the scheduler can read.'
        )}
      </p>
      <label>
        Target
        <select {...invalid(m.error, 'target_id')} value={targetId} onChange={(e) => setTargetId(Number(e.target.value))}>
          {targets.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
        <FieldError error={m.error} field="target_id" />
      </label>
      <label>
        Keep the last N backups (optional)
        <input {...invalid(m.error, 'retention.keep_last')} type="number" min={1} max={1000} value={keepLast} onChange={(e) => setKeepLast(e.target.value)} />
        <FieldError error={m.error} field="retention.keep_last" />
      </label>
      <ActionError error={m.error} />
      <div>
        <button type="submit" disabled={m.isPending}>
          Add schedule
        </button>
      </div>
    </form>
  );
}
