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
  /** Tracked code differed from the commit (uncommitted edits); null outside a git checkout. */
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

/** git pathspecs of what is code: everything tracked but published results and Markdown. */
export const CODE_PATHS = ['.', ':(exclude)presets/results', ':(exclude)*.md'];

/** The commit a checkout at `root` is on and whether its tracked code differs; nulls outside git. */
export function checkoutState(root: string): Pick<CodeIdentity, 'commit' | 'modified'> {
  const git = (args: string[]) =>
    execFileSync('git', ['-C', root, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  try {
    const commit = git(['rev-parse', '--short=12', 'HEAD']);
    // Only code counts: not untracked files (run records, local campaigns), not the published
    // results and prose a reproduction rewrites as it goes.
    return {
      commit,
      modified: git(['status', '--porcelain', '--untracked-files=no', '--', ...CODE_PATHS]) !== '',
    };
  } catch {
    // Not a checkout (an unpacked release) or no git: the package version alone.
    return { commit: null, modified: null };
  }
}

let identity: CodeIdentity | undefined;

/**
 * Read once per process: the code a process loaded is the checkout as it stood then, whatever a
 * later edit or pull does to the tree while a long campaign runs.
 */
export function codeIdentity(): CodeIdentity {
  identity ??= { version: packageVersion(), ...checkoutState(ROOT) };
  return identity;
}

/** `lfnlab 0.1.0 (abc123def456)`, `… (abc123def456, modified)`, or without the commit outside git. */
export function codeVersion(id: CodeIdentity = codeIdentity()): string {
  if (!id.commit) return `lfnlab ${id.version}`;
  return `lfnlab ${id.version} (${id.commit}${id.modified ? ', modified' : ''})`;
}
