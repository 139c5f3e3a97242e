// A thin client for InfluxDB's v1 HTTP API (/ping, /query, /write): what 1.x serves natively and
// 2.x/3.x serve for compatibility. Only simple InfluxQL; every failure names the HTTP status and
// the server's own message, and says whether trying again later can help.

export interface InfluxOptions {
  /** Base URL, e.g. http://127.0.0.1:8086 */
  url: string;
  /** 1.x with auth enabled: basic auth. */
  username?: string;
  password?: string;
  /** 2.x/3.x: `Authorization: Token …`. */
  token?: string;
  /** Per request (default 10 s); a write that times out may still have happened, and is retried. */
  timeoutMs?: number;
}

/** One series of a query result, as InfluxDB returns it. */
export interface Series {
  name: string;
  tags: Record<string, string>;
  columns: string[];
  values: unknown[][];
}

export interface RetentionPolicy {
  name: string;
  /** InfluxQL duration literal: `30d`, `4w`, `720h`, or `INF` (keep forever). */
  duration: string;
}

export class InfluxError extends Error {
  constructor(
    message: string,
    /** HTTP status, or null when no answer came (refused, reset, timed out). */
    readonly status: number | null,
    /** The server's answer, as sent. */
    readonly body: string,
  ) {
    super(message);
    this.name = 'InfluxError';
  }

  /**
   * Whether the same request may succeed later: no answer, 5xx, 408/429, auth not set up yet,
   * a database not created yet. Anything else (400: a line InfluxDB cannot take) will not.
   */
  get retryable(): boolean {
    if (this.status === null || this.status >= 500) return true;
    if ([401, 403, 408, 429].includes(this.status)) return true;
    return this.status === 404 && /database not found/i.test(this.body);
  }

  /** InfluxDB does not know the database (dropped, or never created). */
  get databaseNotFound(): boolean {
    return /database not found/i.test(this.body);
  }
}

/** An InfluxQL identifier, quoted. */
export const ident = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
/** An InfluxQL string literal. */
export const literal = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

const UNIT_NS: Record<string, number> = {
  ns: 1,
  u: 1e3,
  us: 1e3,
  µs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
  d: 86400e9,
  w: 7 * 86400e9,
};

/**
 * Nanoseconds of an InfluxQL duration (`30d`, `1h30m`) or of Go's form that SHOW RETENTION
 * POLICIES prints (`720h0m0s`); INF and 0s are 0, which InfluxDB means as "forever".
 */
export function durationNs(d: string): number {
  const s = d.trim();
  if (/^inf$/i.test(s)) return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|u|s|m|h|d|w)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * (UNIT_NS[m[2] as string] as number);
    end = re.lastIndex;
  }
  if (end === 0 || end !== s.length) throw new Error(`not an InfluxQL duration: ${JSON.stringify(d)}`);
  return total;
}

export class InfluxClient {
  readonly url: string;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;

  constructor(opts: InfluxOptions) {
    this.url = opts.url.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.headers = {};
    if (opts.token) this.headers.authorization = `Token ${opts.token}`;
    else if (opts.username !== undefined)
      this.headers.authorization = `Basic ${Buffer.from(`${opts.username}:${opts.password ?? ''}`).toString('base64')}`;
  }

  private async request(
    what: string,
    path: string,
    init: { method: string; body?: string; contentType?: string },
  ): Promise<{ status: number; body: string; version: string | null }> {
    const headers: Record<string, string> = { ...this.headers };
    if (init.contentType) headers['content-type'] = init.contentType;
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, {
        method: init.method,
        headers,
        body: init.body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const cause =
        err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
      throw new InfluxError(`${what}: no answer from InfluxDB at ${this.url} (${cause})`, null, '');
    }
    let body: string;
    try {
      body = await res.text();
    } catch (err) {
      throw new InfluxError(
        `${what}: InfluxDB at ${this.url} answered ${res.status} but the body was cut off (${err instanceof Error ? err.message : String(err)})`,
        null,
        '',
      );
    }
    if (res.status < 200 || res.status >= 300) {
      throw new InfluxError(
        `${what}: InfluxDB at ${this.url} answered HTTP ${res.status}: ${errorText(body)}`,
        res.status,
        body,
      );
    }
    return { status: res.status, body, version: res.headers.get('x-influxdb-version') };
  }

  /** Resolves with the server's version when InfluxDB answers /ping; throws InfluxError otherwise. */
  async ping(): Promise<{ version: string | null }> {
    const r = await this.request('ping', '/ping', { method: 'GET' });
    return { version: r.version };
  }

  /**
   * Run InfluxQL (POST, so statements that change things work too) and return the series of all
   * its statements. A statement's error (InfluxDB answers those with HTTP 200) throws.
   * `epoch`: timestamps as numbers in that unit; the default is RFC 3339 strings, which are exact
   * (nanosecond numbers beyond 2^53 are not, in JavaScript).
   */
  async query(q: string, db?: string, opts: { epoch?: 'ns' | 'u' | 'ms' | 's' } = {}): Promise<Series[]> {
    const params = new URLSearchParams({ q });
    if (db !== undefined) params.set('db', db);
    if (opts.epoch) params.set('epoch', opts.epoch);
    const r = await this.request(`query ${JSON.stringify(q)}`, '/query', {
      method: 'POST',
      body: params.toString(),
      contentType: 'application/x-www-form-urlencoded',
    });
    let parsed: {
      error?: string;
      results?: { statement_id?: number; error?: string; series?: Partial<Series>[] }[];
    };
    try {
      parsed = JSON.parse(r.body);
    } catch {
      throw new InfluxError(
        `query ${JSON.stringify(q)}: InfluxDB answered something that is not JSON: ${r.body.slice(0, 200)}`,
        r.status,
        r.body,
      );
    }
    if (parsed.error) throw new InfluxError(`query ${JSON.stringify(q)}: ${parsed.error}`, r.status, r.body);
    const out: Series[] = [];
    for (const res of parsed.results ?? []) {
      if (res.error)
        throw new InfluxError(
          `query ${JSON.stringify(q)}: statement ${res.statement_id ?? '?'} failed: ${res.error}`,
          r.status,
          r.body,
        );
      for (const s of res.series ?? [])
        out.push({
          name: s.name ?? '',
          tags: s.tags ?? {},
          columns: s.columns ?? [],
          values: s.values ?? [],
        });
    }
    return out;
  }

  /**
   * Write line protocol (nanosecond timestamps). Throws InfluxError; on 400 InfluxDB 1.x has
   * written the lines it could parse and names the others (`partial write: …`).
   */
  async write(db: string, lines: string | readonly string[], rp?: string): Promise<void> {
    const body = typeof lines === 'string' ? lines : lines.join('\n');
    if (body === '') return;
    const params = new URLSearchParams({ db, precision: 'ns' });
    if (rp) params.set('rp', rp);
    await this.request(`write to ${db}${rp ? `.${rp}` : ''}`, `/write?${params}`, {
      method: 'POST',
      body,
      contentType: 'text/plain; charset=utf-8',
    });
  }

  /**
   * Create the database and make `rp` its default retention policy with that duration. Safe to
   * repeat: creates what is missing, alters what differs, leaves the rest alone.
   */
  async ensureDatabase(db: string, rp: RetentionPolicy): Promise<void> {
    const wantNs = durationNs(rp.duration);
    const duration = wantNs === 0 ? 'INF' : rp.duration;
    await this.query(`CREATE DATABASE ${ident(db)}`);
    const policies = await this.query(`SHOW RETENTION POLICIES ON ${ident(db)}`);
    const table = policies[0];
    const col = (name: string) => table?.columns.indexOf(name) ?? -1;
    const row = table?.values.find((v) => v[col('name')] === rp.name);
    if (!row) {
      await this.query(
        `CREATE RETENTION POLICY ${ident(rp.name)} ON ${ident(db)} DURATION ${duration} REPLICATION 1 DEFAULT`,
      );
      return;
    }
    const haveNs = durationNs(String(row[col('duration')]));
    if (haveNs !== wantNs || row[col('default')] !== true) {
      await this.query(
        `ALTER RETENTION POLICY ${ident(rp.name)} ON ${ident(db)} DURATION ${duration} DEFAULT`,
      );
    }
  }
}

/** The message in InfluxDB's `{"error": …}` bodies, else the body itself (shortened). */
export function errorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; message?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: plain text
  }
  const t = body.trim();
  return t === '' ? '(empty body)' : t.length > 500 ? `${t.slice(0, 500)}…` : t;
}
