// The audit log: a table filtered by user, action, resource type, status and dates, paged by
// the server (it holds hundreds of thousands of entries); an entry's detail with before and
// after; and verifying the hash chain over a range (valid, or the first altered entry).
import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { api, ApiError, CONSOLE_HEADERS, unwrap, type Json } from '../../api/client';
import { ActionError, Empty, QueryView, FieldError, invalid } from '../../components/states';
import { Pager, When } from '../../components/format';
import { Can, useSession } from '../../session';

/** The users to pick from (by name) where the role may list them; otherwise a user id is typed. */
function useUsers() {
  const { can } = useSession();
  return useQuery({ queryKey: ['users', 'all'], enabled: can('USER_READ'), queryFn: () => unwrap(api.GET('/api/v1/users', { params: { query: { limit: 500 } } })) });
}

function UserPicker({ label, value, onChange, anyLabel, error = null, field = 'user_id' }: { label: string; value: string; onChange: (v: string) => void; anyLabel: string; error?: unknown; field?: string }) {
  const users = useUsers();
  if (!users.data) {
    return (
      <label>
        {label} (user id)
        <input type="number" min={1} value={value} onChange={(e) => onChange(e.target.value)} {...invalid(error, field)} />
        <FieldError error={error} field={field} />
      </label>
    );
  }
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value)} {...invalid(error, field)}>
        <option value="">{anyLabel}</option>
        {users.data.items.map((u) => (
          <option key={u.id} value={u.id}>
            {u.username} ({u.role})
          </option>
        ))}
      </select>
      <FieldError error={error} field={field} />
    </label>
  );
}

const PAGE = 50;
type Entry = Json<'/api/v1/audit-logs', 'get'>['items'][number];
const FILTERS = ['user_id', 'action', 'resource_type', 'status', 'start_date', 'end_date'] as const;

export default function Audit() {
  const [params, setParams] = useSearchParams();
  const offset = Number(params.get('offset') ?? 0) || 0;
  const filters = Object.fromEntries(FILTERS.map((f) => [f, params.get(f) ?? '']));
  const [draft, setDraft] = useState(filters);
  const [selected, setSelected] = useState<number | null>(null);
  const query = {
    limit: PAGE,
    offset,
    ...(filters.user_id ? { user_id: Number(filters.user_id) } : {}),
    ...(filters.action ? { action: filters.action } : {}),
    ...(filters.resource_type ? { resource_type: filters.resource_type } : {}),
    ...(filters.status ? { status: filters.status as 'success' | 'failed' | 'denied' } : {}),
    ...(filters.start_date ? { start_date: new Date(filters.start_date).toISOString() } : {}),
    ...(filters.end_date ? { end_date: new Date(filters.end_date).toISOString() } : {}),
  };
  const q = useQuery({ queryKey: ['audit', query], placeholderData: keepPreviousData, queryFn: () => unwrap(api.GET('/api/v1/audit-logs', { params: { query } })) });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    const next = new URLSearchParams();
    for (const f of FILTERS) if (draft[f]) next.set(f, draft[f]);
    setParams(next);
  };
  const setOffset = (o: number) => {
    const next = new URLSearchParams(params);
    next.set('offset', String(o));
    setParams(next);
  };
  return (
    <section>
      <h1>Audit</h1>
      <Verify />
      <Can permission="REPORT_GENERATE">
        <Reports />
      </Can>
      <form className="filters card" role="search" aria-label="Filter audit entries" onSubmit={apply}>
        <UserPicker label="User" anyLabel="Any user" value={draft.user_id} onChange={(v) => setDraft({ ...draft, user_id: v })} />
        <label>
          Action
          <input value={draft.action} onChange={(e) => setDraft({ ...draft, action: e.target.value })} placeholder="e.g. NODE_STARTED" />
        </label>
        <label>
          Resource type
          <input value={draft.resource_type} onChange={(e) => setDraft({ ...draft, resource_type: e.target.value })} placeholder="e.g. NODE" />
        </label>
        <label>
          Status
          <select value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.target.value })}>
            <option value="">Any</option>
            <option value="success">Success</option>
            <option value="failed">Failed</option>
            <option value="denied">Denied</option>
          </select>
        </label>
        <label>
          From
          <input type="datetime-local" value={draft.start_date} onChange={(e) => setDraft({ ...draft, start_date: e.target.value })} />
        </label>
        <label>
          To
          <input type="datetime-local" value={draft.end_date} onChange={(e) => setDraft({ ...draft, end_date: e.target.value })} />
        </label>
        <button type="submit">Apply filters</button>
      </form>
      <QueryView q={q} what="Loading audit entries">
        {(d) =>
          d.items.length === 0 ? (
            <Empty>No audit entry matches.</Empty>
          ) : (
            <>
              <table className={q.isFetching ? 'refreshing' : undefined}>
                <caption className="sr-only">Audit entries, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Id</th>
                    <th scope="col">When</th>
                    <th scope="col">User</th>
                    <th scope="col">Action</th>
                    <th scope="col">Resource</th>
                    <th scope="col">Status</th>
                  </tr>
                </thead>
                <tbody>
                  {d.items.map((e) => (
                    <tr key={e.id} aria-selected={selected === e.id}>
                      <td>
                        <button type="button" className="link" onClick={() => setSelected(e.id)} aria-label={`Show audit entry ${e.id}`}>
                          {e.id}
                        </button>
                      </td>
                      <td>
                        <When at={e.timestamp} />
                      </td>
                      <td>{e.user}</td>
                      <td>{e.action}</td>
                      <td>
                        {e.resource_type}
                        {e.resource_name ? ` ${e.resource_name}` : e.resource_id ? ` #${e.resource_id}` : ''}
                      </td>
                      <td>{e.status}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager total={d.total} limit={PAGE} offset={offset} onOffset={setOffset} />
              {d.total > PAGE ? <JumpToPage pages={Math.ceil(d.total / PAGE)} onPage={(n) => setOffset((n - 1) * PAGE)} /> : null}
            </>
          )
        }
      </QueryView>
      {selected !== null ? <EntryDetail id={selected} onClose={() => setSelected(null)} /> : null}
    </section>
  );
}

/** Hundreds of thousands of entries are thousands of pages: go to one by its number (the server pages). */
function JumpToPage({ pages, onPage }: { pages: number; onPage: (n: number) => void }) {
  const [n, setN] = useState('');
  return (
    <form
      className="pager"
      aria-label="Go to a page"
      onSubmit={(e) => {
        e.preventDefault();
        const page = Math.min(pages, Math.max(1, Math.floor(Number(n)) || 1));
        onPage(page);
      }}
    >
      <button type="button" onClick={() => onPage(1)}>
        First page
      </button>
      <label className="inline">
        Page
        <input type="number" min={1} max={pages} value={n} onChange={(e) => setN(e.target.value)} />
      </label>
      <button type="submit">Go</button>
      <button type="button" onClick={() => onPage(pages)}>
        Last page
      </button>
    </form>
  );
}

function EntryDetail({ id, onClose }: { id: number; onClose: () => void }) {
  const q = useQuery({ queryKey: ['audit', 'entry', id], queryFn: () => unwrap(api.GET('/api/v1/audit-logs/{logId}', { params: { path: { logId: id } } })) as Promise<Entry> });
  return (
    <article className="card" aria-labelledby="entry-title">
      <div className="title-row">
        <h2 id="entry-title">Audit entry {id}</h2>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <QueryView q={q} what="Loading entry">
        {(e) => (
          <>
            <dl className="facts">
              <dt>When</dt>
              <dd>
                <When at={e.timestamp} />
              </dd>
              <dt>User</dt>
              <dd>{e.user}</dd>
              <dt>Action</dt>
              <dd>{e.action}</dd>
              <dt>Resource</dt>
              <dd>
                {e.resource_type} {e.resource_name ?? e.resource_id ?? ''}
              </dd>
              <dt>Status</dt>
              <dd>{e.status}</dd>
              <dt>Request</dt>
              <dd>
                {e.method ?? ''} {e.endpoint ?? ''} {e.response_code ?? ''}
              </dd>
              <dt>From</dt>
              <dd>{e.ip_address ?? '—'}</dd>
              {e.error_message ? (
                <>
                  <dt>Error</dt>
                  <dd>{e.error_message}</dd>
                </>
              ) : null}
            </dl>
            <div className="before-after">
              <div>
                <h3>Before</h3>
                <pre>{JSON.stringify(e.before ?? null, null, 2)}</pre>
              </div>
              <div>
                <h3>After</h3>
                <pre>{JSON.stringify(e.after ?? null, null, 2)}</pre>
              </div>
            </div>
            <details>
              <summary>Details</summary>
              <pre>{JSON.stringify(e.details ?? null, null, 2)}</pre>
            </details>
          </>
        )}
      </QueryView>
    </article>
  );
}

function Verify() {
  const [start, setStart] = useState('1');
  const [end, setEnd] = useState('');
  const m = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/audit-logs/verify', { body: { start_id: Number(start), ...(end ? { end_id: Number(end) } : {}) } })),
  });
  return (
    <form
      className="card verify"
      aria-labelledby="verify-title"
      onSubmit={(e) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <h2 id="verify-title">Verify the hash chain</h2>
      <div className="filters">
        <label>
          From entry
          <input {...invalid(m.error, 'start_id')} type="number" min={1} required value={start} onChange={(e) => setStart(e.target.value)} />
          <FieldError error={m.error} field="start_id" />
        </label>
        <label>
          To entry (empty: the last)
          <input {...invalid(m.error, 'end_id')} type="number" min={1} value={end} onChange={(e) => setEnd(e.target.value)} />
          <FieldError error={m.error} field="end_id" />
        </label>
        <button type="submit" disabled={m.isPending}>
          {m.isPending ? 'Verifying…' : 'Verify'}
        </button>
      </div>
      <ActionError error={m.error} />
      {m.data ? (
        <div className={`verdict ${m.data.valid ? 'valid' : 'invalid'}`} role="status" data-testid="verify-result">
          <strong>{m.data.valid ? 'Valid' : `Altered entry: ${m.data.first_invalid_id}`}</strong>
          <p>
            {m.data.message} ({m.data.checked} entries checked)
          </p>
        </div>
      ) : null}
      <Checkpoints />
    </form>
  );
}

/** The signed checkpoints of the chain's head (kept outside the database) that verify compares with; one signed now on demand. */
function Checkpoints() {
  const q = useQuery({ queryKey: ['audit', 'checkpoints'], queryFn: () => unwrap(api.GET('/api/v1/audit-logs/checkpoints', { params: { query: { limit: 5 } } })) });
  const sign = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/audit-logs/checkpoints')),
    onSuccess: () => void q.refetch(),
  });
  return (
    <div className="checkpoints" data-testid="audit-checkpoints">
      <h3>Checkpoints</h3>
      <p>Verify also checks that the chain still ends as these signed checkpoints recorded it.</p>
      <button type="button" onClick={() => sign.mutate()} disabled={sign.isPending}>
        {sign.isPending ? 'Signing…' : 'Sign a checkpoint now'}
      </button>
      <ActionError error={sign.error} />
      {q.data?.items.length ? (
        <ul>
          {q.data.items.map((c, i) => (
            <li key={i}>
              {c.signed ? `entry ${c.height}: ${c.head_hash?.slice(0, 16)}…` : 'not signed by this service'} {c.at ? <When at={c.at} /> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p>None yet.</p>
      )}
    </div>
  );
}

/** POSTs a report request and saves the answer (CSV or PDF) under the name the server gives. */
async function download(path: string, body: Record<string, unknown>, fallbackName: string): Promise<void> {
  const r = await fetch(path, { method: 'POST', credentials: 'same-origin', headers: { ...CONSOLE_HEADERS, 'content-type': 'application/json', accept: '*/*' }, body: JSON.stringify(body) });
  if (!r.ok) throw ApiError.from(r, await r.json().catch(() => null));
  const name = /filename="?([^";]+)"?/.exec(r.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await r.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function Reports() {
  const today = new Date().toISOString().slice(0, 10);
  const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
  const [start, setStart] = useState(monthAgo);
  const [end, setEnd] = useState(today);
  const [userId, setUserId] = useState('');
  const activity = useMutation({ mutationFn: () => download('/api/v1/reports/activity', { start_date: start, end_date: end, format: 'csv' }, `activity-${start}-${end}.csv`) });
  const access = useMutation({ mutationFn: () => download('/api/v1/reports/user-access', { user_id: Number(userId), start_date: start, end_date: end, format: 'pdf' }, `user-access-${userId}.pdf`) });
  return (
    <form className="card" aria-labelledby="reports-title" onSubmit={(e) => e.preventDefault()}>
      <h2 id="reports-title">Reports</h2>
      <div className="filters">
        <label>
          From day
          <input {...invalid(activity.error ?? access.error, 'start_date')} type="date" required value={start} onChange={(e) => setStart(e.target.value)} />
          <FieldError error={activity.error ?? access.error} field="start_date" />
        </label>
        <label>
          To day
          <input {...invalid(activity.error ?? access.error, 'end_date')} type="date" required value={end} onChange={(e) => setEnd(e.target.value)} />
          <FieldError error={activity.error ?? access.error} field="end_date" />
        </label>
        <button type="button" disabled={activity.isPending} onClick={() => activity.mutate()}>
          Download activity (CSV)
        </button>
        <UserPicker label="User (access report)" anyLabel="Pick a user" value={userId} onChange={setUserId} error={access.error} />
        <button type="button" disabled={access.isPending || !userId} onClick={() => access.mutate()}>
          Download user access (PDF)
        </button>
      </div>
      <ActionError error={activity.error ?? access.error} />
    </form>
  );
}
