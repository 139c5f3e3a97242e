// A private influxd (1.x) on the loopback interface, with its own data directory and ports: what
// the storage tests run against. Nothing listens beyond 127.0.0.1, the environment's INFLUXDB_*
// overrides are dropped (they could move a listener), and no shell is involved.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { InfluxClient } from '../../src/storage/influx.js';

/** The influxd binary on PATH (or $INFLUXD), or null with nothing installed. */
export function findInfluxd(): string | null {
  const candidates = [process.env.INFLUXD, 'influxd'].filter((x): x is string => !!x);
  for (const bin of candidates) {
    const r = spawnSync(bin, ['version'], { encoding: 'utf8', timeout: 10_000 });
    if (r.status === 0 && /InfluxDB v?1\./.test(r.stdout)) return bin;
  }
  return null;
}

export const INSTALL_HINT =
  'install it with: apt-get install -y influxdb influxdb-client (Debian 12: InfluxDB 1.6.7)';

/** A free TCP port on 127.0.0.1 (the kernel's pick; free when asked, so use it soon). */
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

/** influxd's configuration: loopback listeners only, no usage reporting, no _internal database. */
export function influxdConfig(o: { dir: string; httpPort: number; rpcPort: number }): string {
  const q = (s: string) => JSON.stringify(s);
  return [
    '# written by lfnlab: loopback only',
    'reporting-disabled = true',
    // Debian's build spells the setting this way; influxd ignores the spelling it does not know.
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
    '[http]',
    `  bind-address = ${q(`127.0.0.1:${o.httpPort}`)}`,
    '  log-enabled = false',
    '[logging]',
    '  suppress-logo = true',
    '',
  ].join('\n');
}

export interface LocalInfluxd {
  url: string;
  httpPort: number;
  rpcPort: number;
  dir: string;
  pid: number;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL at once (a crash); resolves when the process is gone. */
  kill(): Promise<void>;
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

/**
 * Start influxd on `dir` (created if missing) and wait, up to `timeoutMs`, until /ping answers.
 * Ports default to free ones; pass the same ones to restart on the same data directory.
 */
export async function startLocalInfluxd(o: {
  dir: string;
  httpPort?: number;
  rpcPort?: number;
  bin?: string;
  timeoutMs?: number;
}): Promise<LocalInfluxd> {
  const bin = o.bin ?? findInfluxd();
  if (!bin) throw new Error(`influxd (1.x) is not installed; ${INSTALL_HINT}`);
  const httpPort = o.httpPort ?? (await freePort());
  const rpcPort = o.rpcPort ?? (await freePort());
  for (const d of ['meta', 'data', 'wal']) mkdirSync(join(o.dir, d), { recursive: true });
  const config = join(o.dir, 'influxd.conf');
  writeFileSync(config, influxdConfig({ dir: o.dir, httpPort, rpcPort }));
  const logPath = join(o.dir, 'influxd.log');
  const logFd = openSync(logPath, 'a');
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('INFLUXDB_')));
  const child = spawn(bin, ['run', '-config', config], { env, stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  const gone = exited(child);
  const url = `http://127.0.0.1:${httpPort}`;
  const client = new InfluxClient({ url, timeoutMs: 1000 });
  const deadline = Date.now() + (o.timeoutMs ?? 30_000);
  const logTail = () => readFileSync(logPath, 'utf8').split('\n').slice(-15).join('\n');
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `influxd exited (${child.exitCode ?? child.signalCode}) before answering /ping:\n${logTail()}`,
      );
    try {
      await client.ping();
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        await gone;
        throw new Error(
          `influxd did not answer ${url}/ping within ${o.timeoutMs ?? 30_000} ms:\n${logTail()}`,
        );
      }
      // Poll /ping until it answers or the process ends, whichever is first.
      await Promise.race([gone, new Promise((r) => setTimeout(r, 50))]);
    }
  }
  const pid = child.pid as number;
  return {
    url,
    httpPort,
    rpcPort,
    dir: o.dir,
    pid,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await gone;
      clearTimeout(t);
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await gone;
    },
  };
}
