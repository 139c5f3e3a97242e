// The signed-in user: read once from /api/auth/me, set by login, cleared by logout or any 401.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext, useEffect } from 'react';
import { ApiError, get, onUnauthorised, post, setCsrfToken } from '../api/client';
import type { Session, User } from '../api/types';

interface SessionValue {
  user: User | null;
  loading: boolean;
  login(username: string, password: string): Promise<void>;
  logout(): Promise<void>;
}

const SessionContext = createContext<SessionValue | null>(null);
const ME = ['auth', 'me'] as const;

async function fetchMe(): Promise<Session | null> {
  try {
    return await get<Session>('/api/auth/me');
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return null;
    throw e;
  }
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const qc = useQueryClient();
  const me = useQuery({ queryKey: ME, queryFn: fetchMe, staleTime: Number.POSITIVE_INFINITY, retry: false });
  const session = me.data ?? null;
  setCsrfToken(session?.csrfToken ?? null);

  useEffect(
    () =>
      onUnauthorised(() => {
        setCsrfToken(null);
        qc.setQueryData(ME, null);
      }),
    [qc],
  );

  const value: SessionValue = {
    user: session?.user ?? null,
    loading: me.isPending,
    async login(username, password) {
      const s = await post<Session>('/api/auth/login', { username, password });
      setCsrfToken(s.csrfToken);
      qc.setQueryData(ME, s);
    },
    async logout() {
      try {
        await post('/api/auth/logout');
      } finally {
        setCsrfToken(null);
        qc.clear();
        qc.setQueryData(ME, null);
      }
    },
  };
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const v = useContext(SessionContext);
  if (!v) throw new Error('useSession outside SessionProvider');
  return v;
}

/** The signed-in user, or null (also outside a SessionProvider: pages rendered on their own). */
export function useSessionUser() {
  return useContext(SessionContext)?.user ?? null;
}
