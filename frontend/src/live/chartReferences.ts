// Reference lines for a run's charts, from its spec: each path's bottleneck rate on the throughput
// chart and its buffer (packets) on the queue chart, so a reader sees how close to full each is.
import { bdpBytes, bufferPackets, frameBytes } from '@lfnlab/emulator/sizing';
import type { Run } from '../api/types';
import type { ChartId } from './liveModel';

export interface ReferenceLine {
  label: string;
  value: number;
}

export function chartReferences(spec: Run['spec'] | undefined): Partial<Record<ChartId, ReferenceLine[]>> {
  if (!spec?.paths) return {};
  const frame = frameBytes(spec.mtu ?? 1500);
  const throughput: ReferenceLine[] = [];
  const queue: ReferenceLine[] = [];
  for (const [name, p] of Object.entries(spec.paths)) {
    throughput.push({ label: `capacity ${name} ${fmt(p.rate / 1e6)} Mbit/s`, value: p.rate / 1e6 });
    if (p.buffer) {
      const pkts = bufferPackets(p.buffer, bdpBytes(p.rate, p.rtt), frame);
      queue.push({ label: `buffer ${name} ${pkts} packets`, value: pkts });
    }
  }
  return { throughput, queue };
}

const fmt = (x: number) => String(Number(x.toPrecision(4)));
