// Sign in with username and password (POST /auth/login sets the HttpOnly session cookie).
// "Sign in with SSO" appears only when GET /auth/providers says OIDC is enabled; a server
// without that route simply shows no such button.
import { useState, type FormEvent } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap } from '../api/client';
import { ActionError, FieldError, invalid } from '../components/states';
import { ME_KEY } from '../session';

interface Providers {
  enabled?: boolean;
  loginUrl?: string;
  login_url?: string;
  oidc?: { enabled?: boolean; loginUrl?: string; login_url?: string };
}

function useSso() {
  return useQuery({
    queryKey: ['auth-providers'],
    retry: false,
    staleTime: Infinity,
    queryFn: async () => {
      const r = await fetch('/api/v1/auth/providers', { headers: { accept: 'application/json' } });
      if (!r.ok) return null;
      const p = (await r.json().catch(() => null)) as Providers | null;
      if (!p) return null;
      const enabled = p.enabled === true || p.oidc?.enabled === true;
      const url = p.loginUrl ?? p.login_url ?? p.oidc?.loginUrl ?? p.oidc?.login_url;
      return enabled && url && url.startsWith('/') ? url : null;
    },
  });
}

export function Login() {
  const qc = useQueryClient();
  const sso = useSso();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await unwrap(api.POST('/api/v1/auth/login', { body: { username, password } }));
      await qc.invalidateQueries({ queryKey: ME_KEY });
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setError(new Error('Invalid username or password.'));
      else if (err instanceof ApiError && err.status === 429) setError(new Error(`Too many failed attempts. Try again${err.retryAfter ? ` in ${err.retryAfter} s` : ' later'}.`));
      else setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="centered login">
      <h1>Ledger network manager</h1>
      <form onSubmit={submit} className="card" aria-labelledby="signin-title">
        <h2 id="signin-title">Sign in</h2>
        <label>
          Username
          <input {...invalid(error, 'username')} name="username" autoComplete="username" required value={username} onChange={(e) => setUsername(e.target.value)} />
          <FieldError error={error} field="username" />
        </label>
        <label>
          Password
          <input {...invalid(error, 'password')} name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
          <FieldError error={error} field="password" />
        </label>
        <ActionError error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {sso.data ? (
          <a className="button" href={sso.data}>
            Sign in with SSO
          </a>
        ) : null}
      </form>
      <aside className="hint" aria-label="First sign-in">
        <h2>First sign-in</h2>
        <p>
          The first ADMIN is named by <code>ADMIN_USERNAME</code> (default <code>admin</code>). If <code>ADMIN_PASSWORD</code> was not set, the server generated a password on its first start and
          printed it once to its terminal (standard error), under “First start: created ADMIN user”. It is not in the log files and is not shown again: sign in with it, then change it under your account.
        </p>
      </aside>
    </main>
  );
}
