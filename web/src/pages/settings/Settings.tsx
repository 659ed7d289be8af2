// Settings: every server setting shown and, with SETTINGS_UPDATE, changed (POST /settings sends
// only the fields that differ; "Restore the defaults" is PUT /settings with none, which returns
// every general setting to its default); audit retention, archiving and backup inclusion with
// AUDIT_CONFIGURE (POST /settings/audit); every change from the event store (GET
// /settings/history) with what it changed. The labels are a Record over the API's own field
// names, so a setting added to the API without a field here is a type error in web/.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap, type Json } from '../../api/client';
import { useSession } from '../../session';
import { ActionError, FieldError, QueryView, invalid } from '../../components/states';
import { Pager, When } from '../../components/format';
import { DataTable } from '../../components/DataTable';

type SettingsView = Json<'/api/v1/settings', 'get'>;
type General = SettingsView['general'];
type Audit = SettingsView['audit'];
type Change = Json<'/api/v1/settings/history', 'get'>['items'][number];

const GENERAL: Record<keyof General, { label: string; unit?: string }> = {
  sessionIdleTimeoutMinutes: { label: 'Session idle timeout', unit: 'minutes' },
  sessionAbsoluteTimeoutHours: { label: 'Session absolute timeout', unit: 'hours' },
  loginSoftLimit: { label: 'Failed logins before slowing down', unit: 'attempts' },
  loginHardLimit: { label: 'Failed logins before lockout', unit: 'attempts' },
  loginWindowMinutes: { label: 'Failed login window', unit: 'minutes' },
  loginLockoutMinutes: { label: 'Lockout duration', unit: 'minutes' },
  nodeHealthCheckIntervalSeconds: { label: 'Node health check interval', unit: 'seconds' },
  nodeDowntimeThreshold: { label: 'Failed probes before a node is down', unit: 'probes' },
  nodeReadingIntervalSeconds: { label: 'Ledger readings (block height, peers) at most every', unit: 'seconds' },
  diskSpaceWarningPercent: { label: 'Disk space warning', unit: '% used' },
  webhookFailureThreshold: { label: 'Failed deliveries before a webhook is disabled', unit: 'deliveries' },
  cpuHighPercent: { label: 'High CPU alert', unit: '%' },
  memoryHighPercent: { label: 'High memory alert', unit: '%' },
  resourceCheckIntervalSeconds: { label: 'Resource check interval', unit: 'seconds' },
  slowQueryMs: { label: 'Slow database query', unit: 'ms' },
  metricsAccess: { label: "Who may read the service's own Prometheus metrics" },
};
const METRICS_ACCESS: Record<General['metricsAccess'], string> = {
  authenticated: 'authenticated: API credentials with METRICS_READ or the managed Prometheus',
  loopback: 'loopback: also anyone on 127.0.0.1 or ::1, without credentials',
};
const AUDIT: Record<keyof Audit, string> = {
  retention_days: 'Keep audit entries in listings and reports for (days)',
  archive_after_days: 'Archive audit entries after (days)',
  include_in_backups: 'Include audit-only entries in backups',
};

const keys = <T extends object>(o: T) => Object.keys(o) as Array<keyof T>;

export default function Settings() {
  const { can } = useSession();
  const settings = useQuery({ queryKey: ['settings'], enabled: can('SETTINGS_READ'), queryFn: () => unwrap(api.GET('/api/v1/settings')) });
  return (
    <section>
      <h1>Settings</h1>
      {can('NOTIFICATION_READ') ? (
        <p>
          Notification providers (email and webhooks about node downtime, backups and disk space) are on the <Link to="/notifications">Notifications</Link> page.
        </p>
      ) : null}
      <QueryView q={settings} what="Loading settings">
        {(s) => (
          <>
            <GeneralSettings key={`general-${s.version}`} s={s} editable={can('SETTINGS_UPDATE')} />
            <AuditSettings key={`audit-${s.version}`} s={s} editable={can('AUDIT_CONFIGURE')} />
            <p className="muted">
              Version {s.version}, changed <When at={s.updatedAt} />
            </p>
          </>
        )}
      </QueryView>
      <History />
    </section>
  );
}

/** What a role without the permission to change them sees: the values, no inputs. */
function ReadOnly({ title, id, rows }: { title: string; id: string; rows: Array<[string, string, string]> }) {
  return (
    <article className="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <dl className="facts">
        {rows.map(([name, label, value]) => (
          <div key={name} className="contents">
            <dt>
              {label} <small>({name})</small>
            </dt>
            <dd>
              <code>{value}</code>
            </dd>
          </div>
        ))}
      </dl>
    </article>
  );
}

function GeneralSettings({ s, editable }: { s: SettingsView; editable: boolean }) {
  const qc = useQueryClient();
  const [values, setValues] = useState<Record<string, string>>(Object.fromEntries(keys(GENERAL).map((k) => [k, String(s.general[k])])));
  const [confirmReset, setConfirmReset] = useState(false);
  const changed = keys(GENERAL).filter((k) => values[k] !== String(s.general[k]));
  const done = async (after: SettingsView) => {
    qc.setQueryData(['settings'], after);
    await qc.invalidateQueries({ queryKey: ['settings-history'] });
  };
  const save = useMutation({
    mutationFn: () => {
      const body: Partial<General> = {};
      for (const k of changed) {
        if (k === 'metricsAccess') body.metricsAccess = values[k] as General['metricsAccess'];
        else body[k] = Number(values[k]);
      }
      return unwrap(api.POST('/api/v1/settings', { body }));
    },
    onSuccess: done,
  });
  const reset = useMutation({ mutationFn: () => unwrap(api.PUT('/api/v1/settings', { body: {} })), onSuccess: done });
  if (!editable) return <ReadOnly title="General" id="settings-general" rows={keys(GENERAL).map((k): [string, string, string] => [k, GENERAL[k].label, `${String(s.general[k])}${GENERAL[k].unit ? ` ${GENERAL[k].unit}` : ''}`])} />;
  return (
    <form
      className="card"
      aria-labelledby="settings-general"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        if (changed.length) save.mutate();
      }}
    >
      <h2 id="settings-general">General</h2>
      <div className="settings-grid">
        {keys(GENERAL).map((k) => {
          const id = `setting-${k}`;
          const { label, unit } = GENERAL[k];
          return (
            <div key={k} className="setting">
              <label htmlFor={id}>
                {label}
                {unit ? ` (${unit})` : ''}
              </label>
              {k === 'metricsAccess' ? (
                <select id={id} value={values[k]} onChange={(e) => setValues({ ...values, [k]: e.target.value })} aria-describedby={`${id}-name`} {...invalid(save.error, k)}>
                  {keys(METRICS_ACCESS).map((v) => (
                    <option key={v} value={v}>
                      {METRICS_ACCESS[v]}
                    </option>
                  ))}
                </select>
              ) : (
                <input id={id} type="number" required value={values[k]} onChange={(e) => setValues({ ...values, [k]: e.target.value })} aria-describedby={`${id}-name`} {...invalid(save.error, k)} />
              )}
              <small id={`${id}-name`}>
                <code>{k}</code>
                {values[k] !== String(s.general[k]) ? ` (was ${String(s.general[k])})` : ''}
              </small>
              <FieldError error={save.error} field={k} />
            </div>
          );
        })}
      </div>
      <ActionError error={save.error ?? reset.error} />
          <div className="actions">
            <button type="submit" className="primary" disabled={save.isPending || changed.length === 0}>
              {save.isPending ? 'Saving…' : changed.length ? `Save ${changed.length} change${changed.length === 1 ? '' : 's'}` : 'No changes'}
            </button>
            {!confirmReset ? (
              <button type="button" onClick={() => setConfirmReset(true)}>
                Restore the defaults
              </button>
            ) : (
              <span className="actions" role="group" aria-label="Restore every general setting to its default?">
                <span>Every general setting returns to its default.</span>
                <button type="button" className="danger" disabled={reset.isPending} onClick={() => reset.mutate()}>
                  Yes, restore the defaults
                </button>
                <button type="button" onClick={() => setConfirmReset(false)}>
                  Keep
                </button>
              </span>
            )}
          </div>
    </form>
  );
}

function AuditSettings({ s, editable }: { s: SettingsView; editable: boolean }) {
  const qc = useQueryClient();
  const [retention, setRetention] = useState(String(s.audit.retention_days));
  const [archive, setArchive] = useState(String(s.audit.archive_after_days));
  const [inBackups, setInBackups] = useState(s.audit.include_in_backups);
  const dirty = retention !== String(s.audit.retention_days) || archive !== String(s.audit.archive_after_days) || inBackups !== s.audit.include_in_backups;
  const save = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/settings/audit', { body: { retention_days: Number(retention), archive_after_days: Number(archive), include_in_backups: inBackups } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['settings'] });
      await qc.invalidateQueries({ queryKey: ['settings-history'] });
    },
  });
  if (!editable) return <ReadOnly title="Audit" id="settings-audit" rows={keys(AUDIT).map((k): [string, string, string] => [k, AUDIT[k], String(s.audit[k])])} />;
  return (
    <form
      className="card form-grid"
      aria-labelledby="settings-audit"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <h2 id="settings-audit">Audit</h2>
      <label>
        {AUDIT.retention_days}
        <input type="number" required value={retention} onChange={(e) => setRetention(e.target.value)} {...invalid(save.error, 'retention_days')} />
        <small>Older entries leave listings and reports; events are never deleted, so every entry stays verifiable.</small>
        <FieldError error={save.error} field="retention_days" />
      </label>
      <label>
        {AUDIT.archive_after_days}
        <input type="number" required value={archive} onChange={(e) => setArchive(e.target.value)} {...invalid(save.error, 'archive_after_days')} />
        <small>Archived entries leave the default audit listing.</small>
        <FieldError error={save.error} field="archive_after_days" />
      </label>
      <label className="inline">
        <input type="checkbox" checked={inBackups} onChange={(e) => setInBackups(e.target.checked)} />
        {AUDIT.include_in_backups}
      </label>
      <small>Without: backups keep denied requests, failed logins, sensitive reads and the like as hash-only stubs, and a restore still verifies the chain through them.</small>
      <ActionError error={save.error} />
      <div>
        <button type="submit" disabled={save.isPending || !dirty}>
          {save.isPending ? 'Saving…' : 'Save audit settings'}
        </button>
      </div>
    </form>
  );
}

/** "field: before → after" for each field a change touched. */
function whatChanged(c: Change): string {
  const before = (c.before ?? {}) as Record<string, unknown>;
  const after = (c.after ?? {}) as Record<string, unknown>;
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  return fields.map((k) => `${k}: ${JSON.stringify(before[k])} → ${JSON.stringify(after[k])}`).join('; ') || 'nothing';
}

function History() {
  const [offset, setOffset] = useState(0);
  const history = useQuery({ queryKey: ['settings-history', offset], placeholderData: (p) => p, queryFn: () => unwrap(api.GET('/api/v1/settings/history', { params: { query: { limit: 20, offset } } })) });
  return (
    <>
      <h2>Changes</h2>
      <QueryView q={history} what="Loading the changes">
        {(d) => (
          <>
            <DataTable
              caption="Settings changes, newest first"
              rows={d.items}
              rowKey={(c) => c.version}
              empty="No change yet: every setting has its default."
              columns={[
                { header: 'Version', cell: (c) => c.version },
                { header: 'When', cell: (c) => <When at={c.at} /> },
                { header: 'By', cell: (c) => c.by ?? '—' },
                { header: 'Kind', cell: (c) => (c.type === 'AuditSettingsUpdated' ? 'audit' : 'general') },
                { header: 'Changed', cell: (c) => <code>{whatChanged(c)}</code> },
              ]}
            />
            {d.total > 0 ? <Pager total={d.total} limit={20} offset={offset} onOffset={setOffset} /> : null}
          </>
        )}
      </QueryView>
    </>
  );
}
