// One webhook: edit and delete it, send a test (shows what the receiver answered), its
// deliveries with attempts, and replay of a delivery that gave up.
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ActionError, QueryView } from '../../components/states';
import { DataTable } from '../../components/DataTable';
import { Pager, When } from '../../components/format';
import { ConfirmDelete } from '../../components/ConfirmDelete';
import { Can } from '../../session';
import { WebhookForm } from './Webhooks';

export default function WebhookDetail() {
  const id = Number(useParams().id);
  const qc = useQueryClient();
  const [offset, setOffset] = useState(0);
  const [acting, setActing] = useState<'edit' | 'delete' | null>(null);
  const navigate = useNavigate();
  const hook = useQuery({ queryKey: ['webhook', id], queryFn: () => unwrap(api.GET('/api/v1/webhooks/{id}', { params: { path: { id } } })) });
  // Only for a webhook that is there: an unknown id is one not-found message, no test or deliveries.
  const deliveries = useQuery({
    enabled: hook.isSuccess,
    queryKey: ['webhook', id, 'deliveries', offset],
    refetchInterval: 3_000,
    queryFn: () => unwrap(api.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id }, query: { limit: 20, offset } } })),
  });
  const test = useMutation({ mutationFn: () => unwrap(api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id } } })) });
  const replay = useMutation({
    mutationFn: (deliveryId: string) => unwrap(api.POST('/api/v1/webhooks/{id}/replay/{deliveryId}', { params: { path: { id, deliveryId } } })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['webhook', id, 'deliveries'] }),
  });
  return (
    <section>
      <p className="crumbs">
        <Link to="/webhooks">Webhooks</Link> /
      </p>
      <QueryView q={hook} what="Loading webhook">
        {(w) => (
          <>
            <div className="title-row">
              <h1>{w.name}</h1>
              {acting === null ? (
                <Can permission="system:configure">
                  <div className="actions">
                    <button type="button" onClick={() => setActing('edit')}>
                      Edit
                    </button>
                    <button type="button" className="danger" onClick={() => setActing('delete')}>
                      Delete
                    </button>
                  </div>
                </Can>
              ) : null}
            </div>
            {acting === 'edit' ? <WebhookForm key={w.updatedAt} webhook={w} onCancel={() => setActing(null)} onSaved={() => setActing(null)} /> : null}
            {acting === 'delete' ? (
              <ConfirmDelete
                title={`Delete the webhook ${w.name}?`}
                name={w.name}
                action={() => unwrap(api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id } } }))}
                onDeleted={async () => {
                  qc.removeQueries({ queryKey: ['webhook', id] });
                  await qc.invalidateQueries({ queryKey: ['webhooks'] });
                  navigate('/webhooks');
                }}
                onCancel={() => setActing(null)}
              >
                <p>No further event is posted to {w.url}; deliveries still queued are cancelled. Past deliveries are no longer listed.</p>
              </ConfirmDelete>
            ) : null}
            <dl className="facts">
              <dt>URL</dt>
              <dd>
                <code>{w.url}</code>
              </dd>
              <dt>Events</dt>
              <dd>{w.events.join(', ')}</dd>
              <dt>State</dt>
              <dd>{w.enabled ? 'Enabled' : `Disabled${w.disabledReason ? `: ${w.disabledReason}` : ''}`}</dd>
              <dt>Signed</dt>
              <dd>{w.hasSecret ? 'yes' : 'no'}</dd>
              <dt>Timeout, retries</dt>
              <dd>
                {w.timeoutSeconds} s, {w.maxRetries}
              </dd>
            </dl>
          </>
        )}
      </QueryView>
      {hook.data ? (
        <>
      <article className="card" aria-labelledby="test-title">
        <h2 id="test-title">Test</h2>
        <p className="muted">Sends a sample event to the URL now and shows what the receiver answered.</p>
        <button type="button" className="primary" disabled={test.isPending} onClick={() => test.mutate()}>
          {test.isPending ? 'Sending…' : 'Send test'}
        </button>
        <ActionError error={test.error} />
        {test.data ? (
          <div className={`verdict ${test.data.success ? 'valid' : 'invalid'}`} role="status" data-testid="test-result">
            {test.data.results.map((r) => (
              <p key={r.event}>
                <strong>{r.success ? 'Delivered' : 'Failed'}</strong>: {r.event} — receiver answered{' '}
                <span data-testid="receiver-status">{r.statusCode ?? 'nothing'}</span> in {r.responseTimeMs} ms{r.error ? ` (${r.error})` : ''}
                {r.responseExcerpt ? (
                  <>
                    <br />
                    <code>{r.responseExcerpt}</code>
                  </>
                ) : null}
              </p>
            ))}
          </div>
        ) : null}
      </article>
      <h2>Deliveries</h2>
      <ActionError error={replay.error} />
      <QueryView q={deliveries} what="Loading deliveries">
        {(d) => (
          <>
            <DataTable
              caption="Deliveries, newest first"
              empty="No deliveries yet."
              rows={d.items}
              rowKey={(x) => x.id}
              columns={[
                { header: 'Created', cell: (x) => <When at={x.createdAt} /> },
                { header: 'Event', cell: (x) => x.eventType },
                { header: 'Status', cell: (x) => x.status },
                { header: 'Attempts', cell: (x) => `${x.attempt}/${x.maxAttempts}` },
                { header: 'Answer', cell: (x) => x.responseCode ?? x.error ?? '—' },
                {
                  header: 'Replay',
                  cell: (x) =>
                    ['exhausted', 'cancelled', 'failed'].includes(x.status.toLowerCase()) ? (
                      <button type="button" disabled={replay.isPending} onClick={() => replay.mutate(x.id)} aria-label={`Replay delivery ${x.id}`}>
                        Replay
                      </button>
                    ) : null,
                },
              ]}
            />
            {d.items.length ? <Pager total={d.total} limit={20} offset={offset} onOffset={setOffset} /> : null}
          </>
        )}
      </QueryView>
        </>
      ) : null}
    </section>
  );
}
