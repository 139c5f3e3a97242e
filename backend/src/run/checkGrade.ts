// A check's status from its two bars, shared by the checks that grade on one measurement.
import type { CheckStatus } from './fidelity.js';

export const grade = (ok: boolean, warn: boolean): CheckStatus => (ok ? 'pass' : warn ? 'warn' : 'fail');
