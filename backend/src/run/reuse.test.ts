import { buildPlan, type Plan, type SpecInput, validateSpec } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import { type BuiltDumbbell, decideReuse, sysctlChange, sysctlTarget, topologyDifferences } from './reuse.js';

const BASE: SpecInput = {
  name: 'base',
  duration: '10s',
  paths: {
    main: { rtt: '40ms', rate: '20Mbit', buffer: '1bdp' },
    second: { rtt: '80ms', rate: '10Mbit' },
  },
  flows: [
    { stack: 'reno', path: 'main' },
    { stack: 'reno', path: 'second' },
  ],
};

/** A spec being edited by a test: its paths and flows as plain objects. */
type Fields = Record<string, unknown>;
type Draft = {
  paths: { main: Fields; second: Fields } & Record<string, Fields>;
  flows: [Fields, Fields];
  [field: string]: unknown;
};

/** The plan of BASE with `change` applied to a copy. */
function plan(change: (s: Draft) => void = () => undefined): Plan {
  const input = structuredClone(BASE) as unknown as Draft;
  change(input);
  const v = validateSpec(input as unknown as SpecInput);
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return buildPlan(v.spec);
}

function built(p: Plan, over: Partial<BuiltDumbbell> = {}): BuiltDumbbell {
  return {
    plan: p,
    runDir: 'runs/001',
    calibratedBy: 'runs/001',
    status: 'completed',
    verdict: 'valid',
    excessMs: { main: 0.1, second: 0.2 },
    calibration: {},
    hostState: { sysctls: {}, offloads: {}, readIn: 'runs/001' },
    ...over,
  };
}

describe('same topology', () => {
  it('holds for runs that differ only in what runs over the dumbbell: stacks, duration, seed, flows', () => {
    const other = plan((s) => {
      s.flows[0].stack = 'cubic';
      s.flows[1].stack = 'htcp';
      s.flows[0].streams = 4;
      s.duration = '30s';
      s.seed = 9;
      s.sampleHz = 20;
    });
    expect(topologyDifferences(plan(), other)).toEqual([]);
    expect(sysctlChange(plan(), other)).toEqual({ ok: true, cmds: [] });
  });

  it.each([
    ['rate', (s: Draft) => (s.paths.main.rate = '30Mbit')],
    ['RTT', (s: Draft) => (s.paths.second.rtt = '90ms')],
    ['buffer', (s: Draft) => (s.paths.main.buffer = '0.5bdp')],
    ['BER', (s: Draft) => (s.paths.main.ber = 1e-7)],
    ['MTU', (s: Draft) => (s.mtu = 9000)],
    ['AQM', (s: Draft) => (s.paths.main.aqm = 'codel')],
    ['jitter', (s: Draft) => (s.paths.main.jitter = '1ms')],
    ['reverse rate', (s: Draft) => (s.paths.main.reverse = { rate: '5Mbit' })],
    ['a flow with its own RTT (its own hosts)', (s: Draft) => (s.flows[0].rtt = '60ms')],
    ['a third path', (s: Draft) => (s.paths.third = { rtt: '10ms', rate: '10Mbit' })],
    ['cross traffic', (s: Draft) => (s.paths.main.cross = [{ pattern: 'cbr', rate: '1Mbit' }])],
    // Written as `tee FILE` with the value on stdin: the argv alone is the same for every value.
    ['a stack parameter', (s: Draft) => (s.stackParams = { fast: { alpha: 16 } })],
  ])('does not hold when the %s differs', (_what, change) => {
    expect(topologyDifferences(plan(), plan(change)).length).toBeGreaterThan(0);
  });

  it("does not hold when only a stack parameter's value differs", () => {
    const alpha = (a: number) => plan((s) => (s.stackParams = { fast: { alpha: a } }));
    expect(topologyDifferences(alpha(16), alpha(16))).toEqual([]);
    expect(topologyDifferences(alpha(16), alpha(50))).toEqual(['set-up "stack parameters"']);
  });

  it('names what differs', () => {
    const diff = topologyDifferences(
      plan(),
      plan((s) => (s.paths.main.rate = '30Mbit')),
    );
    expect(diff).toContain('set-up "bottleneck and delay stages"');
  });
});

describe('sysctls on a kept dumbbell', () => {
  it('reads the namespace and key a sysctl command writes', () => {
    expect(
      sysctlTarget({ argv: ['ip', 'netns', 'exec', 'lfn-p0-snd', 'sysctl', '-q', '-w', 'a.b=1 2'] }),
    ).toBe('lfn-p0-snd\ta.b');
    expect(sysctlTarget({ argv: ['sysctl', '-q', '-w', 'net.core.rmem_max=5'] })).toBe('\tnet.core.rmem_max');
    expect(sysctlTarget({ argv: ['ip', 'link'] })).toBeNull();
  });

  it('rewrites the whole section when this run sets other values of the same keys', () => {
    const other = plan((s) => (s.sysctls = { sender: { 'net.ipv4.tcp_sack': 0 } }));
    const withSack1 = plan((s) => (s.sysctls = { sender: { 'net.ipv4.tcp_sack': 1 } }));
    const change = sysctlChange(other, withSack1);
    expect(change.ok).toBe(true);
    if (change.ok) expect(change.cmds.some((c) => c.argv.includes('net.ipv4.tcp_sack=1'))).toBe(true);
  });

  it('adds what this run sets on top (DCTCP asks for ECN where its flows start)', () => {
    const dctcp = plan((s) => (s.flows[0].stack = 'dctcp'));
    const change = sysctlChange(plan(), dctcp);
    expect(change.ok).toBe(true);
    if (change.ok) expect(change.cmds.some((c) => c.argv.includes('net.ipv4.tcp_ecn=1'))).toBe(true);
  });

  it('refuses when the previous run set a key this one leaves at its default', () => {
    const dctcp = plan((s) => (s.flows[0].stack = 'dctcp'));
    const change = sysctlChange(dctcp, plan());
    expect(change).toEqual({
      ok: false,
      reason: expect.stringMatching(/net\.ipv4\.tcp_ecn.*this one does not/),
    });
  });
});

describe('the reuse decision', () => {
  const cubic = plan((s) => (s.flows[0].stack = 'cubic'));

  it('reuses a dumbbell that carried a valid, completed run of the same topology', () => {
    const d = decideReuse(built(plan()), cubic, 0);
    expect(d).toMatchObject({ reuse: true, sysctls: [], from: { runDir: 'runs/001' } });
  });

  it.each([
    ['nothing built yet', null, /no dumbbell/],
    ['a failed run', built(plan(), { status: 'failed' }), /previous run failed/],
    ['an aborted run', built(plan(), { status: 'aborted' }), /previous run aborted/],
    ['a suspect verdict', built(plan(), { verdict: 'suspect' }), /verdict was suspect/],
    ['an invalid verdict', built(plan(), { verdict: 'invalid' }), /verdict was invalid/],
    ['no verdict', built(plan(), { verdict: null }), /verdict was none/],
  ])('builds afresh after %s', (_what, prev, why) => {
    const d = decideReuse(prev, cubic, 0);
    expect(d.reuse).toBe(false);
    if (!d.reuse) expect(d.reason).toMatch(why);
  });

  it('builds afresh after a run whose path changes left the links changed', () => {
    const changing = plan((s) => (s.paths.main.changes = [{ at: '5s', rate: '10Mbit' }]));
    const d = decideReuse(built(changing), plan(), 0);
    expect(d).toEqual({ reuse: false, reason: 'the previous run changed its paths during traffic' });
  });

  it('may start a run with path changes on a kept dumbbell (its changes start from the calibrated state)', () => {
    const changing = plan((s) => (s.paths.main.changes = [{ at: '5s', rate: '10Mbit' }]));
    expect(topologyDifferences(plan(), changing)).toEqual([]);
    expect(decideReuse(built(plan()), changing, 0).reuse).toBe(true);
  });

  it('builds afresh for another topology or while processes of the previous run still run', () => {
    const d = decideReuse(
      built(plan()),
      plan((s) => (s.paths.main.rate = '30Mbit')),
      0,
    );
    expect(d.reuse).toBe(false);
    if (!d.reuse) expect(d.reason).toMatch(/^another topology \(/);
    expect(decideReuse(built(plan()), cubic, 2)).toEqual({
      reuse: false,
      reason: '2 processes of the previous run still run',
    });
    expect(decideReuse(built(plan()), cubic, null)).toEqual({
      reuse: false,
      reason: 'the lab did not say what still runs',
    });
  });
});
