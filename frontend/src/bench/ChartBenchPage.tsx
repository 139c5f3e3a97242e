// #/bench/charts: the live charts holding a 1-hour, 16-flow run while new samples keep arriving,
// with frame times recorded for bench/ui-bench.mjs (window.__lfnBenchResult). Not in the menu.
import { Stack, Text, Title } from '@mantine/core';
import { useEffect, useMemo, useRef, useState } from 'react';
import { indexStyle } from '../lib/colors';
import { LiveCharts } from '../live/LiveCharts';
import { LiveModel } from '../live/liveModel';
import { SyntheticRun } from './syntheticRun';

export interface ChartBenchResult {
  frames: number;
  maxFrameMs: number;
  p99FrameMs: number;
  maxDrawMs: number;
  p99DrawMs: number;
  pointsPerSeries: number;
  fillMs: number;
  seriesCount: number;
  /** Main-thread tasks over 50 ms while measuring (PerformanceObserver 'longtask'). */
  longTasks: number;
  maxLongTaskMs: number;
}

declare global {
  interface Window {
    __lfnBenchResult?: ChartBenchResult;
  }
}

const p99 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(0.99 * s.length))] ?? 0;
};

const styleOf = (name: string) => indexStyle(Number(name.replace(/\D/g, '')) || 0);

export function ChartBenchPage({
  seconds = 3600,
  measureMs = 8000,
  warmupMs = 1000,
}: {
  seconds?: number;
  measureMs?: number;
  warmupMs?: number;
}) {
  const fillMs = useRef(0);
  const { model, run } = useMemo(() => {
    const model = new LiveModel();
    const run = new SyntheticRun(model, 16, 10);
    const t0 = performance.now();
    run.advance(seconds);
    fillMs.current = performance.now() - t0;
    return { model, run };
  }, [seconds]);
  const [status, setStatus] = useState('measuring');

  useEffect(() => {
    // New samples at the socket's pace (10 Hz per series) while the frames are timed.
    // #/bench?static holds the data still: the baseline that shows what the redraws themselves cost.
    const still = new URLSearchParams(window.location.hash.split('?')[1] ?? '').has('static');
    const feed = window.setInterval(() => {
      if (!still) run.advance(0.1);
    }, 100);
    const frames: number[] = [];
    let last = performance.now();
    let raf = 0;
    const started = last;
    window.__lfnDrawMs = [];
    const longTasks: number[] = [];
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.startTime - started > warmupMs) longTasks.push(e.duration);
    });
    try {
      observer.observe({ type: 'longtask', buffered: false });
    } catch {
      /* longtask timing not supported: the frame times still tell */
    }
    // The first second builds the charts (a one-off); what is timed is the steady state of a long run.
    const loop = (now: number) => {
      if (now - started > warmupMs) frames.push(now - last);
      else window.__lfnDrawMs = [];
      last = now;
      if (now - started < measureMs) raf = requestAnimationFrame(loop);
      else {
        window.clearInterval(feed);
        const draws = window.__lfnDrawMs ?? [];
        const throughput = model.charts.throughput;
        window.__lfnBenchResult = {
          frames: frames.length,
          maxFrameMs: Math.max(...frames),
          p99FrameMs: p99(frames),
          maxDrawMs: Math.max(0, ...draws),
          p99DrawMs: p99(draws),
          pointsPerSeries: throughput.length,
          fillMs: fillMs.current,
          seriesCount: Object.values(model.charts).reduce((n, c) => n + c.names.length, 0),
          longTasks: longTasks.length,
          maxLongTaskMs: Math.max(0, ...longTasks),
        };
        observer.disconnect();
        setStatus('done');
      }
    };
    raf = requestAnimationFrame(loop);
    return () => {
      observer.disconnect();
      cancelAnimationFrame(raf);
      window.clearInterval(feed);
    };
  }, [model, run, measureMs, warmupMs]);

  return (
    <Stack>
      <Title order={2}>Chart benchmark: 1-hour, 16-flow run</Title>
      <Text size="sm" data-testid="bench-status">
        {status}
      </Text>
      <LiveCharts model={model} styleOf={styleOf} />
    </Stack>
  );
}
