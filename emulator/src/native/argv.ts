// Option checks shared by the argv builders of the lab's own C programs (emulator/sampling,
// emulator/traffic, emulator/transports). Each check throws a RangeError naming the option, against the
// same limits the program enforces, so a bad plan fails while it is built rather than inside the lab. They
// return the value as the argv string.

import { isIP } from 'node:net';

/** An integer lo..hi (both within ±2^53). */
export function checkInt(v: number, lo: number, hi: number, what: string): string {
  if (!Number.isSafeInteger(v) || v < lo || v > hi)
    throw new RangeError(`${what} must be an integer ${lo}..${hi} (got ${v})`);
  return String(v);
}

/** A finite number lo..hi. */
export function checkNumber(v: number, lo: number, hi: number, what: string): string {
  if (!Number.isFinite(v) || v < lo || v > hi)
    throw new RangeError(`${what} must be ${lo}..${hi} (got ${v})`);
  return String(v);
}

/** A time limit in seconds, 0..1e7 (0 usually means none). */
export function checkSeconds(v: number, what: string): string {
  if (!Number.isFinite(v) || v < 0 || v > 1e7)
    throw new RangeError(`${what} must be 0..1e7 seconds (got ${v})`);
  return String(v);
}

/** A TCP/UDP port to connect to or match, 1..65535. */
export function checkPort(p: number, what: string): string {
  return checkInt(p, 1, 65535, what);
}

/** A numeric IPv4 or IPv6 address: the lab has no resolver, and the programs are static and resolve nothing. */
export function checkIpAddress(a: string, what: string): string {
  if (isIP(a) === 0) throw new RangeError(`${what} must be a numeric IPv4 or IPv6 address (got '${a}')`);
  return a;
}

const U64_MAX = (1n << 64n) - 1n;

/** A PRNG seed, 0..2^64-1: a bigint, or a number while it is exact (a safe integer). */
export function checkSeed(seed: number | bigint, what: string): string {
  if (typeof seed !== 'bigint' && !Number.isSafeInteger(seed)) {
    const hint = Number.isInteger(seed) ? '; use a bigint past 2^53' : '';
    throw new RangeError(`${what} must be an integer 0..2^64-1 (got ${seed})${hint}`);
  }
  const n = BigInt(seed);
  if (n < 0n || n > U64_MAX) throw new RangeError(`${what} must be an integer 0..2^64-1 (got ${seed})`);
  return n.toString();
}

/** Device names as the kernel allows them (1..15 bytes, no '/', ':' or whitespace), minus quotes. */
const DEV_NAME = /^[!-~]{1,15}$/;

/** A network device name, to match by name inside a namespace. */
export function checkDeviceName(dev: string): string {
  if (!DEV_NAME.test(dev) || /[/:"\\]/.test(dev) || dev === '.' || dev === '..') {
    throw new RangeError(`not a valid device name: '${dev}'`);
  }
  return dev;
}
