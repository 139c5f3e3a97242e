// Small fixtures shaped like docs/API.md, shared by the component tests.
import { type Spec, SpecSchema } from '@lfnlab/emulator/spec';
import type { Lab, User } from '../../src/api/types';

/** A resolved spec, as a run record carries it: two flows over one 100 Mbit/s, 70 ms path. */
export const spec = (name: string): Spec =>
  SpecSchema.parse({
    name,
    duration: '30s',
    paths: { main: { rtt: '70ms', rate: '100Mbit', buffer: '1bdp' } },
    flows: [{ stack: 'reno' }, { stack: 'cubic' }],
  });

export const student: User = { id: 'u1', username: 'ada', role: 'student', class: 'net101' };

/** A booted lab whose bbr module failed to load: the designer must offer exactly these stacks. */
export const labs: Lab[] = [
  {
    name: 'default',
    state: 'ready',
    accel: 'tcg',
    cpus: 2,
    kernel: '6.12.9',
    stacks: ['reno', 'cubic', 'htcp', 'vegas'],
    bootMs: 41_000,
  },
];

/** GET /api/runs/:id/samples for the two-flow spec above: 3 s of each chart's samples. */
export const replay = {
  recorded: 24,
  references: [{ path: 'main', rateMbps: 100, bufferPackets: 583 }],
  samples: [0.5, 1.5, 2.5].flatMap((t) => [
    { kind: 'goodput', t, flow: 'reno-1', bps: 40e6 + t * 1e6, bytesReceived: 0 },
    { kind: 'goodput', t, flow: 'cubic-2', bps: 50e6, bytesReceived: 0 },
    { kind: 'tcp', t, flow: 'reno-1', cwndPackets: 300 + t, srttMs: 80, streams: 1, cc: 'reno' },
    { kind: 'tcp', t, flow: 'cubic-2', cwndPackets: 400, srttMs: 82, streams: 1, cc: 'cubic' },
    { kind: 'rtt', t, path: 'main', rttMs: 81, seq: t },
    {
      kind: 'queue',
      t,
      path: 'main',
      stage: 'bottleneck',
      direction: 'forward',
      backlogPackets: 120,
      drops: 0,
    },
  ]),
};
