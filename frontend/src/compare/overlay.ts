// Time series of finished runs for overlay charts, from the JSON export's samples
// (backend/src/report/exports.ts: { samples: { goodput: [...], tcp: [...], rtt: [...] } }).
import { get } from '../api/client';
import { BucketSeries } from '../live/bucketSeries';

interface ExportSamples {
  samples?: {
    goodput?: { t: number; flow: string; bps: number }[];
    tcp?: { t: number; flow: string; srttMs: number; cwndPackets: number }[];
    rtt?: { t: number; path: string; rttMs: number }[];
  };
}

export interface Overlay {
  throughput: BucketSeries;
  rtt: BucketSeries;
  cwnd: BucketSeries;
}

export async function loadOverlay(runs: { id: string; label: string }[]): Promise<Overlay> {
  const o: Overlay = {
    throughput: new BucketSeries(2048),
    rtt: new BucketSeries(2048),
    cwnd: new BucketSeries(2048),
  };
  const exports = await Promise.all(
    runs.map((r) => get<ExportSamples>(`/api/runs/${encodeURIComponent(r.id)}/export/json`)),
  );
  exports.forEach((x, k) => {
    const label = runs[k]?.label ?? String(k);
    for (const s of x.samples?.goodput ?? []) o.throughput.add(s.t, `${label}: ${s.flow}`, s.bps / 1e6);
    for (const s of x.samples?.tcp ?? []) {
      o.rtt.add(s.t, `${label}: ${s.flow}`, s.srttMs);
      o.cwnd.add(s.t, `${label}: ${s.flow}`, s.cwndPackets);
    }
  });
  return o;
}
