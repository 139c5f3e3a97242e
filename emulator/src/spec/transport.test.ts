// Spec fields of issue 4's last pieces: transports as flows, reverse cross traffic, txqueuelen.
import { describe, expect, it } from 'vitest';
import { validateSpec } from './index.js';

const base = {
  name: 't',
  duration: '30s',
  paths: { main: { rtt: '20ms', rate: '20Mbit', reverse: { rate: '5Mbit' } } },
};

function spec(flows: unknown[], paths: unknown = base.paths) {
  const v = validateSpec({ ...base, paths, flows });
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return v.spec;
}
function problems(flows: unknown[], paths: unknown = base.paths) {
  const v = validateSpec({ ...base, paths, flows });
  if (v.ok) throw new Error('expected the spec to be rejected');
  return v.problems;
}

describe('transport', () => {
  it('defaults to tcp and keeps the stack as the name', () => {
    const f = spec([{ stack: 'cubic' }]).flows[0];
    expect(f).toMatchObject({ transport: 'tcp', stack: 'cubic', name: 'cubic-1' });
  });

  it('names udt and rbudp flows after the transport; rbudp blasts at the bottleneck of its direction', () => {
    const flows = spec([
      { transport: 'rbudp', bytes: '10MB' },
      { transport: 'rbudp', bytes: '10MB', direction: 'reverse' },
      { transport: 'rbudp', bytes: '10MB', rate: '8Mbit' },
      { transport: 'udt', bytes: '1MiB' },
    ]).flows;
    expect(flows.map((f) => [f.name, f.stack, f.rate])).toEqual([
      ['rbudp-1', 'rbudp', 20e6],
      ['rbudp-2', 'rbudp', 5e6],
      ['rbudp-3', 'rbudp', 8e6],
      ['udt-4', 'udt', undefined],
    ]);
    expect(flows[3]?.bytes).toBe(1_048_576);
  });

  it('psockets takes a stack and uses streams as its socket count', () => {
    const f = spec([{ transport: 'psockets', stack: 'htcp', streams: 8, bytes: '5MB' }]).flows[0];
    expect(f).toMatchObject({ name: 'psockets-1', stack: 'htcp', streams: 8, bytes: 5e6 });
  });

  it('names the field and what each transport allows', () => {
    expect(problems([{ transport: 'quic', stack: 'reno' }])).toEqual([
      { path: 'flows.0.transport', message: 'must be one of tcp, udt, rbudp, psockets' },
    ]);
    expect(problems([{ transport: 'tcp' }])[0]).toEqual({
      path: 'flows.0.stack',
      message: expect.stringMatching(/^is required for a tcp flow: one of reno, cubic/),
    });
    expect(problems([{ transport: 'psockets', bytes: '1MB' }])[0]?.message).toMatch(
      /is required for a psockets flow/,
    );
    const p = problems([
      { transport: 'udt', stack: 'cubic', streams: 4, window: '1bdp', duration: '5s' },
      { transport: 'psockets', stack: 'reno', bytes: '1MB', rate: '5Mbit' },
    ]);
    expect(p).toEqual([
      {
        path: 'flows.0.stack',
        message: expect.stringMatching(/only applies to transports tcp and psockets/),
      },
      { path: 'flows.0.bytes', message: expect.stringMatching(/is required for transport udt/) },
      { path: 'flows.0.duration', message: expect.stringMatching(/only applies to transport tcp/) },
      { path: 'flows.0.streams', message: expect.stringMatching(/must be 1 for transport udt.*psockets/) },
      {
        path: 'flows.0.window',
        message: expect.stringMatching(/only applies to transports tcp and psockets/),
      },
      {
        path: 'flows.1.rate',
        message: expect.stringMatching(/only applies to transports rbudp .* and udt/),
      },
    ]);
  });
});

describe('cross traffic direction and txqueuelen', () => {
  it('takes a reverse source, its share of the reverse rate', () => {
    const s = spec([{ stack: 'reno' }], {
      main: {
        ...base.paths.main,
        cross: [
          { pattern: 'cbr', rate: '10%', direction: 'reverse' },
          { pattern: 'cbr', rate: '10%' },
        ],
      },
    });
    expect(s.paths.main?.cross.map((c) => [c.direction, c.pattern])).toEqual([
      ['reverse', { kind: 'cbr', rateBps: 0.5e6 }],
      ['forward', { kind: 'cbr', rateBps: 2e6 }],
    ]);
    expect(
      problems([{ stack: 'reno' }], {
        main: { ...base.paths.main, cross: [{ pattern: 'cbr', rate: '1Mbit', direction: 'up' }] },
      }),
    ).toEqual([{ path: 'paths.main.cross.0.direction', message: 'must be forward or reverse' }]);
  });

  it('takes one txqueuelen for all roles, or one per role', () => {
    const one = spec([{ stack: 'reno' }], { main: { ...base.paths.main, txqueuelen: 5000 } });
    expect(one.paths.main?.txqueuelen).toEqual({ sender: 5000, receiver: 5000, router: 5000 });
    const some = spec([{ stack: 'reno' }], { main: { ...base.paths.main, txqueuelen: { sender: 10000 } } });
    expect(some.paths.main?.txqueuelen).toEqual({ sender: 10000, receiver: null, router: null });
    expect(spec([{ stack: 'reno' }]).paths.main?.txqueuelen).toEqual({
      sender: null,
      receiver: null,
      router: null,
    });
    const p = problems([{ stack: 'reno' }], { main: { ...base.paths.main, txqueuelen: { hosts: 5 } } });
    expect(p[0]?.path).toBe('paths.main.txqueuelen');
    expect(p[0]?.message).toBe("unknown field 'hosts'; allowed: sender, receiver, router");
    expect(problems([{ stack: 'reno' }], { main: { ...base.paths.main, txqueuelen: -1 } })[0]).toEqual({
      path: 'paths.main.txqueuelen',
      message: 'must be a queue length from 0 to 1000000 packets',
    });
  });
});

describe('omit', () => {
  it("defaults to none, and leaves out a tcp flow's start from its interval statistics", () => {
    expect(spec([{ stack: 'reno' }]).flows[0]?.omit).toBe(0);
    expect(spec([{ stack: 'reno', omit: '5s' }]).flows[0]?.omit).toBe(5000);
  });

  it('names the field and the range: tcp only, and at least one sample interval left', () => {
    expect(problems([{ transport: 'udt', bytes: '1MB', omit: '2s' }])).toEqual([
      { path: 'flows.0.omit', message: expect.stringMatching(/^only applies to transport tcp/) },
    ]);
    // 30 s run, flow from 10 s: 20 s of sending, 1 s intervals → at most 19 s may be left out.
    expect(problems([{ stack: 'reno', start: '10s', omit: '20s' }])).toEqual([
      {
        path: 'flows.0.omit',
        message:
          "must leave at least one sample interval (1s) of the flow's 20s of sending (at most 19s here)",
      },
    ]);
    expect(problems([{ stack: 'reno', omit: '-1s' }])[0]?.path).toBe('flows.0.omit');
  });
});
