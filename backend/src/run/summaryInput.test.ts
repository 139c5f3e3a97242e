import { buildPlan, validateSpec } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import { findMetric } from '../report/format.js';
import type { IperfJson } from './iperf.js';
import { emptyFlowResult, summarise } from './summary.js';
import { type RunFacts, summaryInput } from './summaryInput.js';

const v = validateSpec({
  name: 'handoff',
  duration: '10s',
  paths: { main: { rtt: '40ms', rate: '50Mbit' } },
  flows: [{ stack: 'cubic' }],
});
if (!v.ok) throw new Error('bad spec');
const plan = buildPlan(v.spec);

/** iperf3's closing report: 40 Mbit/s received, the sender's host at 25 % CPU. */
const client = {
  end: { sum_received: { bits_per_second: 40e6 }, cpu_utilization_percent: { host_total: 25 } },
} as unknown as IperfJson;

const facts = (cpuMHz: number | null): RunFacts => ({
  spec: v.spec,
  paths: plan.topology.paths,
  results: plan.topology.flows.map((f) => ({ ...emptyFlowResult(f), client })),
  samples: [],
  idleRtt: {},
  status: 'completed',
  error: null,
  fidelity: null,
  cpuMHz,
  clock: { mode: 'dilated', dilation: 0.5, guestS: 10, wallS: 20 },
});

describe('hand-off from runExperiment to summarise', () => {
  it("carries the lab CPU's MHz into the flow's MHz per Mbit/s (seed 000)", () => {
    const s = summarise(summaryInput(facts(2400)));
    // 25 % of 2400 MHz spent on 40 Mbit/s: 15 MHz per Mbit/s.
    expect(findMetric(s.flows[0]?.metrics ?? [], 'cpu.mhz_per_mbps')).toBeCloseTo(15, 6);
  });
  it('leaves the metric out when the lab did not report its clock', () => {
    const s = summarise(summaryInput(facts(null)));
    expect(findMetric(s.flows[0]?.metrics ?? [], 'cpu.mhz_per_mbps')).toBeNull();
  });
  it("carries the lab's clock into the summary", () => {
    expect(summarise(summaryInput(facts(1000))).clock).toEqual({
      mode: 'dilated',
      dilation: 0.5,
      guestS: 10,
      wallS: 20,
    });
  });
  it('passes every fact it is given', () => {
    const f = facts(1000);
    expect(Object.keys(summaryInput(f)).sort()).toEqual(Object.keys(f).sort());
  });
});
