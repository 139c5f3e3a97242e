// A run's points through Storage into a real influxd: samples timed from the traffic event (even
// those that arrived before it), flow-start and verdict events with their text, the summary per
// (stack, path), and the service's health point.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSpecText } from '@lfnlab/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../run/summary.js';
import { InfluxClient, literal } from './influx.js';
import { findInfluxd, type LocalInfluxd, startLocalInfluxd } from './localInfluxd.js';
import { lineProtocol } from './points.js';
import { endPoints, eventPoint, summaryPoints } from './runPoints.js';
import { Storage } from './runStorage.js';

const spec = parseSpecText(`
name: storage
duration: 4s
paths: { main: { rtt: 20ms, rate: 20Mbit } }
flows:
  - { stack: cubic, count: 2 }
  - { stack: bbr }
`);

function fakeSummary(flows: string[], verdict: RunSummary['verdict']): RunSummary {
  return {
    name: 'storage',
    status: 'completed',
    error: null,
    seed: 1,
    verdict,
    fidelity: verdict ? { verdict, checks: [], reasons: ['lab CPU 91 % "busy"'] } : null,
    flows: flows.map((name, i) => ({
      name,
      stack: name.split('-')[0] as string,
      observedStacks: [],
      path: 'main',
      direction: 'forward',
      streams: 1,
      startS: 0,
      durationS: 4,
      status: 'ok',
      error: null,
      goodputMbps: { mean: 5 + i, sd: 1, wholeRun: 5 + i },
      stability: 0.2,
      retransmits: 0,
      rttMs: { mean: 20, min: 20, max: 25 },
      maxCwndBytes: 1e5,
      cpuPercent: { sender: null, receiver: null },
      metrics: [],
    })),
    paths: [],
    metrics: {} as RunSummary['metrics'],
  };
}

describe('run points', () => {
  const ctx = { runId: 'r1', user: 'ada', t0EpochMs: 1_700_000_000_000, flows: {} };
  it('quote and flatten an event text so it stays one line', () => {
    const line = lineProtocol(eventPoint(ctx, { type: 'verdict', t: 1.5, text: 'a "b"\\c\nnext' }));
    expect(line).toBe(
      'lfn_event,run=r1,type=verdict,user=ada text="a \\"b\\"\\\\c next" 1700000001500000000',
    );
  });
  it('give one summary point per stack and path, the verdict as a code, no campaign tag unless given', () => {
    const pts = summaryPoints(ctx, fakeSummary(['cubic-1-1', 'cubic-1-2', 'bbr-2'], 'suspect'));
    expect(pts.map((p) => [p.tags.stack, p.fields.goodput_mbps, p.fields.verdict_code])).toEqual([
      ['cubic', 5.5, 1],
      ['bbr', 7, 1],
    ]);
    expect(pts[0]?.tags.campaign).toBeUndefined();
    // Jain is not per stack: it is lfn_fairness, per path and direction (next test).
    expect(pts.some((p) => 'jain' in p.fields)).toBe(false);
    // A lab faster than the host ended its 4 lab-s run 2.5 host-s after t0: the closing points
    // are stamped then, not in the host's future.
    const fast = { ...ctx, endEpochMs: ctx.t0EpochMs + 2500 };
    const s4 = fakeSummary(['cubic-1-1', 'bbr-2'], 'valid');
    expect(summaryPoints(fast, s4).map((p) => p.timeNs)).toEqual(['1700000002500000000', '1700000002500000000']);
    expect(endPoints(fast, s4).map((p) => p.timeNs)).toEqual(Array(3).fill('1700000002500000000'));
    expect(endPoints(ctx, s4).map((p) => p.timeNs)).toEqual(Array(3).fill('1700000004000000000'));
    const failed = summaryPoints(ctx, fakeSummary(['cubic-1'], null), 'sweep');
    expect(failed[0]?.fields.verdict_code).toBeUndefined();
    expect(failed[0]?.tags.campaign).toBe('sweep');
  });
  it('give Jain per path and direction as lfn_fairness, the summary\'s own "Jain fwd" / "Jain rev"', () => {
    const s = fakeSummary(['cubic-1', 'cubic-2', 'bbr-3'], 'valid');
    const path = (name: string, forward: number | null, reverse: number | null) =>
      ({ name, jain: { forward, reverse } }) as RunSummary['paths'][number];
    // main: two forward flows and reverse traffic; wan2: one flow each way, so no index at all.
    s.paths = [path('main', 0.98, 0.5), path('wan2', null, null)];
    const fairness = summaryPoints(ctx, s, 'sweep').filter((p) => p.measurement === 'lfn_fairness');
    expect(fairness.map((p) => [p.tags, p.fields])).toEqual([
      [{ run: 'r1', user: 'ada', path: 'main', direction: 'forward', campaign: 'sweep' }, { jain: 0.98 }],
      [{ run: 'r1', user: 'ada', path: 'main', direction: 'reverse', campaign: 'sweep' }, { jain: 0.5 }],
    ]);
    const lines = fairness.map(lineProtocol);
    expect(lines[0]).toBe(
      'lfn_fairness,campaign=sweep,direction=forward,path=main,run=r1,user=ada jain=0.98 1700000004000000000',
    );
    expect(
      summaryPoints(ctx, s).find((p) => p.measurement === 'lfn_fairness')?.tags.campaign,
    ).toBeUndefined();
  });
  it("carry the lab-limited share of the flows' busy time (limitedBy), mean per stack and path", () => {
    const s = fakeSummary(['cubic-1-1', 'cubic-1-2'], 'invalid');
    const limit = (sender: number) => ({
      limitedBy: sender > 0.5 ? ('sender' as const) : ('network' as const),
      shares: { network: 1 - sender, 'receiver-window': 0, 'send-buffer': 0, sender },
      busyS: 10,
    });
    s.flows = s.flows.map((f, i) => ({ ...f, limitedBy: limit(i === 0 ? 0.8 : 0.4) }));
    expect(summaryPoints(ctx, s)[0]?.fields.lab_limited_share).toBeCloseTo(0.6, 9);
    expect(
      summaryPoints(ctx, fakeSummary(['cubic-1'], 'valid'))[0]?.fields.lab_limited_share,
    ).toBeUndefined();
  });
});

describe.skipIf(!findInfluxd())('Storage against a real influxd', () => {
  let influx: LocalInfluxd;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lfnlab-storage-'));
    influx = await startLocalInfluxd({ dir: join(dir, 'influxd') });
  }, 60_000);
  afterAll(async () => {
    await influx?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes a run: samples, events, summary and health, in the database it creates', async () => {
    const storage = await Storage.open({
      url: influx.url,
      database: 'lfn_test',
      spoolDir: join(dir, 'spool'),
      healthEveryMs: 20,
    });
    const sink = storage.forRun({ runId: 'run-7', user: 'ada', spec, campaign: 'sweep-2' });
    // Recent enough for the 30-day retention policy, on a whole second.
    const t0 = Math.floor(Date.now() / 1000) * 1000 - 60_000;
    // The flow-started event and a sample can arrive before traffic's t0 is known.
    sink.onEvent('flow-started', { flow: 'cubic-1-1', t: 0.01 });
    sink.onSample({ kind: 'goodput', t: 0.1, flow: 'cubic-1-1', bps: 5e6, bytesReceived: 1000 });
    // The lab's clock 10 min ahead of the host's (a dilated lab left idle): the host's t0 rules.
    sink.onEvent('traffic', { t0: new Date(t0).toISOString(), labRealtimeMs: t0 + 600_000 });
    sink.onSample({ kind: 'goodput', t: 0.2, flow: 'bbr-2', bps: 6e6, bytesReceived: 2000 });
    sink.onSample({ kind: 'rtt', t: 0.3, path: 'main', rttMs: 21, seq: 1 });
    await sink.finish(fakeSummary(['cubic-1-1', 'cubic-1-2', 'bbr-2'], 'valid'));
    const client = new InfluxClient({ url: influx.url });
    // Rows at one timestamp come back in series order: sort them to compare.
    const q = async (text: string) =>
      ((await client.query(text, 'lfn_test', { epoch: 'ms' }))[0]?.values ?? []).sort((a, b) =>
        JSON.stringify(a) < JSON.stringify(b) ? -1 : 1,
      );

    expect(await q(`SELECT bps, stack FROM lfn_goodput WHERE run = ${literal('run-7')}`)).toEqual([
      [t0 + 100, 5e6, 'cubic'],
      [t0 + 200, 6e6, 'bbr'],
    ]);
    expect(await q(`SELECT "text", "type", flow FROM lfn_event WHERE run = ${literal('run-7')}`)).toEqual([
      [t0 + 10, 'cubic-1-1 starts (cubic, main)', 'flow_start', 'cubic-1-1'],
      [t0 + 4000, 'bbr-2 ends', 'flow_end', 'bbr-2'],
      [t0 + 4000, 'cubic-1-1 ends', 'flow_end', 'cubic-1-1'],
      [t0 + 4000, 'cubic-1-2 ends', 'flow_end', 'cubic-1-2'],
      [t0 + 4000, 'verdict: valid (lab CPU 91 % "busy")', 'verdict', null],
    ]);
    expect(
      await q(
        `SELECT goodput_mbps, verdict_code, stack, campaign FROM lfn_summary WHERE run = ${literal('run-7')}`,
      ),
    ).toEqual([
      [t0 + 4000, 5.5, 0, 'cubic', 'sweep-2'],
      [t0 + 4000, 7, 0, 'bbr', 'sweep-2'],
    ]);
    // The health timer writes on its own; wait for a point rather than for time.
    for (let i = 0; i < 200 && (await q('SELECT count(points_written) FROM lfn_health')).length === 0; i++)
      await storage.flush();
    expect((await q('SELECT count(points_written) FROM lfn_health'))[0]?.[1]).toBeGreaterThan(0);
    // The health timer keeps adding points while it runs: pending is only 0 once it has stopped.
    await storage.close();
    expect(storage.health()).toMatchObject({ influx: 'up', pendingLines: 0 });
  });

  it('is off without a URL: nothing written, health says off', async () => {
    const storage = await Storage.open({ url: null, spoolDir: join(dir, 'unused') });
    const sink = storage.forRun({ runId: 'x', user: 'u', spec });
    sink.onSample({ kind: 'rtt', t: 0, path: 'main', rttMs: 1, seq: 1 });
    await sink.finish(fakeSummary(['cubic-1'], 'valid'));
    expect(storage.health().influx).toBe('off');
    await storage.close();
  });
});
