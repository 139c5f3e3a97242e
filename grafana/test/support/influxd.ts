// A private influxd 1.x for tests (the dashboard tests here, the backend's storage tests through
// @lfnlab/grafana/testing): its own data directory, free loopback ports, nothing listening beyond
// 127.0.0.1, the environment's INFLUXDB_* overrides dropped (they could move a listener), started with
// an argv array (no shell) and stopped by the test.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type InfluxdAvailability = { ok: true; bin: string; version: string } | { ok: false; reason: string };

function probe(bin: string): { bin: string; version: string } | null {
  const r = spawnSync(bin, ['version'], { encoding: 'utf8', timeout: 10_000 });
  return r.status === 0 && /InfluxDB v?1\./.test(r.stdout) ? { bin, version: r.stdout.trim() } : null;
}

function findInstalled(): { bin: string; version: string } | null {
  const candidates = [process.env.INFLUXD, 'influxd'].filter((x): x is string => !!x);
  for (const c of candidates) {
    const found = probe(c);
    if (found) return found;
  }
  return null;
}

/** The influxd (1.x) binary on PATH (or $INFLUXD), or null when none is installed; installs nothing. */
export function findInfluxd(): string | null {
  return findInstalled()?.bin ?? null;
}

export const INFLUXD_INSTALL_HINT =
  'install it with: apt-get install -y influxdb influxdb-client (Debian 12: InfluxDB 1.6.7)';

/**
 * The title of a test suite that needs influxd: as given when `installed`, else saying the suite is
 * skipped and how to install influxd (also written to the console, where a skipped suite is easy to miss).
 */
export function influxdSuiteTitle(title: string, installed: string | null): string {
  if (installed) return title;
  const skipped = `${title} — SKIPPED: influxd (1.x) is not installed; ${INFLUXD_INSTALL_HINT}`;
  console.warn(skipped);
  return skipped;
}

/** influxd on PATH (or $INFLUXD); when missing and running as root, `apt-get install -y influxdb`. */
export function ensureInfluxd(log: (s: string) => void = () => undefined): InfluxdAvailability {
  const installed = findInstalled();
  if (installed) return { ok: true, ...installed };
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
export function influxdConfig(o: { dir: string; httpPort: number; rpcPort: number }): string {
  const q = (s: string) => JSON.stringify(s);
  return [
    '# written by lfnlab: loopback only',
    'reporting-disabled = true',
    // Debian's 1.6.7 build reads this spelling; influxd ignores the one it does not know.
    'reporting-enabled = false',
    `bind-address = ${q(`127.0.0.1:${o.rpcPort}`)}`,
    '[meta]',
    `  dir = ${q(join(o.dir, 'meta'))}`,
    '[data]',
    `  dir = ${q(join(o.dir, 'data'))}`,
    `  wal-dir = ${q(join(o.dir, 'wal'))}`,
    '  wal-fsync-delay = "0s"',
    '  query-log-enabled = false',
    '[monitor]',
    '  store-enabled = false',
    '[continuous_queries]',
    '  enabled = false',
    '[http]',
    `  bind-address = ${q(`127.0.0.1:${o.httpPort}`)}`,
    '  log-enabled = false',
    '[logging]',
    '  suppress-logo = true',
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

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

export class RunningInfluxd {
  readonly pid: number;

  constructor(
    readonly url: string,
    readonly httpPort: number,
    readonly rpcPort: number,
    /** Its data directory (meta, data, wal, influxd.conf, influxd.log). */
    readonly dir: string,
    private readonly child: ChildProcess,
    /** The directory was made for it (no `dir` given): stop() removes it. */
    private readonly ownsDir: boolean,
  ) {
    this.pid = child.pid as number;
  }

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

  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone (and its own dir removed). */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.running()) {
      const gone = exited(this.child);
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
      await gone;
      clearTimeout(timer);
    }
    if (this.ownsDir) rmSync(this.dir, { recursive: true, force: true });
  }

  /** SIGKILL at once (a crash); resolves when the process is gone. The data directory stays. */
  async kill(): Promise<void> {
    if (!this.running()) return;
    const gone = exited(this.child);
    this.child.kill('SIGKILL');
    await gone;
  }

  /** The last lines influxd wrote (empty once its own directory is removed). */
  log(lines = 15): string {
    try {
      return readFileSync(join(this.dir, 'influxd.log'), 'utf8').split('\n').slice(-lines).join('\n');
    } catch {
      return '';
    }
  }

  private running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }
}

export interface StartInfluxdOptions {
  /** Data directory (created if missing, kept by stop()); default: a new temp directory, removed by stop(). */
  dir?: string;
  /** Ports default to free ones; pass a stopped server's ones to restart it on the same directory. */
  httpPort?: number;
  rpcPort?: number;
  /** The influxd binary; default: findInfluxd(). */
  bin?: string;
  /** How long to wait for /ping to answer, ms (default 30 s). */
  timeoutMs?: number;
}

/**
 * Start influxd on 127.0.0.1 and wait until /ping answers 204 (or the process ends, or the time is
 * up). A free port found here can be taken by another process before influxd binds it (seen with
 * the suites running in parallel): on "address already in use" with ports of our choosing, it
 * tries again on new ones, up to three times.
 */
export async function startInfluxd(o: StartInfluxdOptions = {}): Promise<RunningInfluxd> {
  const ours = o.httpPort === undefined && o.rpcPort === undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      return await startInfluxdOnce(o);
    } catch (err) {
      if (!ours || attempt >= 3 || !/address already in use/.test((err as Error).message)) throw err;
    }
  }
}

async function startInfluxdOnce(o: StartInfluxdOptions): Promise<RunningInfluxd> {
  const bin = o.bin ?? findInfluxd();
  if (!bin) throw new Error(`influxd (1.x) is not installed; ${INFLUXD_INSTALL_HINT}`);
  const ownsDir = o.dir === undefined;
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), 'lfnlab-influxd-'));
  const httpPort = o.httpPort ?? (await freePort());
  const rpcPort = o.rpcPort ?? (await freePort());
  for (const d of ['meta', 'data', 'wal']) mkdirSync(join(dir, d), { recursive: true });
  const config = join(dir, 'influxd.conf');
  writeFileSync(config, influxdConfig({ dir, httpPort, rpcPort }));
  const logFd = openSync(join(dir, 'influxd.log'), 'a');
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('INFLUXDB_')));
  const child = spawn(bin, ['run', '-config', config], { env, stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  const gone = exited(child);
  const url = `http://127.0.0.1:${httpPort}`;
  const influx = new RunningInfluxd(url, httpPort, rpcPort, dir, child, ownsDir);
  const timeoutMs = o.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const why = `influxd exited (${child.exitCode ?? child.signalCode}) before answering /ping:\n${influx.log()}`;
      await influx.stop();
      throw new Error(why);
    }
    try {
      const res = await fetch(`${url}/ping`, { signal: AbortSignal.timeout(1000) });
      if (res.status === 204) return influx;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      const why = `influxd did not answer ${url}/ping within ${timeoutMs} ms:\n${influx.log()}`;
      await influx.kill();
      await influx.stop();
      throw new Error(why);
    }
    // Poll /ping until it answers or the process ends, whichever is first.
    await Promise.race([gone, new Promise((r) => setTimeout(r, 50))]);
  }
}
