// A signed-in user of a running `lfnlab serve` over real HTTP (fetch), for tests that start the
// service as a process: the session cookie and CSRF token from login, and JSON calls that throw
// with the status and body on an error answer.

/** A service that takes longer than this to answer is stuck: the test says so instead of hanging. */
const CALL_TIMEOUT_MS = 60_000;

export interface Session {
  cookie: string;
  csrf: string;
}

export async function loginOver(url: string, username: string, password: string): Promise<Session> {
  const r = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  if (!r.ok) throw new Error(`login ${username}: ${r.status} ${await r.text()}`);
  const cookie = /lfn_session=([^;]+)/.exec(r.headers.get('set-cookie') ?? '')?.[1];
  if (!cookie) throw new Error('no session cookie');
  return { cookie, csrf: ((await r.json()) as { csrfToken: string }).csrfToken };
}

export async function callOver<T>(
  url: string,
  s: Session,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const r = await fetch(`${url}${path}`, {
    method,
    headers: {
      cookie: `lfn_session=${s.cookie}`,
      'x-csrf-token': s.csrf,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  if (r.status >= 400) throw new Error(`${method} ${path} → ${r.status}: ${await r.text()}`);
  return (await r.json()) as T;
}
