// A private redis-server on the loopback interface with its own directory and port, append-only
// file on: what the Redis queue's tests run against (real processes, no mocks). Nothing listens
// beyond 127.0.0.1 and no shell is involved.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from '@lfnlab/grafana/testing';

/** The redis-server binary on PATH (or $REDIS_SERVER), or null with none installed. */
export function findRedisServer(): string | null {
  const candidates = [process.env.REDIS_SERVER, 'redis-server'].filter((x): x is string => !!x);
  for (const bin of candidates) {
    const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000 });
    if (r.status === 0 && /Redis server v=\d/.test(r.stdout)) return bin;
  }
  return null;
}

export const REDIS_INSTALL_HINT =
  'install it with: apt-get install -y redis-server (scripts/setup.sh does; it starts no service)';

export interface LocalRedis {
  url: string;
  port: number;
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

/** One PING over a fresh connection: true on +PONG (a loading server answers -LOADING). */
export function pingRedis(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    let got = '';
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.on('error', () => done(false));
    s.on('connect', () => s.write('PING\r\n'));
    s.on('data', (d) => {
      got += d.toString('latin1');
      // -NOAUTH: up, but asks for a password (an ACL user's, or requirepass).
      if (got.includes('\r\n')) done(got.startsWith('+PONG') || got.startsWith('-NOAUTH'));
    });
  });
}

/**
 * Start redis-server on `dir` (created if missing) and wait, up to `timeoutMs`, until it answers
 * PING. Every write is fsynced to the append-only file before it is acknowledged, so a SIGKILL
 * loses nothing a client was told had been stored. Pass the same port to restart on the same dir.
 */
export async function startLocalRedis(o: {
  dir: string;
  port?: number;
  bin?: string;
  timeoutMs?: number;
  /** More redis-server options, e.g. ACL users: ['--user', 'lab', 'on', '>pw', '~*', '&*', '+@all']. */
  args?: string[];
}): Promise<LocalRedis> {
  const bin = o.bin ?? findRedisServer();
  if (!bin) throw new Error(`redis-server is not installed; ${REDIS_INSTALL_HINT}`);
  const port = o.port ?? (await freePort());
  mkdirSync(o.dir, { recursive: true });
  const logPath = join(o.dir, 'redis.log');
  const args = [
    '--bind',
    '127.0.0.1',
    '--port',
    String(port),
    '--dir',
    o.dir,
    '--appendonly',
    'yes',
    '--appendfsync',
    'always',
    '--save',
    '',
    '--daemonize',
    'no',
    '--protected-mode',
    'yes',
    '--logfile',
    '',
    ...(o.args ?? []),
  ];
  const logFd = openSync(logPath, 'a');
  const child = spawn(bin, args, { stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  // A test process that ends without stopping it (a timeout, a crash) must not leave it running.
  const orphanGuard = () => child.kill('SIGKILL');
  process.once('exit', orphanGuard);
  const gone = exited(child).then(() => {
    process.off('exit', orphanGuard);
  });
  const deadline = Date.now() + (o.timeoutMs ?? 20_000);
  const logTail = () => readFileSync(logPath, 'utf8').split('\n').slice(-15).join('\n');
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `redis-server exited (${child.exitCode ?? child.signalCode}) before answering:\n${logTail()}`,
      );
    if (await pingRedis(port)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await gone;
      throw new Error(`redis-server did not answer PING on port ${port}:\n${logTail()}`);
    }
    // Poll until it answers or the process ends, whichever is first.
    await Promise.race([gone, new Promise((r) => setTimeout(r, 50))]);
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir: o.dir,
    pid: child.pid as number,
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
