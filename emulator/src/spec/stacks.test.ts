import { afterEach, describe, expect, it } from 'vitest';
import {
  knownStackNames,
  registerLabStacks,
  registerStacks,
  STACK_NAMES,
  specJsonSchema,
  stackInfo,
  stackModules,
  validateSpec,
} from './index.js';

const spec = (stack: string) => ({
  name: 'x',
  duration: '10s',
  paths: { p: { rtt: '20ms', rate: '50Mbit' } },
  flows: [{ stack }],
});

const vendor = {
  name: 'lfnvendor',
  module: 'tcp_lfnvendor',
  family: 'loss' as const,
  sourceHash: 'ab'.repeat(32),
};

afterEach(() => registerStacks([]));

describe('stacks added at run time', () => {
  it('the schema refuses a stack until it is registered, then accepts it', () => {
    const before = validateSpec(spec('lfnvendor'));
    expect(before.ok).toBe(false);
    registerStacks([vendor]);
    const after = validateSpec(spec('lfnvendor'));
    expect(after.ok).toBe(true);
    expect(stackInfo('lfnvendor')).toMatchObject({ origin: 'added', module: 'tcp_lfnvendor' });
    expect(stackModules()).toContain('tcp_lfnvendor');
  });

  it('an unknown stack names the field and lists every allowed name, added ones too', () => {
    registerStacks([vendor]);
    const v = validateSpec(spec('nosuch'));
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.problems[0]?.path).toBe('flows.0.stack');
    expect(v.problems[0]?.message).toBe(
      `unknown stack "nosuch"; available: ${[...STACK_NAMES, 'lfnvendor'].join(', ')}`,
    );
  });

  it('a missing stack on a tcp flow lists the added ones', () => {
    registerStacks([vendor]);
    const v = validateSpec({ ...spec('x'), flows: [{ transport: 'tcp' }] });
    expect(v.ok ? '' : v.problems[0]?.message).toMatch(
      /is required for a tcp flow: one of reno, .*, lfnvendor$/,
    );
  });

  it('a non-string stack is refused with the allowed names', () => {
    const v = validateSpec(spec(42 as unknown as string));
    expect(v.ok ? '' : v.problems[0]?.message).toMatch(/^unknown stack 42; available: reno, cubic/);
  });

  it('registration replaces the last one, and refuses built-in, duplicate or malformed names', () => {
    registerStacks([vendor]);
    registerStacks([]);
    expect(knownStackNames()).toEqual([...STACK_NAMES]);
    expect(() => registerStacks([{ ...vendor, name: 'cubic' }])).toThrow(/cubic is built in/);
    expect(() => registerStacks([vendor, vendor])).toThrow(/registered twice/);
    expect(() => registerStacks([{ ...vendor, name: 'Bad-Name' }])).toThrow(/a-z, 0-9/);
    expect(knownStackNames()).toEqual([...STACK_NAMES]);
  });

  it('the JSON Schema lists the stacks known when it is made', () => {
    registerStacks([vendor]);
    const text = JSON.stringify(specJsonSchema());
    expect(text).toContain('"lfnvendor"');
    expect(text).toContain(JSON.stringify([...STACK_NAMES, 'lfnvendor']));
  });

  it("the UI's registration by name adds what the lab offers beyond the built-ins and keeps the rest", () => {
    registerStacks([vendor]);
    registerLabStacks(['reno', 'lfnvendor', 'other_cc', 'Not-Valid']);
    expect(knownStackNames().slice(-2)).toEqual(['lfnvendor', 'other_cc']);
    expect(stackInfo('lfnvendor')?.module).toBe('tcp_lfnvendor');
    expect(stackInfo('other_cc')).toMatchObject({ origin: 'added', module: null });
    expect(validateSpec(spec('other_cc')).ok).toBe(true);
  });

  it("takes the service's order, so the UI's list of allowed names reads as the API's", () => {
    registerLabStacks(['lfnvendor']);
    registerLabStacks(['reno', 'first_cc', 'lfnvendor']);
    expect(knownStackNames().slice(-2)).toEqual(['first_cc', 'lfnvendor']);
    const v = validateSpec(spec('tahoe'));
    expect(v.ok ? '' : v.problems[0]?.message).toMatch(/, grid, first_cc, lfnvendor$/);
  });
});

describe("an added stack's own parameters", () => {
  const withParams = {
    ...vendor,
    params: [
      { name: 'beta_pct', type: 'int', default: 50, description: 'share kept on a loss' },
      { name: 'flag', type: 'bool', default: 1, description: null },
    ],
  };
  const withStackParams = (stackParams: Record<string, Record<string, number>>) => ({
    ...spec('lfnvendor'),
    stackParams,
  });

  it('are settable in a spec once the stack is registered with them, within their type', () => {
    registerStacks([withParams]);
    expect(validateSpec(withStackParams({ lfnvendor: { beta_pct: 70, flag: 0 } })).ok).toBe(true);
    const v = validateSpec(withStackParams({ lfnvendor: { flag: 2 } }));
    expect(v.ok ? [] : v.problems.map((p) => [p.path, p.message])).toEqual([
      ['stackParams.lfnvendor.flag', "must be a whole number from 0 to 1 (the module's units; default 1)"],
    ]);
    const u = validateSpec(withStackParams({ lfnvendor: { nosuch: 1 } }));
    expect(u.ok ? '' : u.problems[0]?.message).toBe(
      "lfnvendor has no parameter 'nosuch'; settable: beta_pct, flag",
    );
  });

  it('an added stack that declares none says so, and names the ones that have some', () => {
    registerStacks([vendor]);
    const v = validateSpec(withStackParams({ lfnvendor: { beta_pct: 70 } }));
    expect(v.ok ? '' : v.problems[0]?.message).toMatch(
      /^lfnvendor has no settable parameters \(.*\); stacks with some: .*fast/,
    );
  });

  it('the designer learns them from the service (GET /api/stacks)', () => {
    registerLabStacks(['reno', 'lfnvendor'], { lfnvendor: withParams.params });
    expect(validateSpec(withStackParams({ lfnvendor: { beta_pct: 70 } })).ok).toBe(true);
  });

  it('also when the lab named the stack first, without them', () => {
    registerLabStacks(['reno', 'lfnvendor']);
    expect(validateSpec(withStackParams({ lfnvendor: { beta_pct: 70 } })).ok).toBe(false);
    registerLabStacks(['reno', 'lfnvendor'], { lfnvendor: withParams.params });
    expect(validateSpec(withStackParams({ lfnvendor: { beta_pct: 70 } })).ok).toBe(true);
    // And a later call without them (the lab's list again) keeps them.
    registerLabStacks(['reno', 'lfnvendor']);
    expect(validateSpec(withStackParams({ lfnvendor: { beta_pct: 70 } })).ok).toBe(true);
  });
});
