// Small fixtures shaped like docs/API.md, shared by the component tests.
import { type Spec, SpecSchema } from '@lfnlab/emulator/spec';
import type { Lab, User } from '../api/types';

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
