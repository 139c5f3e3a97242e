import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { quotaProblems, STACK_PARAMS, STACKS, settableParams, validateSpec } from './index.js';

const base = {
  name: 't',
  duration: '10s',
  paths: { main: { rtt: '20ms', rate: '10Mbit' } },
  flows: [{ stack: 'fast' }],
};
const problems = (stackParams: unknown) => {
  const v = validateSpec({ ...base, stackParams });
  return v.ok ? [] : v.problems;
};

describe('stack-parameter catalog', () => {
  it('covers every stack the spec accepts, under the module the lab loads', () => {
    expect(Object.keys(STACK_PARAMS).sort()).toEqual(STACKS.map((s) => s.name).sort());
    for (const s of STACKS) {
      const entry = STACK_PARAMS[s.name];
      // Built-ins (reno, cubic) have no module file but cubic still shows its parameters as tcp_cubic.
      if (s.module) expect(entry?.module).toBe(s.module);
    }
    expect(STACK_PARAMS.cubic?.module).toBe('tcp_cubic');
  });
  it('keeps every default inside the range the spec accepts', () => {
    for (const [stack, e] of Object.entries(STACK_PARAMS))
      for (const p of e.params) {
        expect(p.default, `${stack}.${p.name}`).toBeGreaterThanOrEqual(p.min);
        expect(p.default, `${stack}.${p.name}`).toBeLessThanOrEqual(p.max);
      }
  });
  it('lets a run set only parameters a running socket reads from sysfs, or the lab kernel takes at boot', () => {
    expect(settableParams('vegas').map((p) => p.name)).toEqual(['alpha', 'beta', 'gamma']);
    expect(settableParams('highspeed')).toEqual([]);
    expect(settableParams('cubic').find((p) => p.name === 'bic_scale')).toMatchObject({
      sysfs: 'load',
      boot: true,
    });
    expect(settableParams('cdg').map((p) => p.name)).not.toContain('window');
  });
});

describe('spec stackParams', () => {
  it('accepts settable parameters within range and keeps them', () => {
    const v = validateSpec({ ...base, stackParams: { fast: { alpha: 16 }, vegas: { alpha: 1, beta: 3 } } });
    expect(v.ok && v.spec.stackParams).toEqual({ fast: { alpha: 16 }, vegas: { alpha: 1, beta: 3 } });
  });
  it('is optional', () => {
    const v = validateSpec(base);
    expect(v.ok && v.spec.stackParams).toBeUndefined();
  });
  it('names an out-of-range value by its path and gives the range and unit', () => {
    expect(problems({ fast: { alpha: 0 } })).toEqual([
      {
        path: 'stackParams.fast.alpha',
        message: 'must be a whole number from 1 to 65536 (packets; default 100)',
      },
    ]);
    expect(problems({ vegas: { beta: 2.5 } })[0]?.path).toBe('stackParams.vegas.beta');
  });
  it('refuses an unknown stack, listing the stacks that have settable parameters', () => {
    const [p] = problems({ tahoe: { alpha: 1 } });
    expect(p?.path).toBe('stackParams.tahoe');
    expect(p?.message).toMatch(
      /^unknown stack; stacks with settable parameters: (?=.*\bfast\b)(?=.*\bvegas\b)/,
    );
    expect(problems({ constructor: { alpha: 1 } })[0]?.path).toBe('stackParams.constructor');
  });
  it('refuses an unknown parameter, listing the stack’s settable ones', () => {
    expect(problems({ vegas: { delta: 1 } })).toEqual([
      {
        path: 'stackParams.vegas.delta',
        message: "vegas has no parameter 'delta'; settable: alpha, beta, gamma",
      },
    ]);
  });
  it('says why a known constant cannot be set by a run', () => {
    expect(problems({ highspeed: { low_window: 6 } })[0]?.message).toMatch(/compile-time constant/);
    expect(problems({ cdg: { window: 4 } })[0]?.message).toMatch(/only when the module loads/);
    expect(problems({ illinois: { win_thresh: 3 } })[0]?.message).toMatch(/without a sysfs file/);
  });
  it('accepts CUBIC’s C within range (the lab boots with it) and names the range otherwise', () => {
    expect(problems({ cubic: { bic_scale: 7 } })).toEqual([]);
    expect(problems({ cubic: { bic_scale: 0 } })).toEqual([
      {
        path: 'stackParams.cubic.bic_scale',
        message: 'must be a whole number from 1 to 1024 (packets; default 41)',
      },
    ]);
  });
  it('refuses a value that is not a number', () => {
    expect(problems({ fast: { alpha: '16' } })[0]).toEqual({
      path: 'stackParams.fast.alpha',
      message: 'must be a number',
    });
  });
});

describe('stackParams and quotas', () => {
  it('change nothing a quota counts: length, offered rate, flows and connections', () => {
    const over = { ...base, duration: '20s', flows: [{ stack: 'fast', streams: 40 }, { stack: 'fast' }] };
    const quota = { maxDurationS: 10, maxRateMbps: 5, maxFlows: 1 };
    const plain = validateSpec(over);
    const tuned = validateSpec({ ...over, stackParams: { fast: { alpha: 65536 }, grid: { greedy_ms: 0 } } });
    if (!plain.ok || !tuned.ok) throw new Error('specs should be valid');
    const problems = quotaProblems(tuned.spec, quota, 'student');
    expect(problems.map((p) => p.path).sort()).toEqual([
      'duration',
      'flows',
      'flows',
      'paths.main.rate',
      'paths.main.reverse.rate',
    ]);
    expect(problems).toEqual(quotaProblems(plain.spec, quota, 'student'));
  });
});

describe("our own modules' parameters", () => {
  // The catalog is transcribed from the sources; a parameter added to a module without its entry
  // would be unsettable from a spec, and an entry without its parameter a write to nothing.
  const source = (dir: string) =>
    readFileSync(new URL(`../../../kernels/stacks/${dir}/tcp_${dir}.c`, import.meta.url), 'utf8');
  it.each(['fast', 'hstcplp', 'grid'])(
    '%s: every writable module parameter is a live entry, and no other',
    (stack) => {
      const writable = [...source(stack).matchAll(/module_param_named\((\w+),\s*\w+,\s*\w+,\s*0644\)/g)]
        .map((m) => m[1])
        .sort();
      const live = (STACK_PARAMS[stack]?.params ?? [])
        .filter((p) => p.sysfs === 'live')
        .map((p) => p.name)
        .sort();
      expect(writable.length).toBeGreaterThan(0);
      expect(live).toEqual(writable);
    },
  );
});
