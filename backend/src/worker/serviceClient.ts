// How `lfnlab worker` talks to the service: its worker token on every request, plain-language
// errors (service unreachable, token refused), and retries with back-off for what a restart or a
// network blip loses (the calls are safe to repeat: batches are numbered, files replace themselves).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { WorkerHeartbeat } from '../service/workerRegistry.js';
import type { WorkerBatch } from '../service/workerRuns.js';

/** The service said no in a way repeating will not change (a 4xx other than 408/429). */
export class ServiceRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ServiceClientOptions {
  /** http(s)://HOST:PORT of `lfnlab serve`. */
  url: string;
  token: string;
  /** How long a call keeps retrying when the service does not answer (default 60 s). */
  retryForMs?: number;
  /**
   * How long the hand-off of a finished run (its files and its end) waits for a service that is
   * away (default 1 h): the run is done, and its record must reach the service.
   */
  handOffForMs?: number;
  log?: (line: string) => void;
}

async function sha256Of(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class ServiceClient {
  private readonly base: string;
  private readonly retryForMs: number;
  private readonly handOffForMs: number;

  constructor(private readonly o: ServiceClientOptions) {
    this.base = o.url.replace(/\/+$/, '');
    this.retryForMs = o.retryForMs ?? 60_000;
    this.handOffForMs = o.handOffForMs ?? 3_600_000;
  }

  /** One request; network failures become "unreachable", 401 "token refused", other 4xx ServiceRefused. */
  private async once(
    method: string,
    path: string,
    body?: { json: unknown } | { file: string },
  ): Promise<unknown> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.o.token}` };
    let payload: RequestInit['body'] | undefined;
    if (body && 'json' in body) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body.json);
    } else if (body) {
      headers['content-type'] = 'application/octet-stream';
      payload = Readable.toWeb(createReadStream(body.file)) as unknown as RequestInit['body'];
    }
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, {
        method,
        headers,
        body: payload,
        signal: AbortSignal.timeout(30_000),
        ...(payload && body && 'file' in body ? { duplex: 'half' } : {}),
      } as RequestInit);
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new Error(
        `the service at ${this.base} is unreachable (${cause?.code ?? cause?.message ?? (err as Error).message})`,
      );
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    if (res.ok) return parsed;
    const why = (parsed as { error?: string } | null)?.error ?? text.slice(0, 200);
    if (res.status === 401)
      throw new ServiceRefused(
        401,
        `the service at ${this.base} refused the worker token (revoked, mistyped, or made by another service): ${why}`,
      );
    if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429)
      throw new ServiceRefused(res.status, `${method} ${path}: ${res.status} ${why}`);
    throw new Error(`${method} ${path}: the service answered ${res.status} ${why}`);
  }

  /** Repeats a call the service did not answer (or answered 5xx) until retryForMs has passed. */
  private async call(
    method: string,
    path: string,
    body?: { json: unknown } | { file: string },
    forMs = this.retryForMs,
  ) {
    const deadline = Date.now() + forMs;
    for (let wait = 250; ; wait = Math.min(wait * 2, 5000)) {
      try {
        return await this.once(method, path, body);
      } catch (err) {
        if (err instanceof ServiceRefused || Date.now() + wait > deadline) throw err;
        this.o.log?.(`${(err as Error).message}; trying again in ${wait / 1000} s`);
        await sleep(wait);
      }
    }
  }

  /** The host this token names; checks at start that the service is there and takes the token. */
  async hello(): Promise<string> {
    return ((await this.once('GET', '/api/worker/hello')) as { host: string }).host;
  }

  /** True when the service lets this worker run it; false when it is not queued (409). */
  async start(runId: string, lab: string, workerLab?: string): Promise<boolean> {
    try {
      await this.call('POST', `/api/worker/runs/${encodeURIComponent(runId)}/start`, {
        json: { lab, ...(workerLab ? { workerLab } : {}) },
      });
      return true;
    } catch (err) {
      if (err instanceof ServiceRefused && (err.status === 409 || err.status === 404)) return false;
      throw err;
    }
  }

  /** One try (the caller's spool repeats it): the service applies a batch once, by its number. */
  async batchOnce(runId: string, b: WorkerBatch): Promise<void> {
    await this.once('POST', `/api/worker/runs/${encodeURIComponent(runId)}/batches`, { json: b });
  }

  /** The files of the run directory the service has already (the streamed samples among them). */
  async files(runId: string, forMs = this.handOffForMs): Promise<Array<{ path: string; sha256: string }>> {
    return (await this.call(
      'GET',
      `/api/worker/runs/${encodeURIComponent(runId)}/files`,
      undefined,
      forMs,
    )) as Array<{ path: string; sha256: string }>;
  }

  /** Uploads the file unless the service's copy has the same SHA-256; true when it was sent. */
  async upload(
    runId: string,
    relPath: string,
    file: string,
    theirs?: string,
    forMs = this.handOffForMs,
  ): Promise<boolean> {
    const sha256 = await sha256Of(file);
    if (theirs === sha256) return false;
    const q = new URLSearchParams({ path: relPath, sha256 });
    await this.call('PUT', `/api/worker/runs/${encodeURIComponent(runId)}/files?${q}`, { file }, forMs);
    return true;
  }

  async finished(
    runId: string,
    status: string,
    error: string | null,
    forMs = this.handOffForMs,
  ): Promise<void> {
    await this.call(
      'POST',
      `/api/worker/runs/${encodeURIComponent(runId)}/finished`,
      { json: { status, error } },
      forMs,
    );
  }

  /** This worker's labs and what they run, for the service's list of workers (one try). */
  async heartbeat(h: WorkerHeartbeat): Promise<void> {
    await this.once('POST', '/api/worker/heartbeat', { json: h });
  }
}
