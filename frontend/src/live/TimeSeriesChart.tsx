// A uPlot chart bound to a BucketSeries: redraws at most every `redrawMs` (and at once for the
// first point), sized to its container, with the unit on the y axis (from zero, so noise does not
// look like drama) and time on the x axis, values under the cursor in the legend, reference lines
// (capacity, buffer), and drag-to-zoom with a reset button.
import { Button, Group, Paper, Text } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { NEUTRAL, type SeriesStyle } from '../lib/colors';
import type { BucketSeries } from './bucketSeries';
import type { ReferenceLine } from './chartReferences';

declare global {
  interface Window {
    /** Epoch ms when the first live data point was drawn (for the UI benchmark). */
    __lfnFirstPoint?: number;
    /** Draw times of every chart redraw, ms (for the UI benchmark). */
    __lfnDrawMs?: number[];
  }
}

export interface ChartProps {
  title: string;
  yLabel: string;
  series: BucketSeries;
  /** Series name → colour and dash, so a flow looks the same on every chart. */
  styleOf: (name: string) => SeriesStyle;
  /** Horizontal reference lines (capacity, buffer) in the chart's unit. */
  references?: ReferenceLine[];
  /** The y axis reaches at least this (small multiples share one scale). */
  yMax?: number;
  height?: number;
  redrawMs?: number;
  /** Offset of this chart's redraws, ms, so charts on one page do not all draw in the same frame. */
  phaseMs?: number;
  subscribe: (fn: () => void) => () => void;
}

/**
 * Series line width in CSS px: exactly one device pixel. Chromium's 2D canvas records the draw calls
 * and rasterises them when the frame is committed (invisible to the draw timing below); a line of one
 * device pixel or less is drawn as an anti-aliased hairline, while anything wider is stroked as a
 * polygon. Measured on the chart benchmark (16 flows × 564 points, software raster): 1.5 px lines
 * cost ≈ 47 ms of commit per chart redraw (66.7 ms frames), hairlines < 1 ms.
 */
const hairline = () => 1 / (window.devicePixelRatio || 1);
/** Up to this many series get 2 px lines (readable); more get hairlines (the benchmark's 16 flows). */
const WIDE_LINES_UP_TO = 6;

/** y from zero for non-negative data, with headroom above the highest value or reference. */
export function zeroBasedRange(
  min: number | null,
  max: number | null,
  refs: readonly number[],
): [number, number] {
  const top = Math.max(max ?? 0, ...refs, 0);
  const bottom = Math.min(min ?? 0, 0);
  return [bottom, top > 0 ? top * 1.08 : 1];
}

export function TimeSeriesChart({
  title,
  yLabel,
  series,
  styleOf,
  references = [],
  yMax = 0,
  height = 200,
  redrawMs = 200,
  phaseMs = 0,
  subscribe,
}: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const names = useRef<string>('');
  const zoomed = useRef(false);
  const [isZoomed, setZoomed] = useState(false);
  const refKey = references.map((r) => `${r.label}=${r.value}`).join('|');

  // biome-ignore lint/correctness/useExhaustiveDependencies: refKey stands for references
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let lastDrawn = -1;
    let drawStart = 0;
    let lastAt = 0;
    let pending: number | undefined;

    const build = () => {
      plot.current?.destroy();
      names.current = series.names.join('\u0000');
      const lineWidth = series.names.length <= WIDE_LINES_UP_TO ? 2 : hairline();
      const refValues = [...references.map((r) => r.value), yMax];
      const opts: uPlot.Options = {
        width: Math.max(280, el.clientWidth),
        height,
        // Values under the cursor, in the legend below the chart.
        legend: { live: true },
        cursor: { drag: { x: true, y: false } },
        scales: {
          x: { time: false },
          y: { range: (_u, min, max) => zeroBasedRange(min, max, refValues) },
        },
        axes: [
          { label: 'Time (s)', stroke: '#333', grid: { stroke: '#e6e6e6' } },
          { label: yLabel, stroke: '#333', grid: { stroke: '#e6e6e6' }, size: 60 },
        ],
        series: [
          { label: 'time (s)', value: (_u, v) => (v == null ? '—' : `${v.toFixed(1)} s`) },
          ...series.names.map((n) => {
            const st = styleOf(n);
            return {
              label: n,
              stroke: st.color,
              dash: st.dash,
              width: lineWidth,
              spanGaps: true,
              points: { show: false },
              value: (_u: uPlot, v: number | null) => (v == null ? '—' : Number(v.toPrecision(4)).toString()),
            };
          }),
        ],
        hooks: {
          // A drag zooms x; data arriving later must not undo it (see draw()).
          setSelect: [
            (u) => {
              if (u.select.width > 0) {
                zoomed.current = true;
                setZoomed(true);
              }
            },
          ],
          // uPlot draws in a microtask after setData; time the canvas work itself.
          drawClear: [
            () => {
              drawStart = performance.now();
            },
          ],
          draw: [
            (u) => {
              drawReferences(u, references);
              window.__lfnDrawMs ??= [];
              window.__lfnDrawMs.push(performance.now() - drawStart);
              if (window.__lfnFirstPoint === undefined && u.data.length > 1 && (u.data[0]?.length ?? 0) > 0) {
                window.__lfnFirstPoint = performance.timeOrigin + performance.now();
              }
            },
          ],
        },
      };
      plot.current = new uPlot(opts, series.toColumns() as uPlot.AlignedData, el);
    };

    const draw = () => {
      pending = undefined;
      if (series.version === lastDrawn) return;
      lastDrawn = series.version;
      lastAt = performance.now();
      // A new flow means a new series: rebuild, which is rare; otherwise just new data.
      if (!plot.current || names.current !== series.names.join('\u0000')) build();
      else plot.current.setData(series.toColumns() as uPlot.AlignedData, !zoomed.current);
    };

    const schedule = () => {
      if (pending !== undefined || series.version === lastDrawn) return;
      const wait = lastDrawn <= 0 ? 0 : Math.max(phaseMs, redrawMs - (performance.now() - lastAt));
      pending = window.setTimeout(() => requestAnimationFrame(draw), wait);
    };

    build();
    lastDrawn = series.version;
    const unsubscribe = subscribe(schedule);
    schedule();
    const ro = new ResizeObserver(() =>
      plot.current?.setSize({ width: Math.max(280, el.clientWidth), height }),
    );
    ro.observe(el);
    return () => {
      unsubscribe();
      ro.disconnect();
      window.clearTimeout(pending);
      plot.current?.destroy();
      plot.current = null;
    };
  }, [series, subscribe, yLabel, height, redrawMs, phaseMs, styleOf, refKey, yMax]);

  const resetZoom = () => {
    const u = plot.current;
    zoomed.current = false;
    setZoomed(false);
    if (u) u.setData(u.data, true);
  };

  return (
    <Paper withBorder p="xs" radius="md" className="lfn-chart">
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text fw={600} size="sm" component="h3" m={0}>
          {title}
        </Text>
        {isZoomed && (
          <Button size="compact-xs" variant="default" onClick={resetZoom}>
            Reset zoom
          </Button>
        )}
      </Group>
      <div
        ref={box}
        role="img"
        aria-label={`${title} chart, ${yLabel} over time in seconds${
          references.length ? `; reference lines: ${references.map((r) => r.label).join(', ')}` : ''
        }. Drag across to zoom in.`}
      />
      {references.length > 0 && (
        <Text size="xs" c="dimmed">
          Dotted: {references.map((r) => r.label).join(' · ')}
        </Text>
      )}
    </Paper>
  );
}

/** Dotted horizontal lines at each reference value, labelled at the right end. */
function drawReferences(u: uPlot, refs: readonly ReferenceLine[]) {
  if (!refs.length) return;
  const ctx = u.ctx;
  const { left, top, width, height } = u.bbox;
  ctx.save();
  ctx.strokeStyle = NEUTRAL.reference;
  ctx.fillStyle = NEUTRAL.reference;
  ctx.lineWidth = Math.max(1, devicePixelRatio || 1);
  ctx.setLineDash([4 * (devicePixelRatio || 1), 4 * (devicePixelRatio || 1)]);
  ctx.font = `${11 * (devicePixelRatio || 1)}px system-ui, sans-serif`;
  ctx.textAlign = 'right';
  for (const r of refs) {
    const y = Math.round(u.valToPos(r.value, 'y', true));
    if (y < top || y > top + height) continue;
    ctx.beginPath();
    ctx.moveTo(left, y);
    ctx.lineTo(left + width, y);
    ctx.stroke();
    ctx.fillText(r.label, left + width - 4, y - 4);
  }
  ctx.restore();
}
