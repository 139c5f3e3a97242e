import { spawn } from 'node:child_process';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run argv (never a shell string) and collect its output. */
export function run(
  argv: readonly string[],
  opts: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const [cmd, ...args] = argv;
    if (!cmd) return reject(new Error('empty argv'));
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      // No stdin unless there is input: a process that exits without reading it would make the
      // write fail with EPIPE, which Node raises as an unhandled error.
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code: code ?? -1,
        stdout: Buffer.concat(out).toString(),
        stderr: Buffer.concat(err).toString(),
      }),
    );
    if (child.stdin) {
      // A child may exit before reading all of its input; its exit code tells the story, not EPIPE.
      child.stdin.on('error', () => undefined);
      child.stdin.end(opts.input);
    }
  });
}

/** Run argv and fail with its stderr when it exits non-zero. */
export async function runOk(argv: readonly string[], opts: Parameters<typeof run>[1] = {}): Promise<string> {
  const r = await run(argv, opts);
  if (r.code !== 0)
    throw new Error(`${argv.join(' ')} exited ${r.code}: ${r.stderr.trim() || r.stdout.trim()}`);
  return r.stdout;
}
