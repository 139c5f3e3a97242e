import { describe, expect, it } from 'vitest';
import {
  MAX_YAML_ALIASES,
  parseDocument,
  parseSpecText,
  SpecError,
  specJsonSchema,
  validateSpec,
} from './index.js';

const base = {
  name: 'demo',
  duration: '30s',
  paths: { main: { rtt: '50ms', rate: '100Mbit', buffer: '0.2bdp' } },
  flows: [{ stack: 'cubic' }, { stack: 'reno', direction: 'reverse', streams: 16, start: '5s' }],
};

function problems(input: unknown) {
  const v = validateSpec(input);
  if (v.ok) throw new Error('expected the spec to be rejected');
  return v.problems;
}

describe('spec schema', () => {
  it('normalises units and fills defaults', () => {
    const v = validateSpec(base);
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    const { spec } = v;
    expect(spec.duration).toBe(30_000);
    expect(spec.sampleInterval).toBe(1000);
    expect(spec.mtu).toBe(1500);
    expect(spec.paths.main).toMatchObject({ rtt: 50, rate: 100e6, buffer: { bdp: 0.2 }, ber: 0, jitter: 0 });
    expect(spec.paths.main?.reverse).toEqual({ rate: 100e6, buffer: { bdp: 0.2 } });
    expect(spec.flows[0]).toMatchObject({
      name: 'cubic-1',
      path: 'main',
      duration: 30_000,
      direction: 'forward',
    });
    expect(spec.flows[1]).toMatchObject({ name: 'reno-2', streams: 16, start: 5000, duration: 25_000 });
  });

  it('names the field and the allowed form for a wrong unit', () => {
    const p = problems({ ...base, paths: { main: { rtt: '50', rate: '100MB' } } });
    expect(p).toContainEqual({ path: 'paths.main.rtt', message: expect.stringMatching(/needs a unit.*ms/) });
    expect(p).toContainEqual({
      path: 'paths.main.rate',
      message: expect.stringMatching(/bytes; write bits.*800Mbit/),
    });
  });

  it('rejects a negative RTT with the allowed range', () => {
    const p = problems({ ...base, paths: { main: { rtt: '-5ms', rate: '100Mbit' } } });
    expect(p[0]?.path).toBe('paths.main.rtt');
    expect(p[0]?.message).toMatch(/ms/);
  });

  it('rejects an out-of-range rate naming the range', () => {
    const p = problems({ ...base, paths: { main: { rtt: '5ms', rate: '20Gbit' } } });
    expect(p).toEqual([
      { path: 'paths.main.rate', message: "must be between 10kbit and 10Gbit (got '20Gbit')" },
    ]);
  });

  it('rejects an unknown stack listing the available ones', () => {
    const p = problems({ ...base, flows: [{ stack: 'foo' }] });
    expect(p[0]?.path).toBe('flows.0.stack');
    expect(p[0]?.message).toMatch(/unknown stack "foo"; available: reno, cubic, bic, htcp/);
  });

  it('names paths.X.quickack and its two values when it is not a boolean', () => {
    const p = problems({ ...base, paths: { main: { ...base.paths.main, quickack: 'yes' } } });
    expect(p).toContainEqual({
      path: 'paths.main.quickack',
      message: 'must be true (acknowledge every segment at once) or false (delayed ACKs)',
    });
  });

  it('reports a missing field as required', () => {
    const { duration: _, ...noDuration } = base;
    expect(problems(noDuration)).toContainEqual({
      path: 'duration',
      message: expect.stringMatching(/^is required/),
    });
  });

  it('flags unknown keys, unknown paths and flows that outlast the run', () => {
    const p = problems({
      ...base,
      paths: { a: { rtt: '10ms', rate: '10Mbit', rtT: 1 }, b: { rtt: '10ms', rate: '10Mbit' } },
      flows: [{ stack: 'reno', path: 'c', start: '10s', duration: '25s' }, { stack: 'reno' }],
    });
    const fields = p.map((x) => x.path);
    expect(fields).toEqual(
      expect.arrayContaining(['paths.a', 'flows.0.path', 'flows.0.duration', 'flows.1.path']),
    );
    expect(p.find((x) => x.path === 'paths.a')?.message).toMatch(/unknown field 'rtT'; allowed: rtt, rate/);
  });

  it('accepts buffers in packets, bytes and BDP and checks their range', () => {
    const with_ = (buffer: unknown) => ({
      ...base,
      paths: { main: { rtt: '10ms', rate: '10Mbit', buffer } },
    });
    expect(validateSpec(with_(100)).ok).toBe(true);
    expect(validateSpec(with_('64KiB')).ok).toBe(true);
    expect(problems(with_('1000bdp'))[0]?.message).toMatch(/bdp must be between 0.01bdp and 100bdp/);
    expect(problems(with_(1.5))[0]?.message).toMatch(/whole number/);
  });

  it('parses YAML and throws a SpecError naming every problem', () => {
    const spec = parseSpecText(
      'name: y\nduration: 10s\npaths: {p: {rtt: 20ms, rate: 50Mbit}}\nflows: [{stack: htcp}]\n',
    );
    expect(spec.flows[0]?.path).toBe('p');
    expect(() =>
      parseSpecText('name: y\nduration: 10 parsecs\npaths: {}\nflows: []\n', 'x.yaml'),
    ).toThrowError(SpecError);
    try {
      parseSpecText('name: y\nduration: 10 parsecs\npaths: {}\nflows: []\n', 'x.yaml');
    } catch (err) {
      expect((err as SpecError).problems.map((p) => p.path)).toEqual(['duration', 'paths', 'flows']);
      expect((err as Error).message).toMatch(/^x.yaml: invalid spec/);
    }
  });

  it('refuses a text whose aliases would expand past the limit, as one problem at the document', () => {
    const aliases = Array.from({ length: MAX_YAML_ALIASES + 1 }, (_, i) => `  - *a # ${i}`).join('\n');
    const text = `x: &a [1, 2, 3]\ny:\n${aliases}\n`;
    const r = parseDocument(text);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problems).toHaveLength(1);
      expect(r.problems[0]).toMatchObject({
        path: '',
        message: expect.stringMatching(/not valid YAML\/JSON.*alias/i),
      });
    }
    expect(() => parseSpecText(text, 'x.yaml')).toThrowError(
      /x.yaml: invalid spec\n {2}\(spec\): not valid YAML/,
    );
  });

  it('exports a JSON Schema of the input form', () => {
    const js = specJsonSchema() as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(js.properties)).toEqual(
      expect.arrayContaining(['name', 'duration', 'paths', 'flows', 'seed', 'mtu', 'sampleInterval']),
    );
    expect(js.required).toEqual(expect.arrayContaining(['name', 'duration', 'paths', 'flows']));
  });
});

describe('committed JSON Schema', () => {
  it('equals what the zod schema generates (run `npx lfnlab schema --out emulator/schema/spec.schema.json`)', async () => {
    const { readFileSync } = await import('node:fs');
    const committed = readFileSync(new URL('../../schema/spec.schema.json', import.meta.url), 'utf8');
    expect(JSON.parse(committed)).toEqual(JSON.parse(JSON.stringify(specJsonSchema())));
  });
});

describe('traffic pattern fields', () => {
  it('refuses a stagger that starts flows after the run, bytes with duration, and non-namespaced sysctls', () => {
    const p = problems({
      ...base,
      flows: [
        { stack: 'reno', count: 3, every: '20s' },
        { stack: 'cubic', bytes: '1MB', duration: '5s' },
      ],
    });
    expect(p).toContainEqual({
      path: 'flows.0.every',
      message: expect.stringMatching(/last of 3 flows would start at 40s/),
    });
    expect(p).toContainEqual({
      path: 'flows.1.bytes',
      message: expect.stringMatching(/either bytes .* or duration/),
    });
    const q = problems({ ...base, sysctls: { sender: { 'kernel.pid_max': 1 } } });
    expect(q.some((x) => x.path.startsWith('sysctls.sender') && /net\.\* sysctl key/.test(x.message))).toBe(
      true,
    );
  });
  it('names expanded flows name-1..name-n and counts them against the limit', () => {
    const v = validateSpec({ ...base, flows: [{ name: 'p', stack: 'reno', count: 2, every: '10s' }] });
    expect(v.ok && v.spec.flows.map((f) => [f.name, f.start, f.duration])).toEqual([
      ['p-1', 0, 30_000],
      ['p-2', 10_000, 20_000],
    ]);
    expect(
      problems({
        ...base,
        flows: [
          { stack: 'reno', count: 40 },
          { stack: 'cubic', count: 30 },
        ],
      }),
    ).toContainEqual({
      path: 'flows',
      message: 'at most 64 flows once counts are expanded (got 70)',
    });
  });
});
