// Small fixtures shaped like docs/API.md, shared by the component tests.
import type { Lab, User } from '../api/types';

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
