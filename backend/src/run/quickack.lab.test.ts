// paths.X.quickack in the real lab: the end hosts' routes carry `quickack 1`, the record reads them
// back, and the receiver then acknowledges every data segment: ACKs per data packet through the
// router go from about one per two segments (Linux's delayed ACKs) to about one per segment.
import { beforeAll, describe, expect, it } from 'vitest';
import { bootTestLab, rootQdisc, runSpec } from '../../test/support/lab.js';
import type { QdiscStat } from './fidelity.js';

beforeAll(async () => {
  await bootTestLab();
});

/** Packets the router's delay stage sent toward `dev` during the run (after minus before). */
const sent = (r: Awaited<ReturnType<typeof runSpec>>, dev: string) => {
  const at = (when: string) => rootQdisc(r.read(`qdisc-${when}.json`) as QdiscStat[], dev)?.packets ?? 0;
  return at('after') - at('before');
};

const spec = (quickack?: boolean) => ({
  name: `quickack-${quickack ?? 'default'}`,
  duration: '5s',
  paths: { main: { rtt: '20ms', rate: '20Mbit', ...(quickack === undefined ? {} : { quickack }) } },
  flows: [{ stack: 'cubic' }],
});

describe('delayed ACKs off (paths.X.quickack)', () => {
  it('acknowledges every segment when asked, about every second one otherwise, and proves which', async () => {
    const quick = await runSpec(spec(true));
    expect(quick.summary.status).toBe('completed');
    expect(quick.read('routes.json')['lfn-p0-rcv']).toContainEqual(
      expect.objectContaining({ dst: 'default', metrics: [{ quickack: 1 }] }),
    );
    expect(quick.summary.fidelity?.checks.find((c) => c.id === 'quickack')).toMatchObject({ status: 'pass' });

    const plain = await runSpec(spec());
    expect(plain.summary.status).toBe('completed');
    expect(plain.summary.fidelity?.checks.find((c) => c.id === 'quickack')).toBeUndefined();

    // Data toward the receiver leaves through p0-rcv, its ACKs toward the sender through p0-snd.
    const ackRatio = (r: typeof quick) => sent(r, 'p0-snd') / sent(r, 'p0-rcv');
    const q = ackRatio(quick);
    const p = ackRatio(plain);
    console.log(`ACKs per data packet: quickack ${q.toFixed(3)}, delayed ACKs ${p.toFixed(3)}`);
    expect(sent(quick, 'p0-rcv')).toBeGreaterThan(3000);
    expect(q).toBeGreaterThan(0.9);
    expect(p).toBeLessThan(0.75);
  });
});
