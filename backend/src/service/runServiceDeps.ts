// What RunService is built from, in a module of its own so the helpers it hands work to
// (runRecovery, runEnqueue, activeRun …) can each take just the parts they use.
import type { Storage } from '../storage/runStorage.js';
import type { Access } from './access.js';
import type { Accounts } from './accounts.js';
import type { LiveHub } from './liveHub.js';
import type { RunQueue } from './queue.js';
import type { RunExecutor } from './runExecutor.js';
import type { RunStore } from './runStore.js';
import type { SpecStore } from './specStore.js';

export interface RunServiceDeps {
  store: RunStore;
  queue: RunQueue;
  /** Drives this host's labs; null when `lfnlab worker` processes run the jobs (no queue.process()). */
  executor: RunExecutor | null;
  hub: LiveHub;
  storage: Storage;
  accounts: Accounts;
  access: Access;
  specs: SpecStore;
  log: (line: string) => void;
  /**
   * The labs a run goes to when it names none (`lfnlab serve --labs N`: default, default-2 …):
   * each such run joins the shortest line. Default: the one lab 'default'.
   */
  pool?: readonly string[];
}
