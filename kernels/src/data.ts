import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Where the user's own state lives (the service's accounts and specs, the stacks they added, a
 * vendor kernel override): $LFNLAB_DATA, else $XDG_DATA_HOME/lfnlab, else ~/.local/share/lfnlab.
 * Unlike the cache, nothing here can be rebuilt from the repository.
 */
export function dataDir(...parts: string[]): string {
  const base = process.env.LFNLAB_DATA
    ? resolve(process.env.LFNLAB_DATA)
    : process.env.XDG_DATA_HOME
      ? join(process.env.XDG_DATA_HOME, 'lfnlab')
      : process.env.HOME
        ? join(homedir(), '.local', 'share', 'lfnlab')
        : resolve('.lfnlab');
  return join(base, ...parts);
}
