// When the run asks each client namespace which stack its sockets use: a flow whose SYNs were lost
// connects late, so one probe at the midpoint alone can miss it (CI: an LP flow among 17 starting
// together into one BDP of buffer was never seen at 3 s of a 6 s run).
import { buildPlan, validateSpec } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import { socketProbeTimes } from './schedule.js';

function planOf(input: Record<string, unknown>) {
  const v = validateSpec({
    name: 't',
    duration: '20s',
    paths: { main: { rtt: '20ms', rate: '20Mbit' } },
    ...input,
  });
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return buildPlan(v.spec);
}

describe('socketProbeTimes', () => {
  it('probes each client namespace at the midpoint and at three quarters of every flow, once per instant', () => {
    const plan = planOf({ flows: [{ stack: 'reno' }, { stack: 'cubic' }, { stack: 'lp', start: '4s' }] });
    const ns = plan.topology.flows[0]?.clientNs;
    expect(new Set(plan.topology.flows.map((f) => f.clientNs))).toEqual(new Set([ns]));
    // The two flows from 0 s share their probes; the third (4 s to 20 s) has its own.
    expect(socketProbeTimes(plan)).toEqual([
      { ns, at: 10_000 },
      { ns, at: 12_000 },
      { ns, at: 15_000 },
      { ns, at: 16_000 },
    ]);
  });

  it('adds a probe a second in for a sized transfer, which may be over before its midpoint', () => {
    const plan = planOf({ flows: [{ stack: 'cubic', bytes: '1MB' }] });
    expect(socketProbeTimes(plan).map((p) => p.at)).toEqual([1000, 10_000, 15_000]);
  });
});
