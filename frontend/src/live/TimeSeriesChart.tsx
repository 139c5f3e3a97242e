// A uPlot chart bound to a BucketSeries: redraws at most every `redrawMs` (and at once for the
// first point), sized to its container, with the unit on the y axis and time on the x axis.
import { Paper, Text } from '@mantine/core';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { colorOf } from '../lib/colors';
import type { BucketSeries } from './bucketSeries';

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
  /** Series name → colour index, so a flow has one colour on every chart. */
  colorIndex: (name: string) => number;
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

export function TimeSeriesChart({
  title,
  yLabel,
  series,
  colorIndex,
  height = 200,
  redrawMs = 200,
  phaseMs = 0,
  subscribe,
}: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const names = useRef<string>('');

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
      const lineWidth = hairline();
      const opts: uPlot.Options = {
        width: Math.max(280, el.clientWidth),
        height,
        legend: { live: false },
        cursor: { drag: { x: true, y: false } },
        scales: { x: { time: false } },
        axes: [
          { label: 'Time (s)', stroke: '#333', grid: { stroke: '#e6e6e6' } },
          { label: yLabel, stroke: '#333', grid: { stroke: '#e6e6e6' }, size: 60 },
        ],
        series: [
          { label: 'time (s)' },
          ...series.names.map((n) => ({
            label: n,
            stroke: colorOf(colorIndex(n)),
            width: lineWidth,
            spanGaps: true,
            points: { show: false },
          })),
        ],
        hooks: {
          // uPlot draws in a microtask after setData; time the canvas work itself.
          drawClear: [
            () => {
              drawStart = performance.now();
            },
          ],
          draw: [
            (u) => {
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
      else plot.current.setData(series.toColumns() as uPlot.AlignedData);
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
  }, [series, subscribe, yLabel, height, redrawMs, phaseMs, colorIndex]);

  return (
    <Paper withBorder p="xs" radius="md">
      <Text fw={600} size="sm" component="h3" m={0}>
        {title}
      </Text>
      <div ref={box} role="img" aria-label={`${title} chart, ${yLabel} over time in seconds`} />
    </Paper>
  );
}
