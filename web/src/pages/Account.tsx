// Your account: who you are, what your role allows, and changing your password (which ends
// every session of yours, so you sign in again).
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { signedOut, useSession } from '../session';
import { ActionError, FieldError, invalid } from '../components/states';

export default function Account() {
  const { me } = useSession();
  const qc = useQueryClient();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    if (next !== confirm) return setError(new Error('The new password and its confirmation differ.'));
    setBusy(true);
    try {
      await unwrap(api.POST('/api/v1/auth/change-password', { body: { currentPassword: current, newPassword: next } }));
      signedOut(qc);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section>
      <h1>Your account</h1>
      <dl className="facts">
        <dt>Username</dt>
        <dd>{me.username}</dd>
        <dt>Role</dt>
        <dd>{me.role}</dd>
        <dt>Signed in with</dt>
        <dd>{me.authMethod}</dd>
        <dt>Edition</dt>
        <dd>{me.edition}</dd>
      </dl>
      <form onSubmit={submit} className="card narrow">
        <h2>Change password</h2>
        <p className="muted">This ends all your sessions; you sign in again with the new password.</p>
        <label>
          Current password
          <input {...invalid(error, 'currentPassword')} type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />
          <FieldError error={error} field="currentPassword" />
        </label>
        <label>
          New password
          <input {...invalid(error, 'newPassword')} type="password" autoComplete="new-password" required minLength={12} value={next} onChange={(e) => setNext(e.target.value)} />
          <FieldError error={error} field="newPassword" />
        </label>
        <label>
          Confirm new password
          <input type="password" autoComplete="new-password" required value={confirm} onChange={(e) => setConfirm(e.target.value)} />
        </label>
        <ActionError error={error} />
        <button type="submit" className="primary" disabled={busy}>
          Change password
        </button>
      </form>
      <details>
        <summary>Your permissions ({me.permissions.length})</summary>
        <ul className="columns">
          {me.permissions.map((p) => (
            <li key={p}>
              <code>{p}</code>
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}
