// Settings (read; secrets come masked from the API) and notification providers with a test
// that shows the outcome.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useSession } from '../../session';
import { ActionError, Empty, QueryView } from '../../components/states';
import { When } from '../../components/format';
import { DataTable } from '../../components/DataTable';

function show(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export default function Settings() {
  const { can } = useSession();
  const qc = useQueryClient();
  const settings = useQuery({ queryKey: ['settings'], enabled: can('SETTINGS_READ'), queryFn: () => unwrap(api.GET('/api/v1/settings')) });
  const providers = useQuery({ queryKey: ['notification-providers'], enabled: can('NOTIFICATION_READ'), queryFn: () => unwrap(api.GET('/api/v1/notifications/providers')) });
  const test = useMutation({
    mutationFn: (id: number) => unwrap(api.POST('/api/v1/notifications/providers/{id}/test', { params: { path: { id } }, body: {} })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['notification-providers'] }),
  });
  return (
    <section>
      <h1>Settings</h1>
      <h2>Notification providers</h2>
      <ActionError error={test.error} />
      {test.data ? (
        <div className={`verdict ${test.data.status === 'success' ? 'valid' : 'invalid'}`} role="status">
          <strong>Test {test.data.status}</strong>: {test.data.message}
        </div>
      ) : null}
      <QueryView q={providers} what="Loading notification providers">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No notification providers. An SMTP or webhook provider tells people about node downtime and failed backups.</Empty>
          ) : (
            <DataTable
              caption="Notification providers"
              rows={d.items}
              rowKey={(p) => p.id}
              columns={[
                { header: 'Name', cell: (p) => `${p.name}${p.isDefault ? ' (default)' : ''}` },
                { header: 'Type', cell: (p) => p.type },
                { header: 'Last test', cell: (p) => (p.lastTestStatus ? `${p.lastTestStatus}: ${p.lastTestMessage ?? ''}` : 'never') },
                { header: 'Tested', cell: (p) => <When at={p.lastTestedAt} /> },
                {
                  header: 'Actions',
                  cell: (p) =>
                    can('NOTIFICATION_MANAGE') ? (
                      <button type="button" disabled={test.isPending} onClick={() => test.mutate(p.id)} aria-label={`Send test through ${p.name}`}>
                        Send test
                      </button>
                    ) : null,
                },
              ]}
            />
          )
        }
      </QueryView>
      <h2>Server settings</h2>
      <QueryView q={settings} what="Loading settings">
        {(s) => (
          <>
            {(['general', 'audit'] as const).map((group) => (
              <article key={group} className="card" aria-labelledby={`settings-${group}`}>
                <h3 id={`settings-${group}`}>{group === 'general' ? 'General' : 'Audit'}</h3>
                <dl className="facts">
                  {Object.entries(s[group] as Record<string, unknown>).map(([k, v]) => (
                    <div key={k} className="contents">
                      <dt>{k}</dt>
                      <dd>
                        <code>{show(v)}</code>
                      </dd>
                    </div>
                  ))}
                </dl>
              </article>
            ))}
            <p className="muted">
              Version {s.version}, changed <When at={s.updatedAt} />
            </p>
          </>
        )}
      </QueryView>
      <p className="muted">Settings change through PUT /api/v1/settings; every change is kept in GET /api/v1/settings/history.</p>
    </section>
  );
}
