// How many labs a campaign may keep at once on this host: one lab VM is one vCPU and 2 GiB, and
// the host needs a core of its own per lab for the run's host side (agent channel, summaries), so
// the default is half the cores, as far as memory allows, and at least one.
import { availableParallelism, totalmem } from 'node:os';

const LAB_MEM_GIB = 2;
/** Left for the host, the service and InfluxDB. */
const HOST_MEM_GIB = 2;

const labsByMemory = (memGiB: number) => Math.floor((memGiB - HOST_MEM_GIB) / LAB_MEM_GIB);

/**
 * How many labs run side by side without slowing one another. A dilated lab's clock counts its
 * own instructions: it needs one core, and a busy host slows its wall time, never its numbers (two
 * selfsimilar runs side by side on 2 cores: 485 s against 522 s alone). A realtime lab needs the
 * default's spare core per lab.
 */
export function labsThatFit(
  clock: 'realtime' | 'dilated',
  cores = availableParallelism(),
  memGiB = totalmem() / 2 ** 30,
): number {
  if (clock === 'realtime') return defaultLabCount(cores, memGiB);
  return Math.max(1, Math.min(cores, labsByMemory(memGiB)));
}

export function defaultLabCount(cores = availableParallelism(), memGiB = totalmem() / 2 ** 30): number {
  const byCores = Math.floor(cores / 2);
  return Math.max(1, Math.min(byCores, labsByMemory(memGiB)));
}
