// fetch wrapper for the service: same-origin cookie session, the CSRF header on every write, and
// errors that keep the service's per-field problems so forms can show them next to their fields.
import type { Problem } from './types';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly problems: Problem[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

let csrfToken: string | null = null;
/** Called with the token from login or /api/auth/me. */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Listeners for 401: the session ended (expired, logged out elsewhere). */
const unauthorisedListeners = new Set<() => void>();
export function onUnauthorised(fn: () => void): () => void {
  unauthorisedListeners.add(fn);
  return () => unauthorisedListeners.delete(fn);
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a person reads when the service cannot be reached at all (fetch's own "Failed to fetch"). */
export const UNREACHABLE =
  'Cannot reach the lfnlab service: the network is down or the service is restarting. The page keeps trying; nothing you entered is lost.';

/** Whether the last request reached the service; the app shows a banner while it does not. */
let reachable = true;
const reachabilityListeners = new Set<() => void>();
export function onReachability(fn: () => void): () => void {
  reachabilityListeners.add(fn);
  return () => reachabilityListeners.delete(fn);
}
export const isReachable = () => reachable;
function setReachable(r: boolean) {
  if (r === reachable) return;
  reachable = r;
  for (const fn of reachabilityListeners) fn();
}

export async function api<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    setReachable(false);
    throw new ApiError(0, UNREACHABLE);
  }
  // A proxy in front of a stopped service answers 502/503/504: the same outage to a person.
  setReachable(![502, 503, 504].includes(res.status));
  const text = await res.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!res.ok) {
    if (res.status === 401 && path !== '/api/auth/login') for (const fn of unauthorisedListeners) fn();
    const err = (data ?? {}) as { error?: string; message?: string; problems?: Problem[] };
    if ([502, 503, 504].includes(res.status)) throw new ApiError(res.status, UNREACHABLE);
    const message = err.error ?? err.message ?? (typeof data === 'string' && data ? data : res.statusText);
    throw new ApiError(res.status, message || `HTTP ${res.status}`, err.problems ?? []);
  }
  return data as T;
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body: unknown = {}) => api<T>('POST', path, body);
export const put = <T>(path: string, body: unknown) => api<T>('PUT', path, body);
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body);
export const del = <T>(path: string) => api<T>('DELETE', path);

/** ws:// or wss:// URL of a same-origin path. */
export function wsUrl(path: string): string {
  const { protocol, host } = window.location;
  return `${protocol === 'https:' ? 'wss:' : 'ws:'}//${host}${path}`;
}
