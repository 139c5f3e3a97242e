// Test support only: the fixtures the integration tests of emulator/sampling, emulator/traffic and
// emulator/transports share. They build the C programs, run them and collect their output, and give them a
// throwaway pair of network namespaces joined by a veth pair. Nothing outside *.test.ts files uses this
// module; it lives outside src so it is never built into dist (tsconfig.test.json type-checks it).
//
// Every command is an argv array run without a shell.

import { type ChildProcess, execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';

/** Creating namespaces, veth pairs and qdiscs needs root. */
export const isRoot = process.getuid?.() === 0;

/** Whether a program runs and exits 0 (`gcc --version`: can the C programs be built here?). */
export function runs(program: string, args: string[] = ['--version']): boolean {
  try {
    execFileSync(program, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** `make -C dir targets...` (no targets: the Makefile's default). */
export async function make(dir: string, targets: string[] = [], timeoutMs = 120_000): Promise<void> {
  await promisify(execFile)('make', ['-C', dir, ...targets], { timeout: timeoutMs });
}

/** Runs a command to the end and returns its stdout; throws with its stderr if it fails. */
export function sh(argv: string[]): string {
  const [program, ...args] = argv;
  if (program === undefined) throw new Error('empty argv');
  const r = spawnSync(program, args, { encoding: 'utf8', timeout: 30_000 });
  if (r.error) throw r.error;
  if (r.status !== 0)
    throw new Error(`${argv.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr.trim()}`);
  return r.stdout;
}

/** argv run inside network namespace `ns`. */
export const inNs = (ns: string, argv: string[]) => ['ip', 'netns', 'exec', ns, ...argv];

function deleteNamespace(ns: string): void {
  // Deleting a namespace that is already gone is fine; anything else should not go unnoticed.
  const r = spawnSync('ip', ['netns', 'delete', ns], { encoding: 'utf8' });
  if (r.status !== 0 && !/No such file/.test(r.stderr))
    console.warn(`ip netns delete ${ns}: ${r.stderr.trim()}`);
}

/** Namespaces left behind by an earlier run of a test file that was killed before its afterAll. */
function deleteStaleNamespaces(prefix: string): void {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`^(${escaped}(\\d+)-[ab])\\b`);
  for (const row of sh(['ip', 'netns', 'list']).split('\n')) {
    const m = pattern.exec(row);
    if (!m?.[1] || !m[2] || Number(m[2]) === process.pid) continue;
    try {
      process.kill(Number(m[2]), 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') deleteNamespace(m[1]);
    }
  }
}

/**
 * A test file's throwaway pair of namespaces, `<prefix><pid>-a` and `-b`, joined by a veth pair whose
 * ends have an address in a /24 (by default from TEST-NET-1). The pid in the names lets a later run find
 * and delete the namespaces of a run that was killed before its afterAll.
 */
export class VethPair {
  readonly prefix: string;
  readonly nsA: string;
  readonly nsB: string;
  readonly devA: string;
  readonly devB: string;
  readonly addrA: string;
  readonly addrB: string;

  constructor(o: { prefix: string; devA: string; devB: string; addrA?: string; addrB?: string }) {
    this.prefix = o.prefix;
    this.nsA = `${o.prefix}${process.pid}-a`;
    this.nsB = `${o.prefix}${process.pid}-b`;
    this.devA = o.devA;
    this.devB = o.devB;
    this.addrA = o.addrA ?? '192.0.2.1';
    this.addrB = o.addrB ?? '192.0.2.2';
  }

  /**
   * Deletes the stale namespaces of earlier runs, then creates both namespaces, the veth pair and the
   * addresses, and brings every link (lo included) up. If a step fails, deletes both and rethrows.
   */
  create(): void {
    deleteStaleNamespaces(this.prefix);
    const { nsA, nsB, devA, devB } = this;
    try {
      sh(['ip', 'netns', 'add', nsA]);
      sh(['ip', 'netns', 'add', nsB]);
      sh(['ip', '-n', nsA, 'link', 'add', devA, 'type', 'veth', 'peer', 'name', devB, 'netns', nsB]);
      sh(['ip', '-n', nsA, 'addr', 'add', `${this.addrA}/24`, 'dev', devA]);
      sh(['ip', '-n', nsB, 'addr', 'add', `${this.addrB}/24`, 'dev', devB]);
      for (const [ns, dev] of [
        [nsA, devA],
        [nsB, devB],
      ] as const) {
        sh(['ip', '-n', ns, 'link', 'set', 'lo', 'up']);
        sh(['ip', '-n', ns, 'link', 'set', dev, 'up']);
      }
    } catch (err) {
      this.delete();
      throw err;
    }
  }

  /** Deletes both namespaces (a namespace takes its end of the veth pair with it). */
  delete(): void {
    deleteNamespace(this.nsA);
    deleteNamespace(this.nsB);
  }
}

/** A tbf qdisc as the root of `dev` in `ns`: a bottleneck with a bounded queue. */
export function addTbf(ns: string, dev: string, o: { rate: string; burst: string; limit: string }): void {
  const shape = ['rate', o.rate, 'burst', o.burst, 'limit', o.limit];
  sh(inNs(ns, ['tc', 'qdisc', 'add', 'dev', dev, 'root', 'tbf', ...shape]));
}

/** A finished process: its stdout lines, how it ended, and its stderr. */
export interface Run {
  lines: string[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** A running child whose stdout lines are collected; `line(pred)` resolves on the first match. */
export class LineProcess {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  /** Resolves once the child has exited and both pipes are drained ('close'), so no output is missed. */
  readonly done: Promise<Run>;
  private stderrText = '';
  private waiters: { pred: (l: string) => boolean; resolve: (l: string) => void }[] = [];

  /** `onLine` sees each line as it comes, e.g. to signal the child once it has printed enough. */
  constructor(
    argv: string[],
    private readonly onLine?: (line: string, child: ChildProcess) => void,
  ) {
    const [program, ...args] = argv;
    if (program === undefined) throw new Error('empty argv');
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let partial = '';
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (d: string) => {
      this.stderrText += d;
    });
    child.stdout?.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const l of parts) this.push(l);
    });
    this.done = once(child, 'close').then(([code, signal]) => {
      if (partial) this.push(partial);
      for (const w of this.waiters) w.resolve('');
      this.waiters = [];
      return { lines: this.lines, code, signal, stderr: this.stderrText } as Run;
    });
  }

  /** stderr so far. */
  get stderr(): string {
    return this.stderrText;
  }

  private push(l: string): void {
    this.lines.push(l);
    this.onLine?.(l, this.child);
    this.waiters = this.waiters.filter((w) => {
      if (!w.pred(l)) return true;
      w.resolve(l);
      return false;
    });
  }

  /** First stdout line matching `pred` (already seen or still to come); '' if the process ends first. */
  line(pred: (l: string) => boolean): Promise<string> {
    const seen = this.lines.find(pred);
    if (seen !== undefined) return Promise.resolve(seen);
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve('');
    return new Promise((resolve) => this.waiters.push({ pred, resolve }));
  }

  /** SIGTERM unless it has already ended; resolves when it has. */
  async stop(): Promise<Run> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    return this.done;
  }
}

/** Runs argv to the end; `onLine` sees each stdout line as it comes (e.g. to signal the child). */
export function runLines(argv: string[], onLine?: (line: string, child: ChildProcess) => void): Promise<Run> {
  return new LineProcess(argv, onLine).done;
}
