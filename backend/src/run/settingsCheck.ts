// The shape every "configuration read back" check shares (stack parameters, routes): one home for it,
// so each such check says the same kind of thing when the lab did not hold the spec.
import type { Check } from './fidelity.js';

/**
 * A check that the lab's configuration, read back, is what the spec sets: it fails naming each
 * setting found otherwise (`wrong`), and passes with `held`.
 */
export function settingsCheck(
  id: string,
  expected: string,
  what: string,
  wrong: readonly string[],
  held: string,
): Check {
  return {
    id,
    status: wrong.length ? 'fail' : 'pass',
    measured: wrong.length,
    expected,
    message: wrong.length ? `${what} not as the spec sets them: ${wrong.join(', ')}` : held,
  };
}
