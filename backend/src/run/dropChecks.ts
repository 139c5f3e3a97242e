// Where packets may be lost: in a delay stage only by the configured BER, in a veth or IFB never.
import type { PathTopology } from '@lfnlab/emulator';
import { grade } from './checkGrade.js';
import type { Check, LinkStat, QdiscStat } from './fidelity.js';

/** Binomial 95 % interval (Wilson) for k events in n trials. */
export function wilson95(k: number, n: number): [number, number] {
  if (n === 0) return [0, 1];
  const z = 1.96;
  const p = k / n;
  const den = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / den;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / den;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

const delta = (after: QdiscStat[], before: QdiscStat[], dev: string, pick: (q: QdiscStat) => boolean) => {
  const sum = (xs: QdiscStat[]) =>
    xs
      .filter((q) => q.dev === dev && pick(q))
      .reduce((a, q) => ({ packets: a.packets + q.packets, drops: a.drops + q.drops }), {
        packets: 0,
        drops: 0,
      });
  const a = sum(after);
  const b = sum(before);
  return { packets: a.packets - b.packets, drops: a.drops - b.drops };
};

/**
 * Delay stages drop only by the configured loss: none without a BER (a drop there means its limit
 * was too small: a hidden queue), and with a BER, a full-frame loss rate inside the 95 % interval
 * of its PER.
 */
export function checkDelayStageLoss(
  topo: PathTopology,
  ber: number,
  before: QdiscStat[],
  after: QdiscStat[],
): Check[] {
  const out: Check[] = [];
  for (const [direction, dev] of [
    ['forward', topo.routerIfs.toReceiver],
    ['reverse', topo.routerIfs.toSender],
  ] as const) {
    const id = `delay-loss:${topo.name}:${direction}`;
    if (ber === 0) {
      const d = delta(after, before, dev, (q) => q.kind === 'netem');
      out.push({
        id,
        status: d.drops === 0 ? 'pass' : 'fail',
        measured: d.drops,
        expected: '0 drops',
        message:
          d.drops === 0
            ? `${topo.name} ${direction}: no drops in the delay stage`
            : `${topo.name} ${direction}: ${d.drops} drops in the delay stage, which has no configured loss (its limit is too small: a hidden queue)`,
      });
      continue;
    }
    // Full-sized frames are class 20: (handle "20:"); their loss rate is what the PER predicts.
    const d = delta(after, before, dev, (q) => q.handle === '20:');
    const n = d.packets + d.drops;
    const [lo, hi] = wilson95(d.drops, n);
    const per = topo.per.fullFrame;
    const inside = per >= lo && per <= hi;
    const width = hi - lo;
    out.push({
      id,
      status: n < 100 ? 'skip' : grade(inside, per >= lo - width && per <= hi + width),
      measured: n ? d.drops / n : null,
      expected: `PER ${per.toPrecision(3)} for ${topo.frameBytes} B frames`,
      message: `${topo.name} ${direction}: ${d.drops} of ${n} full frames lost (${n ? ((100 * d.drops) / n).toPrecision(3) : '-'} %; 95 % interval ${(100 * lo).toPrecision(3)}-${(100 * hi).toPrecision(3)} %; PER ${(100 * per).toPrecision(3)} %)`,
    });
  }
  return out;
}

/** No packet may be dropped by a veth or IFB (backlog overflow): drops belong at the bottleneck. */
export function checkHiddenDrops(
  before: Record<string, LinkStat[]>,
  after: Record<string, LinkStat[]>,
): Check {
  const dropped = (l: LinkStat) =>
    (l.stats64?.rx?.dropped ?? 0) + (l.stats64?.tx?.dropped ?? 0) + (l.stats64?.rx?.over_errors ?? 0);
  const found: string[] = [];
  let total = 0;
  for (const [ns, links] of Object.entries(after)) {
    for (const l of links) {
      const b = before[ns]?.find((x) => x.ifname === l.ifname);
      const d = dropped(l) - (b ? dropped(b) : 0);
      if (d > 0) {
        found.push(`${ns}/${l.ifname}: ${d}`);
        total += d;
      }
    }
  }
  return {
    id: 'hidden-drops',
    status: total === 0 ? 'pass' : 'fail',
    measured: total,
    expected: '0 drops outside the bottleneck',
    message: total === 0 ? 'no drops in veths or IFBs' : `drops outside the bottleneck: ${found.join(', ')}`,
  };
}
