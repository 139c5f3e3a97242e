import { describe, expect, it } from 'vitest';
import { WorkerRegistry } from './workerRegistry.js';

const pcA = { tokenId: 't1', host: 'pcA' };
const hb = (runId: string | null, extra = {}) => ({
  instance: 'i1',
  machine: 'labpc01.lan',
  version: '0.9.0',
  labs: [
    { name: 'default', runId },
    { name: 'default-2', runId: null },
  ],
  ...extra,
});

describe('the service’s list of workers', () => {
  it('shows each worker’s labs busy or idle, run ids only to admins, away when silent, gone when it leaves', () => {
    let now = 1_000_000;
    const reg = new WorkerRegistry({ awayAfterMs: 15_000, forgetAfterMs: 60_000, now: () => now });
    reg.heard(pcA, hb('run-1'));
    expect(reg.list({ withRuns: false })).toEqual([
      {
        name: 'pcA',
        host: 'labpc01.lan',
        version: '0.9.0',
        state: 'busy',
        labs: [
          { name: 'default', state: 'busy' },
          { name: 'default-2', state: 'idle' },
        ],
        lastSeenAt: new Date(1_000_000).toISOString(),
        lastSeenS: 0,
      },
    ]);
    expect(reg.list({ withRuns: true })[0]?.labs[0]).toEqual({
      name: 'default',
      state: 'busy',
      runId: 'run-1',
    });
    now += 16_000;
    expect(reg.list({ withRuns: false })[0]).toMatchObject({ state: 'away', lastSeenS: 16 });
    reg.heard(pcA, hb(null));
    expect(reg.list({ withRuns: false })[0]?.state).toBe('idle');
    // Another token's worker with the same instance id is another entry.
    reg.heard({ tokenId: 't2', host: 'pcB' }, hb(null));
    expect(reg.list({ withRuns: false }).map((w) => w.name)).toEqual(['pcA', 'pcB']);
    reg.heard(pcA, hb(null, { leaving: true }));
    expect(reg.list({ withRuns: false }).map((w) => w.name)).toEqual(['pcB']);
    now += 61_000;
    expect(reg.list({ withRuns: false })).toEqual([]);
  });
});
