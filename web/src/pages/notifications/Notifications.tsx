// Notification providers: SMTP and (pro) WEBHOOK; add, change, delete, and send a test whose
// outcome (the mail server's or the receiver's own answer) is shown. Passwords and secrets are
// write-only: the API says only whether one is set, and an edit that leaves them empty keeps them.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Json } from '../../api/client';
import { editionAtLeast, useSession } from '../../session';
import { ActionError, Empty, Fresh, QueryView, FieldError, invalid } from '../../components/states';
import { When } from '../../components/format';
import { DataTable } from '../../components/DataTable';

type Provider = Json<'/api/v1/notifications/providers', 'get'>['items'][number];
type Kind = 'SMTP' | 'WEBHOOK';

const SWITCHES = [
  ['notifyNodeDowntime', 'Node downtime and recovery'],
  ['notifyBackupSuccess', 'Backup succeeded'],
  ['notifyBackupFailure', 'Backup failed'],
  ['notifyS3ConnIssue', 'S3 connection issue'],
  ['notifyDiskSpaceWarning', 'Disk space warning'],
] as const;
type SwitchName = (typeof SWITCHES)[number][0];

export default function Notifications() {
  const { can } = useSession();
  const qc = useQueryClient();
  const [editing, setEditing] = useState<Provider | 'new' | null>(null);
  const [confirming, setConfirming] = useState<number | null>(null);
  const providers = useQuery({ queryKey: ['notification-providers'], queryFn: () => unwrap(api.GET('/api/v1/notifications/providers', { params: { query: { limit: 500 } } })) });
  const test = useMutation({
    mutationFn: (p: Provider) => unwrap(api.POST('/api/v1/notifications/providers/{id}/test', { params: { path: { id: p.id } }, body: {} })).then((r) => ({ ...r, name: p.name })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['notification-providers'] }),
  });
  const remove = useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/v1/notifications/providers/{id}', { params: { path: { id } } })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['notification-providers'] }),
  });
  const manage = can('NOTIFICATION_MANAGE');
  return (
    <section>
      <div className="title-row">
        <h1>Notifications</h1>
        {manage && editing === null ? (
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            Add notification provider
          </button>
        ) : null}
      </div>
      <p className="hint">Providers tell people about node downtime, backups, S3 connection trouble and low disk space, by email (SMTP) or to a webhook.</p>
      {editing === 'new' ? <ProviderForm key="new" provider={null} onDone={() => setEditing(null)} /> : null}
      {editing && editing !== 'new' ? (
        <Fresh key={editing.id} queryKey={['notification-provider', editing.id]} what="Loading the provider" load={() => unwrap(api.GET('/api/v1/notifications/providers/{id}', { params: { path: { id: editing.id } } }))}>
          {(p) => <ProviderForm provider={p} onDone={() => setEditing(null)} />}
        </Fresh>
      ) : null}
      <ActionError error={test.error ?? remove.error} />
      {test.data ? (
        <div className={`verdict ${test.data.status === 'success' ? 'valid' : 'invalid'}`} role="status" data-testid="test-outcome">
          <strong>
            Test of {test.data.name}: {test.data.status === 'success' ? 'sent' : 'failed'}
          </strong>{' '}
          — {test.data.message}
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
                { header: 'Sends to', cell: (p) => target(p) },
                { header: 'Notifies about', cell: (p) => SWITCHES.filter(([k]) => p[k]).map(([, l]) => l).join(', ') || 'nothing' },
                { header: 'Last test', cell: (p) => (p.lastTestStatus ? `${p.lastTestStatus}: ${p.lastTestMessage ?? ''}` : 'never') },
                { header: 'Tested', cell: (p) => <When at={p.lastTestedAt} /> },
                {
                  header: 'Actions',
                  cell: (p) =>
                    manage ? (
                      <div className="actions">
                        <button type="button" disabled={test.isPending} onClick={() => test.mutate(p)} aria-label={`Send test through ${p.name}`} aria-busy={test.isPending && test.variables?.id === p.id}>
                          Send test
                        </button>
                        <button type="button" onClick={() => setEditing(p)} aria-label={`Edit ${p.name}`}>
                          Edit
                        </button>
                        {confirming === p.id ? (
                          <>
                            <button type="button" className="danger" disabled={remove.isPending} onClick={() => remove.mutate(p.id)} aria-label={`Yes, delete ${p.name}`}>
                              Yes, delete
                            </button>
                            <button type="button" onClick={() => setConfirming(null)}>
                              Keep
                            </button>
                          </>
                        ) : (
                          <button type="button" className="danger" onClick={() => setConfirming(p.id)} aria-label={`Delete ${p.name}`}>
                            Delete
                          </button>
                        )}
                      </div>
                    ) : null,
                },
              ]}
            />
          )
        }
      </QueryView>
    </section>
  );
}

function target(p: Provider): string {
  const c = p.config as Record<string, unknown>;
  if (p.type === 'SMTP') {
    const to = Array.isArray(c.recipients) && c.recipients.length ? (c.recipients as string[]).join(', ') : String(c.from ?? '');
    return `${to} via ${String(c.host ?? '')}:${String(c.port ?? '')}`;
  }
  return `${String(c.url ?? '')} (${String(c.format ?? 'GENERIC')})`;
}

function ProviderForm({ provider, onDone }: { provider: Provider | null; onDone: () => void }) {
  const qc = useQueryClient();
  const { me } = useSession();
  const c = (provider?.config ?? {}) as Record<string, unknown>;
  const str = (k: string, d = '') => (c[k] === undefined || c[k] === null ? d : String(c[k]));
  const [kind, setKind] = useState<Kind>((provider?.type as Kind) ?? 'SMTP');
  const [name, setName] = useState(provider?.name ?? '');
  const [isDefault, setIsDefault] = useState(provider?.isDefault ?? false);
  const [host, setHost] = useState(str('host'));
  const [port, setPort] = useState(str('port', '587'));
  const [username, setUsername] = useState(str('username'));
  const [password, setPassword] = useState('');
  const [from, setFrom] = useState(str('from'));
  const [recipients, setRecipients] = useState(Array.isArray(c.recipients) ? (c.recipients as string[]).join(', ') : '');
  const [caCert, setCaCert] = useState(str('caCert'));
  const [url, setUrl] = useState(str('url'));
  const [format, setFormat] = useState(str('format', 'GENERIC'));
  const [secret, setSecret] = useState('');
  const [switches, setSwitches] = useState<Record<SwitchName, boolean>>(() => Object.fromEntries(SWITCHES.map(([k]) => [k, provider ? provider[k] : k === 'notifyNodeDowntime'])) as Record<SwitchName, boolean>);
  const webhookGated = !editionAtLeast(me.edition, 'pro');
  const m = useMutation({
    mutationFn: () => {
      const config: Record<string, unknown> =
        kind === 'SMTP'
          ? {
              host,
              port: Number(port),
              username,
              from,
              recipients: recipients.split(/[\s,]+/).filter(Boolean),
              ...(password ? { password } : {}),
              ...(caCert.trim() ? { caCert: caCert.trim() } : {}),
            }
          : { url, format, ...(secret ? { secret } : {}) };
      const body = { name, isDefault, config, ...switches };
      return provider
        ? unwrap(api.PUT('/api/v1/notifications/providers/{id}', { params: { path: { id: provider.id } }, body }))
        : unwrap(api.POST('/api/v1/notifications/providers', { body: { type: kind, ...body } }));
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['notification-providers'] });
      onDone();
    },
  });
  const title = provider ? `Edit ${provider.name}` : 'New notification provider';
  return (
    <form
      className="card form-grid"
      aria-labelledby="provider-form-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h2 id="provider-form-title">{title}</h2>
      {!provider ? (
        <label>
          Type
          <select {...invalid(m.error, 'type')} value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
            <option value="SMTP">Email (SMTP)</option>
            <option value="WEBHOOK">Webhook{webhookGated ? ' (needs the pro edition)' : ''}</option>
          </select>
          <FieldError error={m.error} field="type" />
        </label>
      ) : null}
      {kind === 'WEBHOOK' && webhookGated ? (
        <p className="state error" role="alert">
          Webhook notification providers need the pro edition; this server runs the {me.edition} edition.
        </p>
      ) : null}
      <label>
        Name
        <input {...invalid(m.error, 'name')} required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        <FieldError error={m.error} field="name" />
      </label>
      {kind === 'SMTP' ? (
        <>
          <label>
            SMTP host
            <input {...invalid(m.error, 'config.host')} required value={host} onChange={(e) => setHost(e.target.value)} placeholder="smtp.example.com" />
            <FieldError error={m.error} field="config.host" />
          </label>
          <label>
            Port
            <select {...invalid(m.error, 'config.port')} value={port} onChange={(e) => setPort(e.target.value)}>
              <option value="587">587 (STARTTLS)</option>
              <option value="465">465 (TLS)</option>
              <option value="25">25 (plain)</option>
            </select>
            <FieldError error={m.error} field="config.port" />
          </label>
          <label>
            SMTP username
            <input {...invalid(m.error, 'config.username')} required value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="off" />
            <FieldError error={m.error} field="config.username" />
          </label>
          <label>
            {provider ? 'SMTP password (empty: keep the stored one)' : 'SMTP password'}
            <input {...invalid(m.error, 'config.password')} type="password" required={!provider} value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" />
            <FieldError error={m.error} field="config.password" />
          </label>
          <label>
            From address
            <input {...invalid(m.error, 'config.from')} type="email" required value={from} onChange={(e) => setFrom(e.target.value)} />
            <FieldError error={m.error} field="config.from" />
          </label>
          <label>
            Recipients (comma separated; empty: the from address)
            <input {...invalid(m.error, 'config.recipients')} value={recipients} onChange={(e) => setRecipients(e.target.value)} />
            <FieldError error={m.error} field="config.recipients" />
          </label>
          <label>
            CA certificate of the mail server, PEM (optional)
            <textarea {...invalid(m.error, 'config.caCert')} className="code" rows={4} spellCheck={false} value={caCert} onChange={(e) => setCaCert(e.target.value)} />
            <FieldError error={m.error} field="config.caCert" />
          </label>
        </>
      ) : (
        <>
          <label>
            URL
            <input {...invalid(m.error, 'config.url')} type="url" required value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://hooks.example.com/…" />
            <FieldError error={m.error} field="config.url" />
          </label>
          <label>
            Format
            <select {...invalid(m.error, 'config.format')} value={format} onChange={(e) => setFormat(e.target.value)}>
              <option value="GENERIC">Generic JSON</option>
              <option value="SLACK">Slack</option>
              <option value="DISCORD">Discord</option>
            </select>
            <FieldError error={m.error} field="config.format" />
          </label>
          <label>
            {provider ? 'Signing secret (empty: keep the stored one)' : 'Signing secret (optional)'}
            <input {...invalid(m.error, 'config.secret')} type="password" value={secret} onChange={(e) => setSecret(e.target.value)} autoComplete="new-password" />
            <FieldError error={m.error} field="config.secret" />
          </label>
        </>
      )}
      <fieldset>
        <legend>Notify about</legend>
        {SWITCHES.map(([k, label]) => (
          <label key={k} className="inline">
            <input type="checkbox" checked={switches[k]} onChange={(e) => setSwitches({ ...switches, [k]: e.target.checked })} />
            {label}
          </label>
        ))}
      </fieldset>
      <label className="inline">
        <input type="checkbox" checked={isDefault} onChange={(e) => setIsDefault(e.target.checked)} />
        Default provider (also receives notices without a switch)
      </label>
      <ActionError error={m.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={m.isPending || (kind === 'WEBHOOK' && webhookGated)}>
          {provider ? 'Save changes' : 'Add provider'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
