// Small JSON files under the data directory, written atomically: a crash mid-write leaves the old
// file (write to a temporary name in the same directory, fsync, then rename over the target).

import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

export function readJsonFile<T>(file: string, fallback: T): T {
  if (!existsSync(file)) return fallback;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch (err) {
    throw new Error(`${file}: not readable JSON (${(err as Error).message}); fix or remove it`);
  }
}

export function writeJsonAtomic(file: string, value: unknown, mode = 0o600): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = join(dirname(file), `.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(tmp, 'w', mode);
  try {
    writeSync(fd, `${JSON.stringify(value, null, 2)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}
