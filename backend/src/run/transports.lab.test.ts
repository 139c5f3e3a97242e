// Seed 004's user-space transports as flows in the real lab: each moves its payload through a
// 20 Mbit/s bottleneck, and the receiver's SHA-256 of what arrived equals the sender's of what left.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { bootTestLab, type QdiscStat, rootQdisc, runSpec } from '../../test/support/lab.js';
import type { FlowSummary } from './summary.js';

const BYTES = 5_000_000;
let run: Awaited<ReturnType<typeof runSpec>>;

beforeAll(async () => {
  await bootTestLab();
  // One after another, so each has the bottleneck to itself (they would finish in ~2.5 s at full rate).
  run = await runSpec({
    name: 'transports',
    duration: '27s',
    // A BER of 1e-6 loses ~1.2 % of full-size frames: RBUDP needs bitmap rounds, UDT and TCP recover.
    paths: { main: { rtt: '20ms', rate: '20Mbit', buffer: '1bdp', ber: 1e-6 } },
    flows: [
      // No rate: RBUDP blasts at the bottleneck rate.
      { name: 'rbudp', transport: 'rbudp', bytes: `${BYTES}B` },
      { name: 'udt', transport: 'udt', bytes: `${BYTES}B`, start: '9s' },
      {
        name: 'psockets',
        transport: 'psockets',
        stack: 'cubic',
        streams: 4,
        bytes: `${BYTES}B`,
        start: '18s',
      },
    ],
  });
});

const flow = (name: string) => run.summary.flows.find((f) => f.name === name) as FlowSummary;

function expectVerified(name: string) {
  const f = flow(name);
  const t = f.transfer;
  console.log(
    `${name}: ${t?.bytes.received} B in ${t?.seconds?.toFixed(2)} s = ${f.goodputMbps.wholeRun?.toFixed(2)} Mbit/s, ` +
      `rounds ${t?.rounds ?? '-'} (max ${t?.maxRounds ?? '-'}), re-sent ${t?.retransmitted ?? '-'}, ` +
      `sha256 sender ${t?.sha256.sender} receiver ${t?.sha256.receiver}`,
  );
  expect(f.error).toBeNull();
  expect(f.status).toBe('ok');
  expect(f.integrity).toBe('ok');
  expect(t?.sha256.receiver).toMatch(/^[0-9a-f]{64}$/);
  expect(t?.sha256.receiver).toBe(t?.sha256.sender);
  expect(t?.bytes).toEqual({ planned: BYTES, sent: BYTES, received: BYTES });
  // Through the bottleneck and no faster than it: payload ≤ 20 Mbit/s of frames.
  expect(f.goodputMbps.wholeRun).toBeGreaterThan(1);
  expect(f.goodputMbps.wholeRun).toBeLessThanOrEqual(20);
  return f;
}

describe('user-space transports as flows', () => {
  it('RBUDP: blast, bitmap rounds, and the receiver hash equals the sender hash', () => {
    const f = expectVerified('rbudp');
    // ~40 of ~3400 datagrams lost in the first blast: at least one more round re-sends them.
    expect(f.transfer?.rounds).toBeGreaterThanOrEqual(2);
    expect(f.transfer?.retransmitted).toBeGreaterThan(0);
    // The rounds are in the record as the sender saw them, the last with nothing missing.
    const detail = run.read('flows/rbudp.transfer.json');
    expect(detail.roundsDetail.at(-1).missing).toBe(0);
    expect(readFileSync(`${run.dir}/flows/rbudp.receiver.txt`, 'utf8')).toMatch(/^#end\t.*match=1/m);
  });

  it('UDT: a libudt bulk transfer whose receiver hash equals the sender hash', () => {
    expectVerified('udt');
  });

  it('PSockets: striped over 4 TCP connections with the chosen stack, hashes equal', () => {
    const f = expectVerified('psockets');
    expect(f.observedStacks).toEqual(['cubic']);
    expect(f.transfer?.retransmitted).toBeNull();
  });

  it('every byte went through the forward bottleneck, with goodput samples per flow', () => {
    const before: QdiscStat[] = run.read('qdisc-before.json');
    const after: QdiscStat[] = run.read('qdisc-after.json');
    const sent = (rootQdisc(after, 'p0-fwd')?.bytes ?? 0) - (rootQdisc(before, 'p0-fwd')?.bytes ?? 0);
    expect(sent).toBeGreaterThan(3 * BYTES);
    const intervals = readFileSync(`${run.dir}/samples/interval.jsonl`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { flow: string; goodputBps: number });
    for (const name of ['rbudp', 'udt', 'psockets'])
      expect(intervals.filter((s) => s.flow === name).length).toBeGreaterThanOrEqual(1);
  });
});
