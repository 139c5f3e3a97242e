// Flent-style summaries of the compared runs: mean goodput per flow with ±σ whiskers (bars), the
// spread of each flow's goodput (box plots: quartiles, whiskers at min and max), and the CDF of
// each flow's RTT. Plain SVG, zero-based axes, colours by stack and dashes by run as on the charts.
import { Paper, SimpleGrid, Text, Title } from '@mantine/core';
import type { SeriesStyle } from '../lib/colors';
import type { RunSeries } from './overlay';
import { boxStats, cdf } from './stats';

const W = 420;
const H = 220;
const M = { l: 48, r: 8, t: 10, b: 36 };

interface Item {
  label: string;
  style: SeriesStyle;
  goodput: number[];
  rtt: number[];
}

export function SummaryCharts({
  runs,
  styleOf,
}: {
  runs: RunSeries[];
  styleOf: (series: string) => SeriesStyle;
}) {
  const items: Item[] = runs.flatMap((r) =>
    r.flows.map((f) => ({
      label: `${r.label}: ${f.name}`,
      style: styleOf(`${r.label}: ${f.name}`),
      goodput: f.goodputMbps,
      rtt: f.rttMs,
    })),
  );
  if (!items.length) return null;
  return (
    <SimpleGrid cols={{ base: 1, md: 2, xl: 3 }} spacing="sm" data-testid="compare-summaries">
      <Panel title="Mean goodput ± σ (Mbit/s)">
        <Bars items={items} />
      </Panel>
      <Panel title="Goodput spread (Mbit/s): box = quartiles, whiskers = min–max">
        <Boxes items={items} />
      </Panel>
      <Panel title="RTT CDF (ms): share of samples at or below">
        <Cdfs items={items} />
      </Panel>
    </SimpleGrid>
  );
}

function Panel({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Paper withBorder p="xs" radius="md">
      <Title order={4} size="h6">
        {title}
      </Title>
      {children}
    </Paper>
  );
}

const niceMax = (x: number) => {
  if (!(x > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(x));
  return [1, 2, 2.5, 5, 10].map((m) => m * p).find((v) => v >= x) ?? 10 * p;
};

function YAxis({ max, label }: { max: number; label?: string }) {
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * max);
  const y = (v: number) => M.t + (H - M.t - M.b) * (1 - v / max);
  return (
    <g fontSize="10" fill="#333">
      {ticks.map((t) => (
        <g key={t}>
          <line x1={M.l} x2={W - M.r} y1={y(t)} y2={y(t)} stroke="#e6e6e6" />
          <text x={M.l - 4} y={y(t) + 3} textAnchor="end">
            {Number(t.toPrecision(3))}
          </text>
        </g>
      ))}
      {label && (
        <text x={(M.l + W - M.r) / 2} y={H - 4} textAnchor="middle">
          {label}
        </text>
      )}
    </g>
  );
}

function Legend({ items }: { items: Item[] }) {
  return (
    <Text size="xs" component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
      {items.map((it, i) => (
        <li key={it.label}>
          <svg width="22" height="8" aria-hidden>
            <line
              x1="0"
              x2="22"
              y1="4"
              y2="4"
              stroke={it.style.color}
              strokeWidth="2.5"
              strokeDasharray={it.style.dash.join(' ')}
            />
          </svg>{' '}
          {i + 1}. {it.label}
        </li>
      ))}
    </Text>
  );
}

function Bars({ items }: { items: Item[] }) {
  const stats = items.map((it) => boxStats(it.goodput));
  const sd = (xs: number[], mean: number) =>
    Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / Math.max(1, xs.length));
  const max = niceMax(
    Math.max(...stats.map((s, i) => (s ? s.mean + sd(items[i]?.goodput ?? [], s.mean) : 0))),
  );
  const slot = (W - M.l - M.r) / items.length;
  const y = (v: number) => M.t + (H - M.t - M.b) * (1 - v / max);
  return (
    <>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        width="100%"
        role="img"
        aria-label="Bar chart of mean goodput per flow and run, with one-sigma whiskers"
      >
        <YAxis max={max} label="flow (numbered as in the legend)" />
        {items.map((it, i) => {
          const s = stats[i];
          if (!s) return null;
          const d = sd(it.goodput, s.mean);
          const x = M.l + i * slot + slot * 0.15;
          const w = slot * 0.7;
          return (
            <g key={it.label}>
              <title>{`${it.label}: ${s.mean.toFixed(2)} ± ${d.toFixed(2)} Mbit/s`}</title>
              <rect
                x={x}
                y={y(s.mean)}
                width={w}
                height={y(0) - y(s.mean)}
                fill={it.style.color}
                fillOpacity={it.style.dash.length ? 0.45 : 0.85}
                stroke={it.style.color}
                strokeDasharray={it.style.dash.join(' ')}
              />
              <line
                x1={x + w / 2}
                x2={x + w / 2}
                y1={y(Math.max(0, s.mean - d))}
                y2={y(s.mean + d)}
                stroke="#000"
              />
              <text x={x + w / 2} y={H - M.b + 12} fontSize="10" textAnchor="middle">
                {i + 1}
              </text>
            </g>
          );
        })}
      </svg>
      <Legend items={items} />
    </>
  );
}

function Boxes({ items }: { items: Item[] }) {
  const stats = items.map((it) => boxStats(it.goodput));
  const max = niceMax(Math.max(...stats.map((s) => s?.max ?? 0)));
  const slot = (W - M.l - M.r) / items.length;
  const y = (v: number) => M.t + (H - M.t - M.b) * (1 - v / max);
  return (
    <svg
      viewBox={`0 0 ${W} ${H}`}
      width="100%"
      role="img"
      aria-label="Box plots of each flow's goodput per run"
    >
      <YAxis max={max} label="flow (numbered as in the legend)" />
      {items.map((it, i) => {
        const s = stats[i];
        if (!s) return null;
        const cx = M.l + (i + 0.5) * slot;
        const w = slot * 0.5;
        return (
          <g key={it.label} stroke={it.style.color} strokeWidth="1.5">
            <title>{`${it.label}: median ${s.median.toFixed(2)}, quartiles ${s.q1.toFixed(2)}–${s.q3.toFixed(2)}, range ${s.min.toFixed(2)}–${s.max.toFixed(2)} Mbit/s (${s.n} samples)`}</title>
            <line x1={cx} x2={cx} y1={y(s.min)} y2={y(s.max)} />
            <rect
              x={cx - w / 2}
              y={y(s.q3)}
              width={w}
              height={Math.max(1, y(s.q1) - y(s.q3))}
              fill="#fff"
              strokeDasharray={it.style.dash.join(' ')}
            />
            <line x1={cx - w / 2} x2={cx + w / 2} y1={y(s.median)} y2={y(s.median)} strokeWidth="3" />
            <text x={cx} y={H - M.b + 12} fontSize="10" textAnchor="middle" stroke="none" fill="#333">
              {i + 1}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

function Cdfs({ items }: { items: Item[] }) {
  const curves = items.map((it) => cdf(it.rtt));
  const max = niceMax(Math.max(...curves.flatMap((c) => c.map((p) => p.v)), 0));
  const x = (v: number) => M.l + (W - M.l - M.r) * (v / max);
  const y = (p: number) => M.t + (H - M.t - M.b) * (1 - p);
  return (
    <svg
      viewBox={`0 0 ${W} ${H}`}
      width="100%"
      role="img"
      aria-label="Cumulative distribution of each flow's RTT per run"
    >
      <YAxis max={1} label={`RTT (ms), 0 to ${max}`} />
      {curves.map((c, i) => {
        const it = items[i] as Item;
        if (!c.length) return null;
        const d = c.map((p, k) => `${k ? 'L' : 'M'}${x(p.v).toFixed(1)},${y(p.p).toFixed(1)}`).join(' ');
        return (
          <path
            key={it.label}
            d={d}
            fill="none"
            stroke={it.style.color}
            strokeWidth="2"
            strokeDasharray={it.style.dash.join(' ')}
          >
            <title>{it.label}</title>
          </path>
        );
      })}
    </svg>
  );
}
