/** The value, or a test failure naming what was missing (instead of a non-null assertion). */
export function must<T>(x: T | undefined | null, what = 'value'): T {
  if (x === undefined || x === null) throw new Error(`expected a ${what}`);
  return x;
}
