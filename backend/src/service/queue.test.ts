import { describe, expect, it } from 'vitest';
import { InProcessQueue, type RunJob } from './queue.js';

const job = (runId: string, lab = 'default', owner = 'u'): RunJob => ({
  runId,
  lab,
  owner,
  outDir: `/tmp/${runId}`,
  specText: 'x',
  spec: {} as RunJob['spec'],
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

  it('takes turns across owners: a 5-run campaign does not keep a second student waiting', async () => {
    const q = new InProcessQueue();
    const started: string[] = [];
    const gates: Array<() => void> = [];
    q.process(async (j) => {
      started.push(j.runId);
      await new Promise<void>((r) => gates.push(r));
    });
    for (const id of ['a1', 'a2', 'a3', 'a4', 'a5']) await q.enqueue(job(id, 'default', 'alice'));
    await q.enqueue(job('b1', 'default', 'bob'));
    await q.enqueue(job('c1', 'default', 'carol'));
    await q.enqueue(job('b2', 'default', 'bob'));
    // a1 runs; alice has had a turn, so bob and carol go before her second run.
    expect((await q.waitingJobs()).map((j) => j.runId)).toEqual(['b1', 'c1', 'a2', 'b2', 'a3', 'a4', 'a5']);
    while (gates.length) {
      gates.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4', 'a5']);
    await q.close();
  });

  it('moves a waiting run before another of its lab, or to the end; refuses other labs', async () => {
    const q = new InProcessQueue();
    q.process((_j, signal) => new Promise<void>((r) => signal.addEventListener('abort', () => r())));
    for (const id of ['r', 'w1', 'w2', 'w3']) await q.enqueue(job(id));
    await q.enqueue(job('x1', 'other'));
    await q.enqueue(job('x2', 'other'));
    const order = async () => (await q.waitingJobs()).filter((j) => j.lab === 'default').map((j) => j.runId);
    expect(await order()).toEqual(['w1', 'w2', 'w3']);
    expect(await q.move('w3', 'w1')).toBe(true);
    expect(await order()).toEqual(['w3', 'w1', 'w2']);
    expect(await q.move('w3', null)).toBe(true);
    expect(await order()).toEqual(['w1', 'w2', 'w3']);
    expect(await q.move('w1', 'x2')).toBe(false);
    expect(await q.move('r', 'w1')).toBe(false); // running, not waiting
    expect((await q.runningJobs()).map((j) => j.runId).sort()).toEqual(['r', 'x1']);
    await q.close();
  });
});
