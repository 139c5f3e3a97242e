// How many labs a campaign may keep at once on this host: one lab VM is one vCPU and 2 GiB, and
// the host needs a core of its own per lab for the run's host side (agent channel, summaries), so
// the default is half the cores, as far as memory allows, and at least one.
import { availableParallelism, totalmem } from 'node:os';

const LAB_MEM_GIB = 2;
/** Left for the host, the service and InfluxDB. */
const HOST_MEM_GIB = 2;

export function defaultLabCount(cores = availableParallelism(), memGiB = totalmem() / 2 ** 30): number {
  const byCores = Math.floor(cores / 2);
  const byMemory = Math.floor((memGiB - HOST_MEM_GIB) / LAB_MEM_GIB);
  return Math.max(1, Math.min(byCores, byMemory));
}
