import { validateSpec } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_OVERHEAD_S,
  expectedDilatedPace,
  overheadS,
  queueSpots,
  wallEstimate,
} from './queueEstimate.js';
import type { Run } from './types.js';

const run = (id: string, o: Partial<Run> = {}): Run =>
  ({
    id,
    name: id,
    owner: 'u',
    ownerId: 'u',
    status: 'queued',
    verdict: null,
    preset: null,
    campaign: null,
    lab: 'default',
    stacks: ['reno'],
    createdAt: '2026-01-01T00:00:00.000Z',
    startedAt: null,
    finishedAt: null,
    progress: { elapsedS: 0, totalS: 60 },
    error: null,
    partial: false,
    spec: {} as Run['spec'],
    ...o,
  }) as Run;

describe('queue estimates', () => {
  it('learns the per-run overhead from the lab’s completed runs (median), else a default', () => {
    expect(overheadS([])).toBe(DEFAULT_OVERHEAD_S);
    const done = (id: string, wallS: number) =>
      run(id, {
        status: 'completed',
        startedAt: '2026-01-01T00:00:00.000Z',
        finishedAt: new Date(Date.parse('2026-01-01T00:00:00.000Z') + wallS * 1000).toISOString(),
      });
    // 60 s of traffic in 70, 75 and 100 s of wall time: 10, 15, 40 s of overhead → 15.
    expect(overheadS([done('a', 70), done('b', 75), done('c', 100)])).toBe(15);
  });

  it('adds the running run’s rest and every earlier run’s length at the lab’s pace', () => {
    const now = new Date('2026-01-01T00:01:00.000Z');
    const running = run('r', { status: 'running', startedAt: '2026-01-01T00:00:30.000Z' });
    const waiting = [run('w1'), run('w2', { progress: { elapsedS: 0, totalS: 30 } }), run('w3')];
    const spots = queueSpots({ running, waiting, history: [running, ...waiting] }, now);
    // Running: 60 s + 20 s overhead, 30 s gone → 50 s left; w1 adds 80 s, w2 adds 50 s.
    expect(spots.get('w1')).toMatchObject({ position: 1, ahead: 1, estimatedWaitS: 50 });
    expect(spots.get('w2')).toMatchObject({ position: 2, ahead: 2, estimatedWaitS: 130 });
    expect(spots.get('w3')).toMatchObject({ position: 3, ahead: 3, estimatedWaitS: 180 });
    expect(spots.get('w3')?.estimatedStartAt).toBe('2026-01-01T00:04:00.000Z');
  });

  it('under a dilated clock a lab second takes longer than a wall second', () => {
    const now = new Date('2026-01-01T00:00:00.000Z');
    const slow = run('old', {
      status: 'completed',
      progress: { elapsedS: 60, totalS: 60, dilation: 0.5 },
      startedAt: '2025-12-31T23:00:00.000Z',
      finishedAt: '2025-12-31T23:02:20.000Z',
    });
    const spots = queueSpots({ running: null, waiting: [run('w1'), run('w2')], history: [slow] }, now);
    // Pace 0.5: 60 lab s = 120 wall s, overhead 140 − 120 = 20 s.
    expect(spots.get('w1')).toMatchObject({ position: 1, ahead: 0, estimatedWaitS: 0 });
    expect(spots.get('w2')?.estimatedWaitS).toBe(140);
  });

  it('prices runs not yet queued with the same pace and overhead: lab time / pace + overhead each', () => {
    const at = (pace: number, ...labS: number[]) => labS.map((s) => ({ labS: s, pace }));
    const fresh = wallEstimate(at(1, 10, 10, 30), []);
    expect(fresh).toEqual({
      runs: 3,
      labS: 50,
      wallS: 50 + 3 * DEFAULT_OVERHEAD_S,
      pace: 1,
      overheadS: DEFAULT_OVERHEAD_S,
      fromHistory: false,
    });
    // A dilated lab at a third of real time, 10 s set-up per run: 60 lab s → 180 + 10 wall s.
    const dilated = run('d', {
      status: 'completed',
      startedAt: '2026-01-01T00:00:00.000Z',
      finishedAt: '2026-01-01T00:03:10.000Z',
      progress: { elapsedS: 60, totalS: 60, dilation: 1 / 3 },
    });
    // The lab's own pace wins over what the runs were expected to keep.
    const e = wallEstimate(at(0.12, 60), [dilated]);
    expect(e.pace).toBeCloseTo(1 / 3);
    expect(e.overheadS).toBeCloseTo(10);
    expect(e.wallS).toBe(190);
    expect(e.fromHistory).toBe(true);
  });

  it('before the lab has a pace, takes each run at the pace expected of it', () => {
    // 60 lab s at 0.12 and 60 at 0.35: 500 + 171.4 wall s, one pace of 120 / 671.4 = 0.18.
    const e = wallEstimate(
      [
        { labS: 60, pace: 0.12 },
        { labS: 60, pace: 0.35 },
      ],
      [],
    );
    expect(e.pace).toBe(0.18);
    expect(e.wallS).toBe(Math.round(120 / 0.18 + 2 * DEFAULT_OVERHEAD_S));
    expect(e.fromHistory).toBe(false);
  });
});

describe('the pace expected of a dilated lab before it has history', () => {
  const spec = (rate: string, extra: Record<string, unknown> = {}) => {
    const v = validateSpec({
      name: 'pace',
      duration: '30s',
      paths: { main: { rtt: '50ms', rate } },
      flows: [{ stack: 'reno' }],
      ...extra,
    });
    if (!v.ok) throw new Error(JSON.stringify(v.problems));
    return v.spec;
  };

  it('falls with the rate the bottleneck may carry, and is never above 0.35 lab s per wall s', () => {
    expect(expectedDilatedPace(spec('100Mbit'))).toBeCloseTo(0.12, 6);
    expect(expectedDilatedPace(spec('75Mbit'))).toBeCloseTo(0.16, 6);
    expect(expectedDilatedPace(spec('20Mbit'))).toBe(0.35);
    expect(expectedDilatedPace(spec('100kbit'))).toBe(0.35);
  });

  it('counts the reverse bottleneck when a flow runs through it', () => {
    const both = spec('25Mbit', {
      flows: [{ stack: 'reno' }, { stack: 'reno', direction: 'reverse' }],
    });
    expect(expectedDilatedPace(both)).toBeCloseTo(12 / 50, 6);
  });
});

describe('a fresh dilated lab’s queue', () => {
  const at100 = validateSpec({
    name: 'q',
    duration: '60s',
    paths: { main: { rtt: '50ms', rate: '100Mbit' } },
    flows: [{ stack: 'reno' }],
  });
  if (!at100.ok) throw new Error(JSON.stringify(at100.problems));

  it('prices waiting runs at the pace their specs are expected to keep until the lab reports one', () => {
    const now = new Date('2026-01-01T00:00:00.000Z');
    const waiting = [run('w1', { spec: at100.spec }), run('w2', { spec: at100.spec })];
    const fresh = queueSpots({ running: null, waiting, history: waiting }, now, expectedDilatedPace);
    // 60 lab s at 0.12 lab s per wall s = 500 wall s, plus the default 20 s of set-up.
    expect(fresh.get('w2')?.estimatedWaitS).toBe(520);
    // Once a run on the lab has reported its pace (here 0.25), that pace wins.
    const measured = run('m', {
      status: 'running',
      startedAt: '2026-01-01T00:00:00.000Z',
      progress: { elapsedS: 0, totalS: 60, dilation: 0.25 },
      spec: at100.spec,
    });
    const known = queueSpots(
      { running: measured, waiting, history: [measured, ...waiting] },
      now,
      expectedDilatedPace,
    );
    expect(known.get('w1')?.estimatedWaitS).toBe(240 + 20);
    expect(known.get('w2')?.estimatedWaitS).toBe(260 + 260);
  });
});
