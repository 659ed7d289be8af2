// Settings (read; secrets come masked from the API); notification providers have their own page.
import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useSession } from '../../session';
import { QueryView } from '../../components/states';
import { When } from '../../components/format';

function show(v: unknown): string {
  if (v === null || v === undefined) return '—';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

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
