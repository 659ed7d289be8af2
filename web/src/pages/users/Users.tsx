// Users (list, create, edit, change role, reset another user's password, delete) and API keys
// (yours, or everyone's with API_KEY_MANAGE; a new key's secret is shown once).
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { ConfirmDelete } from '../../components/ConfirmDelete';
import { Can, editionAtLeast, useSession } from '../../session';
import { ActionError, Fresh, QueryView, FormActions, FieldError, invalid } from '../../components/states';
import { When } from '../../components/format';
import { DataTable } from '../../components/DataTable';

const ROLES = ['ADMIN', 'OPERATOR', 'VIEWER'] as const;
type Role = (typeof ROLES)[number];
type User = { id: number; username: string };

export default function Users() {
  const { can, me } = useSession();
  const qc = useQueryClient();
  const users = useQuery({ queryKey: ['users'], enabled: can('USER_READ'), queryFn: () => unwrap(api.GET('/api/v1/users', { params: { query: { limit: 500 } } })) });
  const setRole = useMutation({
    mutationFn: ({ id, role }: { id: number; role: Role }) => unwrap(api.PUT('/api/v1/users/{id}/role', { params: { path: { id } }, body: { role } })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['users'] }),
  });
  const [acting, setActing] = useState<{ u: User; what: 'edit' | 'password' | 'delete' } | null>(null);
  const close = () => setActing(null);
  return (
    <section>
      <h1>Users and API keys</h1>
      {can('USER_READ') ? (
        <>
          <h2>Users</h2>
          <Can permission="USER_CREATE">
            <CreateUser />
          </Can>
          <ActionError error={setRole.error} />
          {acting?.what === 'edit' ? <EditUser key={acting.u.id} id={acting.u.id} onDone={close} /> : null}
          {acting?.what === 'password' ? <ResetPassword key={acting.u.id} u={acting.u} onDone={close} /> : null}
          {acting?.what === 'delete' ? (
            <ConfirmDelete
              key={acting.u.id}
              title={`Delete the user ${acting.u.username}?`}
              name={acting.u.username}
              action={() => unwrap(api.DELETE('/api/v1/users/{id}', { params: { path: { id: acting.u.id } } }))}
              onDeleted={async () => {
                await qc.invalidateQueries({ queryKey: ['users'] });
                close();
              }}
              onCancel={close}
              inUse={{ title: 'The user was not deleted (409).', help: 'The last ADMIN cannot be deleted: give another user the ADMIN role first.' }}
            >
              <p>The user can no longer sign in; their sessions and API keys stop working at once. What they did stays in the audit log under their name.</p>
            </ConfirmDelete>
          ) : null}
          <QueryView q={users} what="Loading users">
            {(d) => (
              <DataTable
                caption="Users"
                rows={d.items}
                rowKey={(u) => u.id}
                columns={[
                  { header: 'Username', cell: (u) => u.username },
                  {
                    header: 'Role',
                    cell: (u) =>
                      can('USER_ROLE_ASSIGN') && u.id !== me.id ? (
                        <select aria-label={`Role of ${u.username}`} value={u.role} disabled={setRole.isPending} onChange={(e) => setRole.mutate({ id: u.id, role: e.target.value as Role })}>
                          {ROLES.map((r) => (
                            <option key={r}>{r}</option>
                          ))}
                        </select>
                      ) : (
                        u.role
                      ),
                  },
                  { header: 'Email', cell: (u) => u.email ?? '' },
                  { header: 'Last sign-in', cell: (u) => <When at={u.lastLoginAt} /> },
                  ...(can('USER_UPDATE') || can('USER_PASSWORD_RESET') || can('USER_DELETE')
                    ? [
                        {
                          header: 'Actions',
                          cell: (u: User) => (
                            <div className="actions">
                              {can('USER_UPDATE') ? (
                                <button type="button" onClick={() => setActing({ u, what: 'edit' })} aria-label={`Edit user ${u.username}`}>
                                  Edit
                                </button>
                              ) : null}
                              {can('USER_PASSWORD_RESET') && u.id !== me.id ? (
                                <button type="button" onClick={() => setActing({ u, what: 'password' })} aria-label={`Reset password of ${u.username}`}>
                                  Reset password
                                </button>
                              ) : null}
                              {can('USER_DELETE') && u.id !== me.id ? (
                                <button type="button" className="danger" onClick={() => setActing({ u, what: 'delete' })} aria-label={`Delete user ${u.username}`}>
                                  Delete
                                </button>
                              ) : null}
                            </div>
                          ),
                        },
                      ]
                    : []),
                ]}
              />
            )}
          </QueryView>
        </>
      ) : null}
      <ApiKeys />
      {can('ROLE_READ') ? <RolesAndPermissions /> : null}
    </section>
  );
}

/** Change a user's username or email, read fresh from GET /users/{id}. */
function EditUser({ id, onDone }: { id: number; onDone: () => void }) {
  return (
    <div className="card" role="group" aria-labelledby="edit-user-title">
      <h3 id="edit-user-title">Edit user</h3>
      <Fresh queryKey={['users', id]} load={() => unwrap(api.GET('/api/v1/users/{id}', { params: { path: { id } } }))} what="Loading the user">
        {(u) => <EditUserForm id={id} username={u.username} email={u.email ?? ''} onDone={onDone} />}
      </Fresh>
    </div>
  );
}

function EditUserForm({ id, username: was, email: wasEmail, onDone }: { id: number; username: string; email: string; onDone: () => void }) {
  const qc = useQueryClient();
  const [username, setUsername] = useState(was);
  const [email, setEmail] = useState(wasEmail);
  const m = useMutation({
    mutationFn: () =>
      unwrap(api.PUT('/api/v1/users/{id}', { params: { path: { id } }, body: { ...(username !== was ? { username } : {}), ...(email !== wasEmail ? { email: email.trim() || null } : {}) } })),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['users'] });
      onDone();
    },
  });
  return (
    <form
      className="form-grid"
      aria-label={`Edit user ${was}`}
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <label>
        Username
        <input {...invalid(m.error, 'username')} required maxLength={64} value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="off" />
        <FieldError error={m.error} field="username" />
      </label>
      <label>
        Email (optional)
        <input {...invalid(m.error, 'email')} type="email" maxLength={254} value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="off" />
        <FieldError error={m.error} field="email" />
      </label>
      <FormActions m={m} label="Save user" pendingLabel="Saving…" onCancel={onDone} disabled={(username === was && email === wasEmail)} />
    </form>
  );
}

/** 20 characters from a 57-letter alphabet (no look-alikes): about 116 bits. */
function generatePassword(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  const out: string[] = [];
  const buf = new Uint8Array(64);
  while (out.length < 20) {
    crypto.getRandomValues(buf);
    for (const b of buf) if (b < alphabet.length * 4 && out.length < 20) out.push(alphabet[b % alphabet.length]);
  }
  return out.join('');
}

/** An ADMIN sets another user's password (their sessions end); a generated one is shown once. */
function ResetPassword({ u, onDone }: { u: User; onDone: () => void }) {
  const [password, setPassword] = useState('');
  const [generated, setGenerated] = useState(false);
  const [shown, setShown] = useState<string | null>(null);
  const m = useMutation({
    mutationFn: (pw: string) => unwrap(api.PUT('/api/v1/users/{id}/password', { params: { path: { id: u.id } }, body: { password: pw } })),
    onSuccess: (_r, pw) => {
      setPassword('');
      if (generated) setShown(pw);
      else onDone();
    },
  });
  if (shown) {
    return (
      <div className="secret-once card" role="status">
        <strong>The new password of {u.username}: copy it now, it is not shown again.</strong> Their sessions have ended; hand it to them to sign in.
        <p>
          <code className="hash" data-testid="generated-password">{shown}</code>
        </p>
        <button type="button" onClick={onDone}>
          I have copied it
        </button>
      </div>
    );
  }
  return (
    <form
      className="card form-grid"
      aria-labelledby="reset-password-title"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate(password);
      }}
    >
      <h3 id="reset-password-title">Reset the password of {u.username}</h3>
      <p className="hint">Their sessions end at once; they sign in again with the new password.</p>
      <label>
        New password (at least 12 characters)
        <input
          {...invalid(m.error, 'password')}
          required
          type={generated ? 'text' : 'password'}
          minLength={12}
          value={password}
          onChange={(e) => {
            setGenerated(false);
            setPassword(e.target.value);
          }}
          autoComplete="new-password"
        />
        <FieldError error={m.error} field="password" />
      </label>
      <ActionError error={m.error} />
      <div className="actions">
        <button
          type="button"
          onClick={() => {
            setGenerated(true);
            setPassword(generatePassword());
          }}
        >
          Generate one
        </button>
        <button type="submit" className="primary" disabled={m.isPending}>
          {m.isPending ? 'Setting…' : 'Set password'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** What each role may do (GET /permissions), the table the API checks every request against. */
function RolesAndPermissions() {
  const q = useQuery({ queryKey: ['permissions'], staleTime: Infinity, queryFn: () => unwrap(api.GET('/api/v1/permissions')) });
  const roles = Object.keys(q.data?.roles ?? {});
  return (
    <>
      <h2>Roles and permissions</h2>
      <QueryView q={q} what="Loading the permissions">
        {(d) => (
          <DataTable
            caption="What each role may do"
            empty="The service reports no permissions."
            rows={d.permissions}
            rowKey={(p) => p.name}
            columns={[
              { header: 'Permission', cell: (p) => <code>{p.name}</code> },
              { header: 'What it allows', cell: (p) => p.description },
              ...roles.map((r) => ({ header: r, cell: (p: { roles: string[] }) => (p.roles.includes(r) ? 'yes' : '—') })),
            ]}
          />
        )}
      </QueryView>
    </>
  );
}

function CreateUser() {
  const qc = useQueryClient();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('VIEWER');
  const [created, setCreated] = useState<string | null>(null);
  const m = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/users', { body: { username, password, role } })),
    onMutate: () => setCreated(null),
    onSuccess: async (user) => {
      setCreated(`User ${user.username} created (${user.role}).`);
      setUsername('');
      setPassword('');
      await qc.invalidateQueries({ queryKey: ['users'] });
    },
  });
  return (
    <form
      className="filters card"
      aria-label="New user"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        m.mutate();
      }}
    >
      <label>
        Username
        <input {...invalid(m.error, 'username')} required value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="off" />
        <FieldError error={m.error} field="username" />
      </label>
      <label>
        Password
        <input {...invalid(m.error, 'password')} required type="password" minLength={12} value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="new-password" />
        <FieldError error={m.error} field="password" />
      </label>
      <label>
        Role
        <select {...invalid(m.error, 'role')} value={role} onChange={(e) => setRole(e.target.value as Role)}>
          {ROLES.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
        <FieldError error={m.error} field="role" />
      </label>
      <button type="submit" className="primary" disabled={m.isPending}>
        Create user
      </button>
      <ActionError error={m.error} />
      {created ? (
        <p role="status" data-testid="user-created">
          {created}
        </p>
      ) : null}
    </form>
  );
}

function ApiKeys() {
  const { can, me } = useSession();
  const qc = useQueryClient();
  const keys = useQuery({ queryKey: ['api-keys'], enabled: can('API_KEY_READ') && editionAtLeast(me.edition, 'pro'), queryFn: () => unwrap(api.GET('/api/v1/api-keys', { params: { query: { limit: 500 } } })) });
  const [name, setName] = useState('');
  const [days, setDays] = useState('90');
  const [scopes, setScopes] = useState<string[]>([]);
  const [secret, setSecret] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/api/v1/api-keys', { body: { name, expiresInDays: Number(days), ...(scopes.length ? { scopes } : {}) } })),
    onSuccess: async (r) => {
      setSecret(r.key);
      setName('');
      setScopes([]);
      await qc.invalidateQueries({ queryKey: ['api-keys'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: number) => unwrap(api.DELETE('/api/v1/api-keys/{id}', { params: { path: { id } } })),
    onSettled: () => qc.invalidateQueries({ queryKey: ['api-keys'] }),
  });
  if (!can('API_KEY_READ')) return null;
  if (!editionAtLeast(me.edition, 'pro')) {
    return (
      <>
        <h2>API keys</h2>
        <p className="hint">API keys need the pro edition; this server runs the {me.edition} edition. Scripts sign in with a user's password (Basic) instead.</p>
      </>
    );
  }
  return (
    <>
      <h2>API keys</h2>
      <Can permission="API_KEY_CREATE">
        <form
          className="filters card"
          aria-label="New API key"
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <label>
            Key name
            <input {...invalid(create.error, 'name')} required value={name} onChange={(e) => setName(e.target.value)} />
            <FieldError error={create.error} field="name" />
          </label>
          <label>
            Expires after (days)
            <input {...invalid(create.error, 'expiresInDays')} type="number" min={1} max={3650} required value={days} onChange={(e) => setDays(e.target.value)} />
            <FieldError error={create.error} field="expiresInDays" />
          </label>
          <label>
            Scopes (none picked: all of your permissions)
            <select {...invalid(create.error, 'scopes')} multiple size={4} value={scopes} onChange={(e) => setScopes(Array.from(e.target.selectedOptions).map((o) => o.value))}>
              {me.permissions.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
            <FieldError error={create.error} field="scopes" />
          </label>
          <button type="submit" className="primary" disabled={create.isPending}>
            Create API key
          </button>
          <ActionError error={create.error} />
        </form>
      </Can>
      {secret ? (
        <div className="secret-once" role="status">
          <strong>Copy the key now: it is not shown again.</strong> Send it as the X-API-Key header.
          <p>
            <code className="hash" data-testid="api-key-secret">{secret}</code>
          </p>
          <button type="button" onClick={() => setSecret(null)}>
            I have copied it
          </button>
        </div>
      ) : null}
      <ActionError error={revoke.error} />
      <QueryView q={keys} what="Loading API keys">
        {(d) => (
          <DataTable
            empty="No API keys."
            caption="API keys"
            rows={d.items}
            rowKey={(k) => k.id}
            columns={[
              { header: 'Name', cell: (k) => k.name },
              { header: 'Owner', cell: (k) => k.username },
              { header: 'Prefix', cell: (k) => <code>{k.displayPrefix}</code> },
              { header: 'Scopes', cell: (k) => ((k as { scopes?: string[] | null }).scopes?.length ? (k as { scopes: string[] }).scopes.join(', ') : 'all of the owner\'s') },
              { header: 'Status', cell: (k) => k.status },
              { header: 'Expires', cell: (k) => <When at={k.expiresAt} /> },
              {
                header: 'Actions',
                cell: (k) =>
                  k.status === 'active' && can('API_KEY_REVOKE') ? (
                    <button type="button" className="danger" disabled={revoke.isPending} onClick={() => revoke.mutate(k.id)} aria-label={`Revoke API key ${k.name}`}>
                      Revoke
                    </button>
                  ) : null,
              },
            ]}
          />
        )}
      </QueryView>
    </>
  );
}
