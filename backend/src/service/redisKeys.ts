// Names in Redis for one lab host's run queues: BullMQ queues "lfnlab.<host>.<lab>", and this
// project's own keys and channels beside them (the host's labs, stop requests).
import { hostname } from 'node:os';

export const HOST_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;

/** A host name as a queue-name part: letters, digits, "_" and "-" (BullMQ forbids ":"). */
export function defaultHostId(name = hostname()): string {
  const id = name
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^[-_]+/, '')
    .slice(0, 63);
  return id || 'host';
}

export const queueNameOf = (hostId: string, lab: string) => `lfnlab.${hostId}.${lab}`;

export interface HostKeys {
  /** A set: every lab of the host that has had a job. */
  labs: string;
  /** Announces a lab's first job to workers of this host that have no worker for it yet. */
  newLabChannel: string;
  /** Run ids whose running job must stop. */
  cancelChannel: string;
  /** Set with the message: a worker that has the job but has not started its handler reads it. */
  cancelKey(runId: string): string;
}

export function hostKeys(hostId: string): HostKeys {
  const base = `lfnlab:host:${hostId}`;
  return {
    labs: `${base}:labs`,
    newLabChannel: `${base}:new-lab`,
    cancelChannel: `${base}:cancel`,
    cancelKey: (runId) => `${base}:cancel:${runId}`,
  };
}
