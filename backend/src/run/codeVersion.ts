// Which lfnlab this is: the backend package's version and, in a git checkout, the commit and
// whether tracked files differed from it. A run records it beside the image id, so a verdict can
// be traced to the code that judged it (a worker reports the version; a re-judged run notes both).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export interface CodeIdentity {
  version: string;
  /** 12 hex digits; null outside a git checkout. */
  commit: string | null;
  /** Tracked files differed from the commit (uncommitted edits); null outside a git checkout. */
  modified: boolean | null;
}

export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

const git = (args: string[]) =>
  execFileSync('git', ['-C', ROOT, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();

let identity: CodeIdentity | undefined;

/**
 * Read once per process: the code a process loaded is the checkout as it stood then, whatever a
 * later edit or pull does to the tree while a long campaign runs.
 */
export function codeIdentity(): CodeIdentity {
  if (identity) return identity;
  let commit: string | null = null;
  let modified: boolean | null = null;
  try {
    commit = git(['rev-parse', '--short=12', 'HEAD']);
    // Untracked files (run records, local campaigns) are not code: only tracked changes count.
    modified = git(['status', '--porcelain', '--untracked-files=no']) !== '';
  } catch {
    // Not a checkout (an unpacked release) or no git: the package version alone.
  }
  identity = { version: packageVersion(), commit, modified };
  return identity;
}

/** `lfnlab 0.1.0 (abc123def456)`, `… (abc123def456, modified)`, or without the commit outside git. */
export function codeVersion(id: CodeIdentity = codeIdentity()): string {
  if (!id.commit) return `lfnlab ${id.version}`;
  return `lfnlab ${id.version} (${id.commit}${id.modified ? ', modified' : ''})`;
}
