// What a CLI command printed, line by line, so a test can assert on the words a user reads.
import { vi } from 'vitest';

export interface ConsoleCapture {
  out: string[];
  err: string[];
}

/** Collects console.log into `out` and console.error into `err` until vi.restoreAllMocks(). */
export function captureConsole(): ConsoleCapture {
  const capture: ConsoleCapture = { out: [], err: [] };
  vi.spyOn(console, 'log').mockImplementation((...a) => void capture.out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a) => void capture.err.push(a.join(' ')));
  return capture;
}
