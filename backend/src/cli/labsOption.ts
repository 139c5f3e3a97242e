// --labs N for the commands that run campaigns: checked, defaulted from the host, warned about
// when it asks for more labs than the host fits.
import { availableParallelism } from 'node:os';
import { defaultLabCount } from '../campaign/labPool.js';
import { UsageError } from './args.js';

/** --labs N: a whole number from 1 to 8 (more than the host's default is allowed, and warned of). */
export function parseLabCount(text: string | undefined, warn: (line: string) => void): number {
  if (text === undefined) return defaultLabCount();
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 8)
    throw new UsageError(`--labs must be a whole number from 1 to 8 (got ${text})`);
  const fit = defaultLabCount();
  if (n > fit)
    warn(
      `--labs ${n}: this host fits ${fit} (${availableParallelism()} cores, one lab per two); the labs will compete for CPU, and each run's verdict says when that held a flow back`,
    );
  return n;
}
