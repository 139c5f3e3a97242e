// A private influxd 1.x for the dashboard tests: temp data directory, free loopback ports, nothing
// listening beyond 127.0.0.1, started with an argv array (no shell) and stopped by the test.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type InfluxdAvailability = { ok: true; bin: string; version: string } | { ok: false; reason: string };

function probe(bin: string): { bin: string; version: string } | null {
  const r = spawnSync(bin, ['version'], { encoding: 'utf8', timeout: 10_000 });
  return r.status === 0 && /InfluxDB v?1\./.test(r.stdout) ? { bin, version: r.stdout.trim() } : null;
}

/** influxd on PATH (or $INFLUXD); when missing and running as root, `apt-get install -y influxdb`. */
export function ensureInfluxd(log: (s: string) => void = () => undefined): InfluxdAvailability {
  const candidates = [process.env.INFLUXD, 'influxd'].filter((x): x is string => !!x);
  for (const c of candidates) {
    const found = probe(c);
    if (found) return { ok: true, ...found };
  }
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    return {
      ok: false,
      reason:
        'influxd (InfluxDB 1.x) is not installed and this is not root on Linux: apt-get install -y influxdb',
    };
  }
  if (spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status !== 0) {
    return {
      ok: false,
      reason: 'influxd (InfluxDB 1.x) is not installed and there is no apt-get to install it with',
    };
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Wait for dpkg/apt locks rather than fail: another test file may be installing at the same time.
  const lock = ['-o', 'DPkg::Lock::Timeout=300'];
  const tail = (r: ReturnType<typeof spawnSync>) =>
    `${r.stderr || r.error?.message || ''}`.trim().slice(-400);
  log('influxd missing: apt-get update && apt-get install -y influxdb');
  const update = spawnSync('apt-get', [...lock, 'update'], { env, encoding: 'utf8', timeout: 400_000 });
  if (update.status !== 0)
    return probeAgain() ?? { ok: false, reason: `apt-get update failed: ${tail(update)}` };
  const install = spawnSync('apt-get', [...lock, 'install', '-y', '--no-install-recommends', 'influxdb'], {
    env,
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (install.status !== 0)
    return probeAgain() ?? { ok: false, reason: `apt-get install -y influxdb failed: ${tail(install)}` };
  return (
    probeAgain() ?? { ok: false, reason: 'apt-get installed influxdb but `influxd version` still fails' }
  );
}

/** influxd after an install attempt (which may have failed only because another one won the race). */
function probeAgain(): InfluxdAvailability | null {
  const found = probe('influxd');
  return found ? { ok: true, ...found } : null;
}

/** A free TCP port on 127.0.0.1 (free when asked: use it soon). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (addr && typeof addr === 'object' ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/** influxd.conf: loopback listeners only, no usage reporting, no _internal database. */
export function influxdConfig(dir: string, httpPort: number, rpcPort: number): string {
  const q = (s: string) => JSON.stringify(s);
  return [
    'reporting-disabled = true',
    // Debian's 1.6.7 build reads this spelling; influxd ignores the one it does not know.
    'reporting-enabled = false',
    `bind-address = ${q(`127.0.0.1:${rpcPort}`)}`,
    '[meta]',
    `  dir = ${q(join(dir, 'meta'))}`,
    '[data]',
    `  dir = ${q(join(dir, 'data'))}`,
    `  wal-dir = ${q(join(dir, 'wal'))}`,
    '  wal-fsync-delay = "0s"',
    '  query-log-enabled = false',
    '[monitor]',
    '  store-enabled = false',
    '[continuous_queries]',
    '  enabled = false',
    '[http]',
    `  bind-address = ${q(`127.0.0.1:${httpPort}`)}`,
    '  log-enabled = false',
    '',
  ].join('\n');
}

export interface InfluxSeries {
  name: string;
  tags?: Record<string, string>;
  columns: string[];
  values: unknown[][];
}

export interface InfluxResult {
  statement_id?: number;
  series?: InfluxSeries[];
  error?: string;
}

export class RunningInfluxd {
  constructor(
    readonly url: string,
    readonly dir: string,
    private readonly child: ChildProcess,
    private readonly output: () => string,
  ) {}

  /** POST /query (form body, as Grafana's httpMode POST sends it), one statement. */
  async query(q: string, db?: string): Promise<InfluxResult> {
    const body = new URLSearchParams({ q, epoch: 'ms', ...(db ? { db } : {}) });
    const res = await fetch(`${this.url}/query`, {
      method: 'POST',
      body,
      signal: AbortSignal.timeout(30_000),
    });
    const json = (await res.json()) as { results?: InfluxResult[]; error?: string };
    if (json.error) return { error: json.error };
    const r = json.results?.[0];
    if (!r) return { error: `HTTP ${res.status}: no result` };
    return r;
  }

  /** POST /write?precision=ns in batches. */
  async write(db: string, lines: string[]): Promise<void> {
    for (let i = 0; i < lines.length; i += 5000) {
      const res = await fetch(`${this.url}/write?db=${encodeURIComponent(db)}&precision=ns`, {
        method: 'POST',
        body: lines.slice(i, i + 5000).join('\n'),
        signal: AbortSignal.timeout(30_000),
      });
      if (res.status !== 204) throw new Error(`write: HTTP ${res.status} ${await res.text()}`);
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  log(): string {
    return this.output();
  }
}

/** Start influxd on 127.0.0.1 and wait (up to deadlineMs) for /ping to answer 204. */
export async function startInfluxd(bin: string, deadlineMs = 30_000): Promise<RunningInfluxd> {
  const dir = mkdtempSync(join(tmpdir(), 'lfnlab-grafana-influxd-'));
  for (const d of ['meta', 'data', 'wal']) mkdirSync(join(dir, d));
  const httpPort = await freePort();
  const rpcPort = await freePort();
  const conf = join(dir, 'influxd.conf');
  writeFileSync(conf, influxdConfig(dir, httpPort, rpcPort));
  // INFLUXDB_* variables override the file (e.g. a bind address): drop them.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('INFLUXDB_')));
  const child = spawn(bin, ['run', '-config', conf], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const keep = (b: Buffer) => {
    out = (out + b.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const url = `http://127.0.0.1:${httpPort}`;
  const influx = new RunningInfluxd(url, dir, child, () => out);
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) break;
    try {
      const res = await fetch(`${url}/ping`, { signal: AbortSignal.timeout(1000) });
      if (res.status === 204) return influx;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await influx.stop();
  throw new Error(
    `influxd did not answer /ping on ${url} within ${deadlineMs} ms (exit ${child.exitCode}):\n${out.slice(-3000)}`,
  );
}
