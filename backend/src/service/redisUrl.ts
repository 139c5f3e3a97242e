// The Redis address a queue is given: checked, completed with a password from the environment
// (a password on the command line is visible to every user of the host in `ps`), and shown with
// its password hidden wherever it is logged or written into a run's error.

/** redis://HOST:PORT or rediss://HOST:PORT (TLS), optionally with a user, password and database. */
export function isRedisUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (
      (u.protocol === 'redis:' || u.protocol === 'rediss:') &&
      u.hostname !== '' &&
      /^\/?\d*$/.test(u.pathname)
    );
  } catch {
    return false;
  }
}

/** The URL with `password` filled in when it names none (an ACL user's or requirepass's). */
export function withRedisPassword(url: string, password: string | undefined): string {
  if (!password) return url;
  const u = new URL(url);
  if (u.password) return url;
  u.password = password;
  return u.toString();
}

/** The URL as it may be shown: any password replaced by ***. */
export function redisUrlForDisplay(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = '***';
    return u.toString();
  } catch {
    return 'an unreadable Redis URL';
  }
}
