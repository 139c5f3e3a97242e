// A lab test whose subject is not the link's timing (a queue, a campaign's reuse, a vendor suite)
// needs its runs to be results, not to have met every timing bound: under the dilated clock the
// delay stage's spread now and then passes 0.25 ms when the guest is busy (one CI run: 0.754 ms on
// a reverse path of ACKs), a 'suspect' that says the same thing with or without the feature under
// test. Such a run passes here with its warning printed; any other reason, or 'invalid', fails.
// The timing itself is asserted strictly where it is the subject (clock.lab.test.ts).
import { expect } from 'vitest';

const DELAY_JITTER =
  /: the delay stage added [\d.]+ ms \(median\) with a spread of [\d.]+ ms .*: jitter the spec did not ask for/;

/** Fails unless the verdict is valid, or suspect for delay-stage jitter alone. */
export function expectValidButForDelayJitter(
  verdict: string | null | undefined,
  reasons: readonly string[] | undefined,
  label: string,
): void {
  const why = `${label}: ${verdict} (${(reasons ?? []).join('; ')})`;
  if (verdict === 'valid') return;
  expect(verdict, why).toBe('suspect');
  expect(
    (reasons ?? []).filter((r) => !DELAY_JITTER.test(r)),
    why,
  ).toEqual([]);
  console.log(`allowed, the guest's timer load: ${why}`);
}
