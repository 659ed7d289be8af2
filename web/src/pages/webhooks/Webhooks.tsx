// Outbound webhooks: the list with their state, and the create (and edit, on the webhook's page)
// form whose events are picked from the service's catalog (GET /webhooks/events).
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ActionError, QueryView, FieldError, invalid } from '../../components/states';
import { DataTable } from '../../components/DataTable';
import { ListTitle } from '../../components/ListTitle';
import { When } from '../../components/format';

export default function Webhooks() {
  const q = useQuery({ queryKey: ['webhooks'], queryFn: () => unwrap(api.GET('/api/v1/webhooks', { params: { query: { limit: 500 } } })) });
  return (
    <section>
      <ListTitle title="Webhooks" permission="system:configure" open="Create webhook" form={(close) => <CreateWebhook onCancel={close} />} />
      <QueryView q={q} what="Loading webhooks">
        {(d) => (
          <DataTable
            caption="Webhooks"
            empty="No webhooks yet. A webhook posts the service's events to a URL of yours."
            rows={d.items}
            rowKey={(w) => w.id}
            columns={[
              { header: 'Name', cell: (w) => <Link to={`/webhooks/${w.id}`}>{w.name}</Link> },
              { header: 'URL', cell: (w) => <code>{w.url}</code> },
              { header: 'Events', cell: (w) => w.events.join(', ') },
              { header: 'State', cell: (w) => (w.enabled ? 'Enabled' : `Disabled${w.disabledReason ? `: ${w.disabledReason}` : ''}`) },
              { header: 'Created', cell: (w) => <When at={w.createdAt} /> },
            ]}
          />
        )}
      </QueryView>
    </section>
  );
}

type Webhook = Awaited<ReturnType<typeof readWebhook>>;
const readWebhook = (id: number) => unwrap(api.GET('/api/v1/webhooks/{id}', { params: { path: { id } } }));

function CreateWebhook({ onCancel }: { onCancel: () => void }) {
  const navigate = useNavigate();
  return <WebhookForm onCancel={onCancel} onSaved={(w) => navigate(`/webhooks/${w.id}`)} />;
}

/** Create a webhook, or change one (fields sent only when they differ; an empty secret keeps the current one). */
export function WebhookForm({ webhook, onCancel, onSaved }: { webhook?: Webhook; onCancel: () => void; onSaved: (w: { id: number }) => void }) {
  const qc = useQueryClient();
  const catalog = useQuery({ queryKey: ['webhooks', 'events'], staleTime: Infinity, queryFn: () => unwrap(api.GET('/api/v1/webhooks/events')) });
  const [name, setName] = useState(webhook?.name ?? '');
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [secret, setSecret] = useState('');
  const [removeSecret, setRemoveSecret] = useState(false);
  const [events, setEvents] = useState<string[]>(webhook?.events ?? []);
  const [timeoutSeconds, setTimeoutSeconds] = useState(String(webhook?.timeoutSeconds ?? ''));
  const [maxRetries, setMaxRetries] = useState(String(webhook?.maxRetries ?? ''));
  const [enabled, setEnabled] = useState(webhook?.enabled ?? true);
  const m = useMutation({
    mutationFn: () => {
      if (!webhook) return unwrap(api.POST('/api/v1/webhooks', { body: { name, url, events, ...(secret ? { secret } : {}) } }));
      const sameEvents = events.length === webhook.events.length && events.every((e) => webhook.events.includes(e));
      return unwrap(
        api.PUT('/api/v1/webhooks/{id}', {
          params: { path: { id: webhook.id } },
          body: {
            ...(name !== webhook.name ? { name } : {}),
            ...(url !== webhook.url ? { url } : {}),
            ...(sameEvents ? {} : { events }),
            ...(Number(timeoutSeconds) !== webhook.timeoutSeconds ? { timeoutSeconds: Number(timeoutSeconds) } : {}),
            ...(Number(maxRetries) !== webhook.maxRetries ? { maxRetries: Number(maxRetries) } : {}),
            ...(enabled !== webhook.enabled ? { enabled } : {}),
            ...(removeSecret ? { secret: null } : secret ? { secret } : {}),
          },
        }),
      );
    },
    onSuccess: async (w) => {
      await qc.invalidateQueries({ queryKey: ['webhooks'] });
      await qc.invalidateQueries({ queryKey: ['webhook', w.id] });
      onSaved(w);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    m.mutate();
  };
  const titleId = webhook ? 'edit-webhook' : 'create-webhook';
  return (
    <form className="card form-grid" onSubmit={submit} aria-labelledby={titleId}>
      <h2 id={titleId}>{webhook ? `Edit the webhook ${webhook.name}` : 'New webhook'}</h2>
      <label>
        Name
        <input {...invalid(m.error, 'name')} required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        <FieldError error={m.error} field="name" />
      </label>
      <label>
        URL
        <input {...invalid(m.error, 'url')} required type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/hooks/lnm" />
        <FieldError error={m.error} field="url" />
      </label>
      <label>
        {webhook?.hasSecret ? 'New signing secret (empty: keep the current one)' : 'Signing secret (optional)'}
        <input {...invalid(m.error, 'secret')} type="password" autoComplete="new-password" value={secret} disabled={removeSecret} onChange={(e) => setSecret(e.target.value)} aria-describedby="secret-help" />
        <FieldError error={m.error} field="secret" />
        <small id="secret-help">Each delivery is signed with HMAC-SHA256 of its body (X-Webhook-Signature). Never shown again.</small>
      </label>
      {webhook?.hasSecret ? (
        <label className="inline">
          <input type="checkbox" checked={removeSecret} onChange={(e) => setRemoveSecret(e.target.checked)} /> Remove the signing secret (deliveries go unsigned)
        </label>
      ) : null}
      {webhook ? (
        <>
          <label>
            Timeout (seconds)
            <input {...invalid(m.error, 'timeoutSeconds')} type="number" min={1} required value={timeoutSeconds} onChange={(e) => setTimeoutSeconds(e.target.value)} />
            <FieldError error={m.error} field="timeoutSeconds" />
          </label>
          <label>
            Retries after a failed delivery
            <input {...invalid(m.error, 'maxRetries')} type="number" min={0} required value={maxRetries} onChange={(e) => setMaxRetries(e.target.value)} />
            <FieldError error={m.error} field="maxRetries" />
          </label>
          <label className="inline">
            <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Enabled{webhook.enabled ? '' : ' (turning it on again resets its failure count)'}
          </label>
        </>
      ) : null}
      <fieldset>
        <legend>Events</legend>
        <QueryView q={catalog} what="Loading the event catalog">
          {(c) => (
            <div className="checklist">
              {c.events.map((ev) => (
                <label key={ev.name} className="inline" title={ev.description}>
                  <input type="checkbox" checked={events.includes(ev.name)} onChange={(e) => setEvents(e.target.checked ? [...events, ev.name] : events.filter((x) => x !== ev.name))} /> {ev.name}
                </label>
              ))}
            </div>
          )}
        </QueryView>
        <FieldError error={m.error} field="events" />
      </fieldset>
      <ActionError error={m.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={m.isPending || events.length === 0}>
          {webhook ? (m.isPending ? 'Saving…' : 'Save webhook') : 'Create webhook'}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
