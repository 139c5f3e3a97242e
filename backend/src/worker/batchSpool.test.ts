import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BatchSpool } from './batchSpool.js';

const batch = (seq: number) => ({
  seq,
  samples: [{ kind: 'tcp', t: seq, flow: 0 }] as never[],
  events: [],
});

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the worker’s batch spool', () => {
  it('keeps batches on disk in order until each is acknowledged, and reads back what an earlier spool left', () => {
    dir = mkdtempSync(join(tmpdir(), 'lfnlab-spool-'));
    const spool = new BatchSpool(join(dir, 'run1'));
    expect(spool.head()).toBeNull();
    for (const seq of [1, 2, 3]) spool.put(batch(seq));
    expect(readdirSync(spool.dir)).toEqual(['000000001.json', '000000002.json', '000000003.json']);
    expect(spool.head()?.seq).toBe(1);
    spool.ack(2); // not the oldest: nothing happens
    expect(spool.size).toBe(3);
    spool.ack(1);
    expect(spool.head()).toEqual(batch(2));
    const again = new BatchSpool(join(dir, 'run1'));
    expect(again.size).toBe(2);
    expect(again.head()?.seq).toBe(2);
    again.remove();
    expect(existsSync(join(dir, 'run1'))).toBe(false);
  });
});
