import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where big downloads and builds live: never in git. $LFNLAB_CACHE, else ~/.cache/lfnlab. */
export function cacheDir(...parts: string[]): string {
  const base =
    process.env.LFNLAB_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'lfnlab');
  return join(base, ...parts);
}
