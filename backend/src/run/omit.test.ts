// A flow's interval statistics (mean ± σ, σ/μ): its slow start (`omit`) left out, and iperf3's
// closing report, a fraction of a second after the sender stopped, never counted as an interval.
// The summary repeats the run metrics: one computation, whichever a reader looks at.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPlan, validateSpec } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import { findMetric } from '../report/format.js';
import { readRunSummary } from '../report/load.js';
import type { IntervalSample } from './iperf.js';
import { emptyFlowResult, summarise } from './summary.js';

const specOf = (omit?: string) => {
  const v = validateSpec({
    name: 'omit',
    duration: '40s',
    sampleInterval: '5s',
    paths: { main: { rtt: '10ms', rate: '100Mbit' } },
    flows: [{ name: 'reno-1', stack: 'reno', ...(omit ? { omit } : {}) }],
  });
  if (!v.ok) throw new Error('bad spec');
  return v.spec;
};

const interval = (t: number, seconds: number, mbps: number): IntervalSample => ({
  kind: 'interval',
  flow: 'reno-1',
  t,
  seconds,
  goodputBps: mbps * 1e6,
  sendBps: null,
  retransmits: null,
  cwndBytes: null,
  rttMs: null,
  streams: [],
});

/**
 * iperf3's receiver reports as a kept run did (table1, Caltech, HS-TCP at its window): 5 s intervals
 * from t = 0, slow start reaching 60 Mbit/s, then 89.6 steady; then a last 0.011 s report at 57
 * Mbit/s, after the sender stopped at 40 s.
 */
const intervals = [
  ...[60, 89.6, 89.6, 89.6, 89.6, 89.6, 89.6, 89.6].map((mbps, k) => interval(5 * (k + 1), 5, mbps)),
  interval(40.011, 0.011, 57),
];

const summaryOf = (omit?: string) => {
  const spec = specOf(omit);
  const plan = buildPlan(spec);
  return summarise({
    spec,
    paths: plan.topology.paths,
    results: plan.topology.flows.map((f) => ({ ...emptyFlowResult(f), intervals })),
    samples: [],
    idleRtt: {},
    status: 'completed',
    error: null,
    fidelity: null,
  });
};

describe('interval statistics of a flow', () => {
  it('leave slow start out when the spec says omit, and say so', () => {
    const all = summaryOf();
    const f = all.flows[0];
    // One slow interval in eight: σ/μ 0.114 although the flow is steady after it.
    expect(f?.stability).toBeCloseTo(0.114, 3);
    expect(f?.goodputMbps.mean).toBeCloseTo(85.9, 6);
    expect(f?.omitS).toBeUndefined();
    const steady = summaryOf('5s').flows[0];
    expect(steady?.stability).toBeCloseTo(0, 9);
    expect(steady?.goodputMbps.mean).toBeCloseTo(89.6, 6);
    expect(steady?.goodputMbps.sd).toBeCloseTo(0, 9);
    expect(steady?.omitS).toBe(5);
  });

  it("never count iperf3's closing fraction of a second as an interval", () => {
    // Counted as an eighth interval it gave this steady flow σ 10.8 Mbit/s and σ/μ 0.126, as the
    // summaries of kept runs had it.
    const s = summaryOf('5s');
    expect(s.flows[0]?.stability).toBeLessThan(1e-9);
  });

  it('are the run metrics, copied: one computation whichever a reader looks at', () => {
    const s = summaryOf('5s');
    const fm = s.metrics.flows.find((f) => f.flow === 'reno-1')?.metrics ?? [];
    expect(s.flows[0]?.stability).toBe(findMetric(fm, 'stability.sigma_over_mu'));
    expect((s.flows[0]?.goodputMbps.sd ?? Number.NaN) * 1e6).toBeCloseTo(
      findMetric(fm, 'throughput.sd') ?? -1,
      6,
    );
    expect((s.flows[0]?.goodputMbps.mean ?? Number.NaN) * 1e6).toBeCloseTo(
      findMetric(fm, 'throughput.mean') ?? -1,
      6,
    );
  });

  it('read back from a summary an older lfnlab wrote, are the metrics beside it', () => {
    // Such a summary stated the closing report's σ (10.8 Mbit/s, σ/μ 0.126) next to metrics that
    // never counted it; every reader now sees the metrics' numbers.
    const s = summaryOf('5s');
    const old = {
      ...s,
      flows: s.flows.map((f) => ({ ...f, goodputMbps: { ...f.goodputMbps, sd: 10.8 }, stability: 0.126 })),
    };
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-old-summary-'));
    try {
      writeFileSync(join(dir, 'summary.json'), JSON.stringify(old));
      const f = readRunSummary(dir)?.flows[0];
      expect(f?.stability).toBeLessThan(1e-9);
      expect(f?.goodputMbps.sd).toBeCloseTo(0, 9);
      expect(f?.goodputMbps.mean).toBeCloseTo(89.6, 6);
      expect(f?.goodputMbps.wholeRun).toBe(s.flows[0]?.goodputMbps.wholeRun);
      // A flow without metrics (a partial record) keeps what it states.
      writeFileSync(
        join(dir, 'summary.json'),
        JSON.stringify({ ...old, metrics: { flows: [], groups: [], theory: [] } }),
      );
      expect(readRunSummary(dir)?.flows[0]?.stability).toBe(0.126);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
