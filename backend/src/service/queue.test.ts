import { describe, expect, it } from 'vitest';
import { InProcessQueue, type RunJob } from './queue.js';

const job = (runId: string, lab = 'default'): RunJob => ({
  runId,
  lab,
  owner: 'u',
  outDir: `/tmp/${runId}`,
  specText: 'x',
  preset: null,
  campaign: null,
});

function gate() {
  let open: () => void = () => undefined;
  const p = new Promise<void>((r) => {
    open = r;
  });
  return { p, open };
}

describe('InProcessQueue', () => {
  it('runs one job per lab at a time, in order, and labs in parallel', async () => {
    const q = new InProcessQueue();
    const log: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    q.process(async (j) => {
      log.push(`start ${j.runId}`);
      const g = gate();
      gates.set(j.runId, g);
      await g.p;
      log.push(`end ${j.runId}`);
    });
    await q.enqueue(job('a1'));
    await q.enqueue(job('a2'));
    await q.enqueue(job('b1', 'other'));
    expect(log).toEqual(['start a1', 'start b1']);
    expect(await q.counts()).toEqual({ waiting: 1, active: 2 });
    expect([...(await q.activeLabs())].sort()).toEqual(['default', 'other']);
    gates.get('a1')?.open();
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['start a1', 'start b1', 'end a1', 'start a2']);
    gates.get('a2')?.open();
    gates.get('b1')?.open();
    await q.close();
  });

  it('removes waiting jobs and signals running ones on cancel', async () => {
    const q = new InProcessQueue();
    let signal: AbortSignal | null = null;
    const stopped = gate();
    q.process(async (_j, s) => {
      signal = s;
      await new Promise<void>((r) => s.addEventListener('abort', () => r()));
      stopped.open();
    });
    await q.enqueue(job('r'));
    await q.enqueue(job('w'));
    expect(await q.cancel('w')).toBe('removed');
    expect(await q.cancel('r')).toBe('signalled');
    await stopped.p;
    expect((signal as AbortSignal | null)?.aborted).toBe(true);
    expect(await q.cancel('nothing')).toBe('unknown');
    await q.close();
  });

  it('hands the worker a JSON copy of the job, as a remote queue would', async () => {
    const q = new InProcessQueue();
    const seen: RunJob[] = [];
    const done = gate();
    q.process(async (j) => {
      seen.push(j);
      done.open();
    });
    const original = job('j');
    await q.enqueue(original);
    await done.p;
    expect(seen[0]).toEqual(original);
    expect(seen[0]).not.toBe(original);
    await q.close();
  });
});
