// Which lfnlab this is: the backend package's version, and the git commit of the checkout when
// there is one (a worker reports the first; a re-judged run notes both).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** `lfnlab 0.1.0 (abc123def456)`, or without the commit outside a git checkout. */
export function codeVersion(): string {
  try {
    const rev = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short=12', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return `lfnlab ${packageVersion()} (${rev})`;
  } catch {
    return `lfnlab ${packageVersion()}`;
  }
}
