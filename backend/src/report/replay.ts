// A finished run's samples for the browser's charts: the kinds the live charts draw, thinned per
// series to a bound (every k-th sample, so each kept sample is a real one with all its fields),
// and each path's capacity and buffer so the charts can draw them as reference lines.
import { bdpBytes, bufferPackets, frameBytes } from '@lfnlab/emulator';
import type { Sample } from '../run/samples.js';
import type { RunData } from './load.js';

export interface PathReference {
  path: string;
  /** Bottleneck rate at the start, Mbit/s. */
  rateMbps: number;
  /** Bottleneck buffer, packets (full frames); null when the record does not say. */
  bufferPackets: number | null;
}

export interface ReplayedSamples {
  samples: Sample[];
  references: PathReference[];
  /** Samples on file for these kinds, before thinning. */
  recorded: number;
}

const seriesKey = (s: Sample): string | null => {
  switch (s.kind) {
    case 'goodput':
    case 'tcp':
      return `${s.kind} ${s.flow}`;
    case 'rtt':
      return `rtt ${s.path}`;
    case 'queue':
      return s.stage === 'bottleneck' ? `queue ${s.path} ${s.direction}` : null;
    default:
      return null;
  }
};

export function replaySamples(run: RunData, maxPerSeries: number): ReplayedSamples {
  const bySeries = new Map<string, Sample[]>();
  const all: Sample[] = [
    ...run.samples.goodput,
    ...run.samples.tcp,
    ...run.samples.rtt,
    ...run.samples.queue,
  ];
  for (const s of all) {
    const k = seriesKey(s);
    if (!k) continue;
    const list = bySeries.get(k) ?? [];
    list.push(s);
    bySeries.set(k, list);
  }
  const samples: Sample[] = [];
  let recorded = 0;
  for (const list of bySeries.values()) {
    recorded += list.length;
    list.sort((a, b) => a.t - b.t);
    const step = Math.max(1, Math.ceil(list.length / maxPerSeries));
    for (let i = 0; i < list.length; i += step) samples.push(list[i] as Sample);
  }
  samples.sort((a, b) => a.t - b.t);
  return { samples, references: pathReferences(run), recorded };
}

function pathReferences(run: RunData): PathReference[] {
  const spec = run.spec;
  if (!spec?.paths) return [];
  const frame = frameBytes(spec.mtu ?? 1500);
  return Object.entries(spec.paths).map(([path, p]) => ({
    path,
    rateMbps: p.rate / 1e6,
    bufferPackets: p.buffer ? bufferPackets(p.buffer, bdpBytes(p.rate, p.rtt), frame) : null,
  }));
}
