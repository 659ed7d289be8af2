// Outbound webhooks: the list with their state, and a create form whose events are picked
// from the service's catalog (GET /webhooks/events).
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ActionError, QueryView } from '../../components/states';
import { DataTable } from '../../components/DataTable';
import { Can } from '../../session';
import { When } from '../../components/format';

export default function Webhooks() {
  const q = useQuery({ queryKey: ['webhooks'], queryFn: () => unwrap(api.GET('/api/v1/webhooks', { params: { query: { limit: 500 } } })) });
  const [creating, setCreating] = useState(false);
  return (
    <section>
      <div className="title-row">
        <h1>Webhooks</h1>
        {!creating ? (
          <Can permission="system:configure">
            <button type="button" className="primary" onClick={() => setCreating(true)}>
              Create webhook
            </button>
          </Can>
        ) : null}
      </div>
      {creating ? <CreateWebhook onCancel={() => setCreating(false)} /> : null}
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

function CreateWebhook({ onCancel }: { onCancel: () => void }) {
  const qc = useQueryClient();
  const navigate = useNavigate();
  const catalog = useQuery({ queryKey: ['webhooks', 'events'], staleTime: Infinity, queryFn: () => unwrap(api.GET('/api/v1/webhooks/events')) });
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [events, setEvents] = useState<string[]>([]);
  const m = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/webhooks', { body: { name, url, events, ...(secret ? { secret } : {}) } })),
    onSuccess: async (w) => {
      await qc.invalidateQueries({ queryKey: ['webhooks'] });
      navigate(`/webhooks/${w.id}`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    m.mutate();
  };
  return (
    <form className="card form-grid" onSubmit={submit} aria-labelledby="create-webhook">
      <h2 id="create-webhook">New webhook</h2>
      <label>
        Name
        <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        URL
        <input required type="url" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/hooks/lnm" />
      </label>
      <label>
        Signing secret (optional)
        <input type="password" autoComplete="new-password" value={secret} onChange={(e) => setSecret(e.target.value)} aria-describedby="secret-help" />
        <small id="secret-help">Each delivery is signed with HMAC-SHA256 of its body (X-Webhook-Signature). Never shown again.</small>
      </label>
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
      </fieldset>
      <ActionError error={m.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={m.isPending || events.length === 0}>
          Create webhook
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
