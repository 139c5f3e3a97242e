// Local accounts, sessions, API tokens and per-role quotas, kept as JSON files in the data dir.
// A teaching lab has tens to hundreds of users: whole-file rewrites are cheap and need no database.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonFile, writeJsonAtomic } from './jsonFile.js';
import { LoginLimits } from './loginLimits.js';
import { passwordProblem } from './passwordPolicy.js';
import { dummyHash, hashPassword, randomId, randomPassword, sha256, verifyPassword } from './passwords.js';
import {
  DEFAULT_QUOTAS,
  type PublicUser,
  type Quota,
  type Quotas,
  type Role,
  ServiceError,
} from './types.js';

interface UserRow extends PublicUser {
  passwordHash: string;
  createdAt: string;
}

interface TokenRow {
  id: string;
  name: string;
  userId: string;
  hash: string;
  createdAt: string;
  lastUsedAt: string | null;
}

interface SessionRow {
  hash: string;
  userId: string;
  csrfToken: string;
  expiresAt: number;
}

export const TOKEN_PREFIX = 'lfn_';

function checkPassword(password: string, username: string) {
  const problem = passwordProblem(password, username);
  if (problem) throw new ServiceError(400, `password ${problem}`, [{ path: 'password', message: problem }]);
}
const SESSION_TTL_MS = 7 * 24 * 3600e3;

const publicUser = (u: UserRow): PublicUser => ({
  id: u.id,
  username: u.username,
  role: u.role,
  class: u.class,
});

export class Accounts {
  private users: UserRow[];
  private tokens: TokenRow[];
  private sessions: SessionRow[];
  private quotas: Quotas;
  readonly loginLimits: LoginLimits;
  /** A tighter quota for the user's class, when their class has one (set by the class records). */
  classQuotaOf: (u: PublicUser) => Quota | null = () => null;

  constructor(private readonly dataDir: string) {
    this.users = readJsonFile<UserRow[]>(this.file('users'), []);
    this.tokens = readJsonFile<TokenRow[]>(this.file('tokens'), []);
    this.sessions = readJsonFile<SessionRow[]>(this.file('sessions'), []).filter(
      (s) => s.expiresAt > Date.now(),
    );
    this.quotas = { ...DEFAULT_QUOTAS, ...readJsonFile<Partial<Quotas>>(this.file('quotas'), {}) };
    this.loginLimits = new LoginLimits(dataDir);
  }

  private file(name: string) {
    return join(this.dataDir, `${name}.json`);
  }

  private save(name: 'users' | 'tokens' | 'sessions' | 'quotas') {
    writeJsonAtomic(this.file(name), this[name]);
  }

  /** First start: an admin with a random password, also written to DATA/admin-password (0600). */
  async ensureAdmin(): Promise<{ username: string; password: string; file: string } | null> {
    if (this.users.some((u) => u.role === 'admin')) return null;
    let password = randomPassword();
    // Random, so the policy passes all but (about) once in a million: then draw again.
    while (passwordProblem(password, 'admin')) password = randomPassword();
    await this.createUser({ username: 'admin', password, role: 'admin', class: null });
    const file = join(this.dataDir, 'admin-password');
    writeFileSync(file, `${password}\n`, { mode: 0o600 });
    return { username: 'admin', password, file };
  }

  listUsers(): PublicUser[] {
    return this.users.map(publicUser);
  }

  user(id: string): PublicUser | null {
    const u = this.users.find((x) => x.id === id);
    return u ? publicUser(u) : null;
  }

  /** Owner of records no account made (runs the CLI wrote): the earliest admin. */
  firstAdmin(): PublicUser {
    const admins = this.users.filter((u) => u.role === 'admin');
    admins.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    return publicUser(admins[0] as UserRow);
  }

  userByName(username: string): PublicUser | null {
    const u = this.users.find((x) => x.username === username);
    return u ? publicUser(u) : null;
  }

  async createUser(o: {
    username: string;
    password: string;
    role: Role;
    class?: string | null;
  }): Promise<PublicUser> {
    if (this.users.some((u) => u.username === o.username))
      throw new ServiceError(409, `user ${o.username} already exists`, [
        { path: 'username', message: 'is taken' },
      ]);
    checkPassword(o.password, o.username);
    const row: UserRow = {
      id: randomId(),
      username: o.username,
      role: o.role,
      class: o.class ?? null,
      passwordHash: await hashPassword(o.password),
      createdAt: new Date().toISOString(),
    };
    this.users.push(row);
    this.save('users');
    return publicUser(row);
  }

  async updateUser(
    id: string,
    patch: { password?: string; role?: Role; class?: string | null; keepSession?: string | null },
  ): Promise<PublicUser> {
    const u = this.users.find((x) => x.id === id);
    if (!u) throw new ServiceError(404, `no user ${id}`);
    if (patch.role && patch.role !== 'admin' && u.role === 'admin' && this.adminCount() === 1)
      throw new ServiceError(409, 'the last admin cannot lose the admin role', [
        { path: 'role', message: 'last admin' },
      ]);
    if (patch.password !== undefined) {
      checkPassword(patch.password, u.username);
      u.passwordHash = await hashPassword(patch.password);
      // A new password ends every way in that the old one gave, except the session changing it.
      this.dropSessionsOf(id, patch.keepSession);
      this.tokens = this.tokens.filter((t) => t.userId !== id);
      this.save('tokens');
    }
    if (patch.role) u.role = patch.role;
    if (patch.class !== undefined) u.class = patch.class;
    this.save('users');
    return publicUser(u);
  }

  deleteUser(id: string): void {
    const u = this.users.find((x) => x.id === id);
    if (!u) throw new ServiceError(404, `no user ${id}`);
    if (u.role === 'admin' && this.adminCount() === 1)
      throw new ServiceError(409, 'the last admin cannot be deleted');
    this.users = this.users.filter((x) => x.id !== id);
    this.tokens = this.tokens.filter((t) => t.userId !== id);
    this.dropSessionsOf(id);
    this.save('users');
    this.save('tokens');
  }

  private adminCount() {
    return this.users.filter((u) => u.role === 'admin').length;
  }

  private dropSessionsOf(userId: string, keepSessionId?: string | null) {
    const keep = keepSessionId ? sha256(keepSessionId) : null;
    this.sessions = this.sessions.filter((s) => s.userId !== userId || s.hash === keep);
    this.save('sessions');
  }

  /** The user's own password, checked (changing one's password needs the current one). */
  async passwordMatches(id: string, password: string): Promise<boolean> {
    const u = this.users.find((x) => x.id === id);
    return u ? verifyPassword(password, u.passwordHash) : false;
  }

  /** Sign-in under LoginLimits: null when throttled (the caller answers 429), else the user or false. */
  async login(address: string, username: string, password: string): Promise<PublicUser | false | null> {
    const ticket = this.loginLimits.reserve(address, username);
    if (!ticket) return null;
    const u = this.users.find((x) => x.username === username);
    let ok = false;
    try {
      ok = (await verifyPassword(password, u?.passwordHash ?? (await dummyHash()))) && u !== undefined;
    } finally {
      this.loginLimits.settle(ticket, ok);
    }
    return ok && u ? publicUser(u) : false;
  }

  createSession(userId: string): { sessionId: string; csrfToken: string } {
    const sessionId = randomId(24);
    const csrfToken = randomId(18);
    this.sessions = this.sessions.filter((s) => s.expiresAt > Date.now());
    this.sessions.push({
      hash: sha256(sessionId),
      userId,
      csrfToken,
      expiresAt: Date.now() + SESSION_TTL_MS,
    });
    this.save('sessions');
    return { sessionId, csrfToken };
  }

  session(sessionId: string): { user: PublicUser; csrfToken: string } | null {
    const h = sha256(sessionId);
    const s = this.sessions.find((x) => x.hash === h && x.expiresAt > Date.now());
    const user = s ? this.user(s.userId) : null;
    return s && user ? { user, csrfToken: s.csrfToken } : null;
  }

  deleteSession(sessionId: string): void {
    const h = sha256(sessionId);
    this.sessions = this.sessions.filter((s) => s.hash !== h);
    this.save('sessions');
  }

  createToken(userId: string, name: string): { id: string; name: string; token: string } {
    const token = `${TOKEN_PREFIX}${randomId(24)}`;
    const row: TokenRow = {
      id: randomId(),
      name,
      userId,
      hash: sha256(token),
      createdAt: new Date().toISOString(),
      lastUsedAt: null,
    };
    this.tokens.push(row);
    this.save('tokens');
    return { id: row.id, name, token };
  }

  listTokens(userId: string) {
    return this.tokens
      .filter((t) => t.userId === userId)
      .map(({ id, name, createdAt, lastUsedAt }) => ({ id, name, createdAt, lastUsedAt }));
  }

  deleteToken(userId: string, id: string): void {
    if (!this.tokens.some((t) => t.id === id && t.userId === userId))
      throw new ServiceError(404, `no token ${id}`);
    this.tokens = this.tokens.filter((t) => t.id !== id);
    this.save('tokens');
  }

  tokenUser(token: string): PublicUser | null {
    if (!token.startsWith(TOKEN_PREFIX)) return null;
    const h = sha256(token);
    const t = this.tokens.find((x) => x.hash === h);
    if (!t) return null;
    t.lastUsedAt = new Date().toISOString();
    return this.user(t.userId);
  }

  getQuotas(): Quotas {
    return structuredClone(this.quotas);
  }

  /** The limits this user's runs are checked against: their role's, or their class's where tighter. */
  quotaOf(u: PublicUser): Quota {
    const role = this.quotas[u.role];
    const cls = this.classQuotaOf(u);
    if (!cls) return structuredClone(role);
    return {
      concurrentRuns: Math.min(role.concurrentRuns, cls.concurrentRuns),
      maxDurationS: Math.min(role.maxDurationS, cls.maxDurationS),
      maxRateMbps: Math.min(role.maxRateMbps, cls.maxRateMbps),
      maxFlows: Math.min(role.maxFlows, cls.maxFlows),
    };
  }

  setQuota(role: Role, q: Quota): Quota {
    this.quotas[role] = q;
    this.save('quotas');
    return q;
  }
}
