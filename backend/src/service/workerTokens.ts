// Worker tokens: what an `lfnlab worker` on a lab host presents to the service. A kind of API
// token of its own (prefix lfnw_, DATA/worker-tokens.json), stored as a SHA-256 like the users'
// tokens, naming the lab host it was made for, and good only for /api/worker/* (the auth hook
// gives a worker token no user, so every other route answers 401). One per host, so one host can
// be revoked without touching the others.
import { join } from 'node:path';
import { readJsonFile, writeJsonAtomic } from './jsonFile.js';
import { randomId, sha256 } from './passwords.js';
import { HOST_ID } from './redisKeys.js';
import { ServiceError } from './types.js';

export const WORKER_TOKEN_PREFIX = 'lfnw_';

interface WorkerTokenRow {
  id: string;
  /** The lab host's name (its runs record it as `host`). */
  host: string;
  hash: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export type WorkerTokenInfo = Omit<WorkerTokenRow, 'hash'>;

/** The worker calling, as the auth hook finds it from its token. */
export interface WorkerCaller {
  tokenId: string;
  host: string;
}

export class WorkerTokens {
  private rows: WorkerTokenRow[];
  private readonly file: string;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'worker-tokens.json');
    this.rows = readJsonFile<WorkerTokenRow[]>(this.file, []);
  }

  create(host: string): WorkerTokenInfo & { token: string } {
    if (!HOST_ID.test(host))
      throw new ServiceError(400, `host "${host}" is not a host name`, [
        { path: 'host', message: '1-63 letters, digits, "_" or "-", starting with a letter or digit' },
      ]);
    const token = `${WORKER_TOKEN_PREFIX}${randomId(24)}`;
    const row: WorkerTokenRow = {
      id: randomId(),
      host,
      hash: sha256(token),
      createdAt: new Date().toISOString(),
      lastUsedAt: null,
    };
    this.rows.push(row);
    writeJsonAtomic(this.file, this.rows);
    const { hash: _, ...info } = row;
    return { ...info, token };
  }

  list(): WorkerTokenInfo[] {
    return this.rows.map(({ hash: _, ...info }) => info);
  }

  delete(id: string): void {
    if (!this.rows.some((r) => r.id === id)) throw new ServiceError(404, `no worker token ${id}`);
    this.rows = this.rows.filter((r) => r.id !== id);
    writeJsonAtomic(this.file, this.rows);
  }

  /** The worker a token belongs to, or null (not a worker token, or not one of ours). */
  identify(token: string): WorkerCaller | null {
    if (!token.startsWith(WORKER_TOKEN_PREFIX)) return null;
    const h = sha256(token);
    const row = this.rows.find((r) => r.hash === h);
    if (!row) return null;
    // Kept in memory: written with the next change (a worker calls many times a second).
    row.lastUsedAt = new Date().toISOString();
    return { tokenId: row.id, host: row.host };
  }
}
