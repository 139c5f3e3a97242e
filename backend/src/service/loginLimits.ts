// Sign-in throttling. Policy (docs/API.md, "Sign-in limits"), all over a sliding 15 minutes:
// - 10 failures per (address, username) pair: guessing one account from one place stops there;
// - 300 failures per address: a class of ~100 behind one NAT keeps signing in while one
//   student mistypes, yet one machine cannot spray every account;
// - 100 failures per username from all addresses: a distributed guess at one account slows down,
//   while a single attacker (10 per pair) cannot lock a named account out for everyone.
// An attempt is reserved before its password is hashed and counts as a failure until it settles,
// so concurrent attempts cannot all slip under a limit. A success clears its pair's failures.
// Counters live in DATA/login-failures.json so a restart does not reset them.
import { join } from 'node:path';
import { readJsonFile, writeJsonAtomic } from './jsonFile.js';

export const LOGIN_WINDOW_MS = 15 * 60e3;
export const LOGIN_LIMITS = { pair: 10, address: 300, username: 100 } as const;

export interface LoginTicket {
  keys: string[];
  at: number;
}

export class LoginLimits {
  /** Key → times of failures (and of attempts still in flight) in the window. */
  private readonly failures = new Map<string, number[]>();
  private readonly file: string;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'login-failures.json');
    const stored = readJsonFile<Record<string, number[]>>(this.file, {});
    const now = Date.now();
    for (const [k, times] of Object.entries(stored)) {
      const recent = Array.isArray(times) ? times.filter((t) => now - t < LOGIN_WINDOW_MS) : [];
      if (recent.length) this.failures.set(k, recent);
    }
  }

  private static keys(address: string, username: string) {
    return [`pair:${address}\n${username}`, `ip:${address}`, `user:${username}`];
  }

  private static limit(key: string) {
    return key.startsWith('pair:')
      ? LOGIN_LIMITS.pair
      : key.startsWith('ip:')
        ? LOGIN_LIMITS.address
        : LOGIN_LIMITS.username;
  }

  private recent(key: string, now: number) {
    const times = (this.failures.get(key) ?? []).filter((t) => now - t < LOGIN_WINDOW_MS);
    if (times.length) this.failures.set(key, times);
    else this.failures.delete(key);
    return times;
  }

  /**
   * Reserve one attempt (synchronously, before any hashing), or null when a limit is reached.
   * The reservation counts as a failure until settle().
   */
  reserve(address: string, username: string): LoginTicket | null {
    const now = Date.now();
    const keys = LoginLimits.keys(address, username);
    if (keys.some((k) => this.recent(k, now).length >= LoginLimits.limit(k))) return null;
    for (const k of keys) this.failures.set(k, [...(this.failures.get(k) ?? []), now]);
    return { keys, at: now };
  }

  settle(ticket: LoginTicket, ok: boolean): void {
    if (ok) {
      // The pair starts afresh; the address and username counts drop only this attempt.
      const [pair, ...rest] = ticket.keys as [string, ...string[]];
      this.failures.delete(pair);
      for (const k of rest) this.drop(k, ticket.at);
    }
    this.save();
  }

  private drop(key: string, at: number) {
    const times = this.failures.get(key);
    const i = times?.indexOf(at) ?? -1;
    if (times && i >= 0) times.splice(i, 1);
    if (times?.length === 0) this.failures.delete(key);
  }

  private save() {
    const now = Date.now();
    const out: Record<string, number[]> = Object.create(null);
    for (const k of [...this.failures.keys()]) {
      const times = this.recent(k, now);
      if (times.length) out[k] = times;
    }
    writeJsonAtomic(this.file, out);
  }
}
