import { afterEach, describe, expect, it } from 'vitest';
import { registerStacks, validateSpec } from '../spec/index.js';
import { buildPlan, formatPlan, stackParamsInForce } from './index.js';

function spec(input: Record<string, unknown>) {
  const v = validateSpec({
    name: 't',
    duration: '20s',
    paths: { main: { rtt: '20ms', rate: '10Mbit' } },
    flows: [{ stack: 'fast' }],
    ...input,
  });
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return v.spec;
}

describe('plan: stack parameters', () => {
  const plan = buildPlan(spec({ stackParams: { fast: { alpha: 16 }, vegas: { alpha: 1 } } }));

  it('writes each value to sysfs with tee and stdin, after the links and before any flow', () => {
    const last = plan.setup.at(-1);
    expect(last?.title).toBe('stack parameters');
    expect(last?.cmds.map((c) => [c.argv, c.stdin])).toEqual([
      [['tee', '/sys/module/tcp_fast/parameters/alpha'], '16\n'],
      [['tee', '/sys/module/tcp_vegas/parameters/alpha'], '1\n'],
    ]);
    expect(last?.cmds.every((c) => !c.allowFail)).toBe(true);
  });

  it('puts the defaults back first in teardown, best effort', () => {
    expect(plan.teardown.cmds.slice(0, 2).map((c) => [c.argv, c.stdin, c.allowFail])).toEqual([
      [['tee', '/sys/module/tcp_fast/parameters/alpha'], '100\n', true],
      [['tee', '/sys/module/tcp_vegas/parameters/alpha'], '2\n', true],
    ]);
    expect(plan.teardown.cmds[2]?.argv.slice(0, 3)).toEqual(['ip', 'netns', 'del']);
  });

  it('reads the values back for the record', () => {
    const s = plan.snapshot.find((x) => x.title === 'stack parameters');
    expect(s?.cmds.map((c) => c.argv)).toEqual([
      ['cat', '/sys/module/tcp_fast/parameters/alpha'],
      ['cat', '/sys/module/tcp_vegas/parameters/alpha'],
    ]);
    expect(
      stackParamsInForce([
        { argv: ['cat', '/sys/module/tcp_fast/parameters/alpha'], stdout: '16\n', code: 0 },
        { argv: ['cat', '/sys/module/tcp_vegas/parameters/alpha'], stdout: '', code: 1 },
      ]),
    ).toEqual({ fast: { alpha: 16 }, vegas: { alpha: null } });
  });

  it('reads a flag (a bool parameter, written 0 or 1) back from its N or Y', () => {
    expect(
      stackParamsInForce([
        { argv: ['cat', '/sys/module/tcp_hstcplp/parameters/lp_enable'], stdout: 'N\n', code: 0 },
        { argv: ['cat', '/sys/module/tcp_fast/parameters/startup'], stdout: 'Y\n', code: 0 },
        { argv: ['cat', '/sys/module/tcp_grid/parameters/probe_mode'], stdout: '1\n', code: 0 },
      ]),
    ).toEqual({ hstcplp: { lp_enable: 0 }, fast: { startup: 1 }, grid: { probe_mode: 1 } });
  });

  it('prints the write as a pipe in the dry run', () => {
    expect(formatPlan(plan)).toContain("printf '%s\\n' 16 | tee /sys/module/tcp_fast/parameters/alpha");
  });

  it('adds nothing when the spec sets no parameter', () => {
    expect(buildPlan(spec({})).labKernelArgs).toEqual([]);
    const p = buildPlan(spec({}));
    expect(p.setup.map((s) => s.title)).not.toContain('stack parameters');
    expect(p.snapshot.map((s) => s.title)).not.toContain('stack parameters');
    expect(p.teardown.cmds.every((c) => c.argv[0] === 'ip')).toBe(true);
  });
});

describe('plan: a load-time stack parameter', () => {
  const plan = buildPlan(
    spec({ flows: [{ stack: 'cubic' }], stackParams: { cubic: { bic_scale: 7, hystart_low_window: 3 } } }),
  );

  it('asks for a lab kernel booted with it, and says so at the top of the dry run', () => {
    expect(plan.labKernelArgs).toEqual(['tcp_cubic.bic_scale=7']);
    expect(formatPlan(plan).split('\n')[1]).toMatch(/^# the lab kernel boots with: tcp_cubic.bic_scale=7 /);
  });

  it('checks the value in force at set-up instead of writing it, and never puts it back', () => {
    const s = plan.setup.at(-1);
    expect(s?.cmds.map((c) => c.argv)).toEqual([
      ['grep', '-qx', '7', '/sys/module/tcp_cubic/parameters/bic_scale'],
      ['tee', '/sys/module/tcp_cubic/parameters/hystart_low_window'],
    ]);
    expect(s?.cmds[0]?.allowFail).toBeFalsy();
    expect(s?.cmds[0]?.comment).toMatch(/set when the lab kernel booted/);
    const restored = plan.teardown.cmds.filter((c) => c.argv[0] === 'tee').map((c) => c.argv[1]);
    expect(restored).toEqual(['/sys/module/tcp_cubic/parameters/hystart_low_window']);
  });

  it('reads it back for the record like the others', () => {
    const s = plan.snapshot.find((x) => x.title === 'stack parameters');
    expect(s?.cmds.map((c) => c.argv[1])).toEqual([
      '/sys/module/tcp_cubic/parameters/bic_scale',
      '/sys/module/tcp_cubic/parameters/hystart_low_window',
    ]);
  });
});

describe("plan: an added stack's parameters", () => {
  afterEach(() => registerStacks([]));

  it('are written to, restored in and read back from its own module', () => {
    registerStacks([
      {
        name: 'lfnvendor',
        module: 'tcp_lfnvendor',
        family: 'loss',
        params: [{ name: 'beta_pct', type: 'int', default: 50, description: null }],
      },
    ]);
    const p = buildPlan(
      spec({ flows: [{ stack: 'lfnvendor' }], stackParams: { lfnvendor: { beta_pct: 70 } } }),
    );
    const file = '/sys/module/tcp_lfnvendor/parameters/beta_pct';
    expect(p.setup.at(-1)?.cmds.map((c) => [c.argv, c.stdin])).toEqual([[['tee', file], '70\n']]);
    expect(p.teardown.cmds[0]).toMatchObject({ argv: ['tee', file], stdin: '50\n', allowFail: true });
    expect(stackParamsInForce([{ argv: ['cat', file], stdout: '70\n', code: 0 }])).toEqual({
      lfnvendor: { beta_pct: 70 },
    });
  });
});
