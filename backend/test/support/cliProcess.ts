// The built CLI (backend/bin/lfnlab.js over backend/dist) as a real child process for integration
// tests: its output kept for failure messages, stopped gracefully (SIGINT) or killed (SIGKILL), and
// never left running when the test process ends.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
export const LFNLAB_BIN = join(repo, 'backend/bin/lfnlab.js');
export const CLI_BUILT = existsSync(join(repo, 'backend/dist/cli/main.js'));

export class CliProcess {
  private out = '';
  private child: ChildProcess | null = null;

  constructor(
    readonly name: string,
    private readonly args: string[],
    private readonly cwd: string,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  output = () => this.out;

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    const c = this.child;
    return !!c && c.exitCode === null && c.signalCode === null;
  }

  /** Starts it; resolves once `ready` (polled every 100 ms) holds, rejects with its output otherwise. */
  async start(ready: (p: CliProcess) => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
    this.out = '';
    const child = spawn(process.execPath, [LFNLAB_BIN, ...this.args], {
      cwd: this.cwd,
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d) => (this.out += d));
    child.stderr?.on('data', (d) => (this.out += d));
    const guard = () => child.kill('SIGKILL');
    process.once('exit', guard);
    child.once('exit', () => process.off('exit', guard));
    this.child = child;
    await until(
      async () => {
        if (!this.running) throw new Error(`${this.name} exited (${child.exitCode}):\n${this.out}`);
        return ready(this);
      },
      ms,
      () => this.out,
    );
  }

  /** Runs to its end; resolves with the exit code (for processes that should refuse to start). */
  async exitCode(ms = 30_000): Promise<number | null> {
    await until(
      async () => !this.running,
      ms,
      () => this.out,
    );
    return this.child?.exitCode ?? null;
  }

  async stop(graceMs = 20_000): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGINT');
    const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await gone;
    clearTimeout(t);
  }

  /** SIGKILL: it dies without recording or reporting anything. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGKILL');
    await gone;
  }
}

/** Polls `check` every 100 ms until it holds; fails after `ms` with `context()` in the message. */
export async function until(
  check: () => Promise<boolean> | boolean,
  ms: number,
  context: () => string = () => '',
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${ms} ms\n${context().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** TCP sockets the process listens on (Linux /proc): its socket inodes found in LISTEN state. */
export function listeningSockets(pid: number): string[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m?.[1]) inodes.add(m[1]);
    } catch {} // closed meanwhile
  }
  const out: string[] = [];
  for (const table of ['tcp', 'tcp6']) {
    const lines = readFileSync(`/proc/${pid}/net/${table}`, 'utf8').trim().split('\n').slice(1);
    for (const line of lines) {
      const f = line.trim().split(/\s+/);
      // local address, state 0A = LISTEN, inode
      if (f[3] === '0A' && f[9] && inodes.has(f[9])) out.push(`${table} ${f[1]}`);
    }
  }
  return out;
}
