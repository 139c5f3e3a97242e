// Input checks shared by every metric. The library's policy (see index.ts) is that malformed input
// throws a MetricInputError naming the argument, so a bad parser or a unit mix-up fails loudly
// instead of leaking NaN into summary.json.

export class MetricInputError extends Error {
  override name = 'MetricInputError';
}

export function fail(message: string): never {
  throw new MetricInputError(message);
}

export function requireFinite(value: number, name: string): number {
  if (!Number.isFinite(value)) fail(`${name} must be a finite number (got ${value})`);
  return value;
}

export function requireNonNegative(value: number, name: string): number {
  requireFinite(value, name);
  if (value < 0) fail(`${name} must not be negative (got ${value})`);
  return value;
}

export function requirePositive(value: number, name: string): number {
  requireFinite(value, name);
  if (value <= 0) fail(`${name} must be greater than 0 (got ${value})`);
  return value;
}

/** Open or closed interval check; `lowOpen`/`highOpen` exclude the bound itself. */
export function requireInRange(
  value: number,
  name: string,
  low: number,
  high: number,
  { lowOpen = false, highOpen = false } = {},
): number {
  requireFinite(value, name);
  const belowLow = lowOpen ? value <= low : value < low;
  const aboveHigh = highOpen ? value >= high : value > high;
  if (belowLow || aboveHigh) {
    fail(`${name} must be in ${lowOpen ? '(' : '['}${low}, ${high}${highOpen ? ')' : ']'} (got ${value})`);
  }
  return value;
}

export function requireNonEmpty<T>(values: readonly T[], name: string): readonly T[] {
  if (values.length === 0) fail(`${name} must not be empty`);
  return values;
}

/** A non-empty list of finite, non-negative numbers (throughputs, window sizes, counts). */
export function requireNonNegativeList(values: readonly number[], name: string): readonly number[] {
  requireNonEmpty(values, name);
  values.forEach((v, i) => {
    requireNonNegative(v, `${name}[${i}]`);
  });
  return values;
}

/** Indexed read that cannot silently yield undefined under noUncheckedIndexedAccess. */
export function at<T>(values: readonly T[], index: number): T {
  const v = values[index];
  if (v === undefined) throw new RangeError(`index ${index} out of range 0..${values.length - 1}`);
  return v;
}
