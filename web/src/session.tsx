// Who is signed in: GET /auth/me (null when the session cookie is missing or expired), and what
// they may do (`can`), from the permissions the API reports for their role (and API-key scopes).
import { createContext, useContext, type ReactNode } from 'react';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api, ApiError, unwrap, type Json } from './api/client';

export type Me = Json<'/api/v1/auth/me', 'get'>;

export const ME_KEY = ['me'] as const;

export function useMe() {
  return useQuery({
    queryKey: ME_KEY,
    queryFn: async (): Promise<Me | null> => {
      try {
        return await unwrap(api.GET('/api/v1/auth/me'));
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return null;
        throw err;
      }
    },
    staleTime: 60_000,
    retry: false,
  });
}

/** Forget everything cached for the user who leaves, and show the sign-in page. */
export function signedOut(qc: QueryClient): void {
  qc.setQueryData(ME_KEY, null);
  qc.removeQueries({ predicate: (q) => q.queryKey[0] !== ME_KEY[0] });
}

interface Session {
  me: Me;
  can(permission: string): boolean;
  signOut(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ me, children }: { me: Me; children: ReactNode }) {
  const qc = useQueryClient();
  const perms = new Set(me.permissions);
  const session: Session = {
    me,
    can: (p) => perms.has(p),
    async signOut() {
      await api.POST('/api/v1/auth/logout').catch(() => undefined);
      signedOut(qc);
    },
  };
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}

/** Renders its children only when the signed-in user holds the permission. */
export function Can({ permission, children }: { permission: string; children: ReactNode }) {
  return useSession().can(permission) ? <>{children}</> : null;
}

const EDITIONS = ['community', 'pro', 'enterprise'];

/** Whether the running edition includes what `needed` offers (community < pro < enterprise). */
export function editionAtLeast(running: string, needed: 'pro' | 'enterprise'): boolean {
  return EDITIONS.indexOf(running.toLowerCase()) >= EDITIONS.indexOf(needed);
}
