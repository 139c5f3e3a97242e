// Charts as inline SVG strings, drawn by hand: a time-series line chart and a grouped bar chart.
// Each carries <title> and <desc> for screen readers, labelled axes with units, and a legend inside
// the picture, so a chart copied out of the page still says what it shows.
import { downsampleMinMax, medianStep, type Point, splitAtGaps } from './downsample.js';
import { esc } from './format.js';
import { flowStyles, indexStyle } from './palette.js';

/** A series' colour and SVG dash by position (series without a stack); see palette.ts. */
export function seriesStyle(i: number): { color: string; dash: string } {
  const st = indexStyle(i);
  return { color: st.color, dash: st.dash.join(' ') };
}

/** A flow's colour (its stack's) and dash (its repeat of that stack) as SVG wants them. */
export function flowSeriesStyles(flows: readonly { name: string; stack: string }[]) {
  const m = new Map<string, { color: string; dash: string }>();
  for (const [name, st] of flowStyles(flows)) m.set(name, { color: st.color, dash: st.dash.join(' ') });
  return m;
}

export interface LineSeries {
  name: string;
  points: Point[];
  color?: string;
  dash?: string;
  width?: number;
}

export interface LineChartOptions {
  /** Unique within the page: ids of <title>/<desc> derive from it. */
  id: string;
  title: string;
  desc: string;
  xLabel: string;
  yLabel: string;
  series: LineSeries[];
  width?: number;
  height?: number;
  /** Cap on points per drawn line; min/max preserving (default 2000). */
  maxPointsPerLine?: number;
  /**
   * Cap on points in the whole chart (default 40 000, about 0.5 MB of SVG): with many flows each
   * line gets its share, at least 200 points.
   */
  maxPointsPerChart?: number;
  xDomain?: [number, number];
  /** Lower end of the y axis; 0 by default when every value is ≥ 0. */
  yMin?: number;
}

/** Tick positions at 1, 2 or 5 × 10^k covering [lo, hi] with about `count` steps. */
export function niceTicks(lo: number, hi: number, count = 5): { ticks: number[]; step: number } {
  if (!(hi > lo)) {
    const d = Math.abs(lo) > 0 ? Math.abs(lo) * 0.1 : 1;
    return niceTicks(lo - d, hi + d, count);
  }
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const r = raw / mag;
  const step = (r <= 1 ? 1 : r <= 2 ? 2 : r <= 2.5 ? 2.5 : r <= 5 ? 5 : 10) * mag;
  const start = Math.floor(lo / step + 1e-9) * step;
  const ticks: number[] = [];
  for (let v = start; v <= hi + step * 1e-9; v += step) ticks.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  if ((ticks[ticks.length - 1] ?? lo) < hi - step * 1e-9) ticks.push(start + ticks.length * step);
  return { ticks, step };
}

function tickLabel(v: number, step: number): string {
  if (Math.abs(v) >= 1e6 || (Math.abs(v) < 1e-3 && v !== 0)) return v.toExponential(1);
  const decimals = Math.max(0, Math.min(6, -Math.floor(Math.log10(step) + 1e-9)));
  return v.toFixed(decimals);
}

const r1 = (x: number) => Math.round(x * 10) / 10;

interface Legend {
  svg: string;
  height: number;
}

function legend(
  items: { name: string; color: string; dash: string; bar?: boolean }[],
  x0: number,
  y0: number,
  width: number,
): Legend {
  const rowH = 18;
  let x = x0;
  let y = y0;
  const parts: string[] = [];
  for (const it of items) {
    const w = 30 + Math.min(40, it.name.length) * 7 + 14;
    if (x + w > x0 + width && x > x0) {
      x = x0;
      y += rowH;
    }
    const swatch = it.bar
      ? `<rect x="${x}" y="${y - 9}" width="20" height="10" fill="${it.color}"/>`
      : `<line x1="${x}" y1="${y - 4}" x2="${x + 22}" y2="${y - 4}" stroke="${it.color}" stroke-width="2.5"${it.dash ? ` stroke-dasharray="${it.dash}"` : ''}/>`;
    const label = it.name.length > 40 ? `${it.name.slice(0, 39)}…` : it.name;
    parts.push(`<g>${swatch}<text x="${x + 28}" y="${y}">${esc(label)}</text></g>`);
    x += w;
  }
  return {
    svg: `<g class="legend" font-size="12">${parts.join('')}</g>`,
    height: items.length ? y - y0 + rowH : 0,
  };
}

function legendHeight(names: string[], width: number): number {
  return legend(
    names.map((name) => ({ name, color: '', dash: '' })),
    0,
    0,
    width,
  ).height;
}

function frame(o: {
  id: string;
  title: string;
  desc: string;
  width: number;
  height: number;
  body: string;
}): string {
  const tid = `${o.id}-title`;
  const did = `${o.id}-desc`;
  return `<svg xmlns="http://www.w3.org/2000/svg" id="${esc(o.id)}" class="chart" role="img" aria-labelledby="${tid} ${did}" viewBox="0 0 ${o.width} ${o.height}" width="${o.width}" height="${o.height}" font-family="system-ui, sans-serif" font-size="12" fill="#1a1a1a"><title id="${tid}">${esc(o.title)}</title><desc id="${did}">${esc(o.desc)}</desc><rect width="100%" height="100%" fill="#fff"/>${o.body}</svg>`;
}

interface Axes {
  svg: string;
  x: (v: number) => number;
  y: (v: number) => number;
}

function axes(o: {
  left: number;
  top: number;
  plotW: number;
  plotH: number;
  xLo: number;
  xHi: number;
  yLo: number;
  yHi: number;
  xLabel: string;
  yLabel: string;
  xTicks?: boolean;
}): Axes {
  const xt = niceTicks(o.xLo, o.xHi, 8);
  const yt = niceTicks(o.yLo, o.yHi, 5);
  const xLo = o.xLo;
  const xHi = o.xHi > o.xLo ? o.xHi : o.xLo + 1;
  const yLo = Math.min(o.yLo, yt.ticks[0] ?? o.yLo);
  const yHi = Math.max(o.yHi, yt.ticks[yt.ticks.length - 1] ?? o.yHi);
  const x = (v: number) => o.left + ((v - xLo) / (xHi - xLo)) * o.plotW;
  const y = (v: number) => o.top + o.plotH - ((v - yLo) / (yHi - yLo || 1)) * o.plotH;
  const parts: string[] = [];
  for (const v of yt.ticks) {
    const yy = r1(y(v));
    parts.push(
      `<line x1="${o.left}" x2="${o.left + o.plotW}" y1="${yy}" y2="${yy}" stroke="#d9d9d9"/>`,
      `<text x="${o.left - 6}" y="${yy + 4}" text-anchor="end">${tickLabel(v, yt.step)}</text>`,
    );
  }
  if (o.xTicks !== false) {
    for (const v of xt.ticks) {
      if (v < xLo - 1e-9 || v > xHi + 1e-9) continue;
      const xx = r1(x(v));
      parts.push(
        `<line x1="${xx}" x2="${xx}" y1="${o.top + o.plotH}" y2="${o.top + o.plotH + 5}" stroke="#555"/>`,
        `<text x="${xx}" y="${o.top + o.plotH + 18}" text-anchor="middle">${tickLabel(v, xt.step)}</text>`,
      );
    }
  }
  parts.push(
    `<rect x="${o.left}" y="${o.top}" width="${o.plotW}" height="${o.plotH}" fill="none" stroke="#555"/>`,
    `<text class="axis-label" x="${o.left + o.plotW / 2}" y="${o.top + o.plotH + 36}" text-anchor="middle" font-size="13">${esc(o.xLabel)}</text>`,
    `<text class="axis-label" transform="translate(16 ${o.top + o.plotH / 2}) rotate(-90)" text-anchor="middle" font-size="13">${esc(o.yLabel)}</text>`,
  );
  return { svg: `<g class="axes">${parts.join('')}</g>`, x, y };
}

/** A time-series chart; every series is downsampled to at most maxPointsPerLine points. */
export function lineChart(o: LineChartOptions): string {
  const width = o.width ?? 900;
  const plotH = (o.height ?? 320) - 70;
  const left = 72;
  const right = 16;
  const top = 14;
  const plotW = width - left - right;
  const nLines = o.series.filter((x) => x.points.length > 0).length;
  const maxPts = Math.max(
    2,
    Math.min(
      o.maxPointsPerLine ?? 2000,
      Math.max(200, Math.floor((o.maxPointsPerChart ?? 40_000) / Math.max(1, nLines))),
    ),
  );
  const drawn = o.series
    .map((s, i) => {
      const pts = s.points.filter((p) => Number.isFinite(p.t) && Number.isFinite(p.v));
      const step = medianStep(pts) ?? 1;
      const down = downsampleMinMax(pts, maxPts);
      const span = pts.length ? (pts[pts.length - 1] as Point).t - (pts[0] as Point).t : 0;
      const bucket = pts.length > maxPts ? span / Math.floor(maxPts / 2) : 0;
      const gap = Math.max(step * 5, bucket * 2.5, 1e-9);
      const st = seriesStyle(i);
      return {
        ...s,
        color: s.color ?? st.color,
        dash: s.dash ?? st.dash,
        pts,
        segments: splitAtGaps(down, gap),
      };
    })
    .filter((s) => s.pts.length > 0);
  const leg = legendHeight(
    drawn.map((s) => s.name),
    plotW,
  );
  const height = top + plotH + 48 + leg;
  if (drawn.length === 0) {
    return frame({
      id: o.id,
      title: o.title,
      desc: `${o.desc} No samples were recorded for this chart.`,
      width,
      height: 90,
      body: `<text x="${width / 2}" y="50" text-anchor="middle" font-size="14">No samples recorded (${esc(o.yLabel)} over ${esc(o.xLabel)})</text>`,
    });
  }
  let xLo = o.xDomain?.[0] ?? Number.POSITIVE_INFINITY;
  let xHi = o.xDomain?.[1] ?? Number.NEGATIVE_INFINITY;
  let yLo = Number.POSITIVE_INFINITY;
  let yHi = Number.NEGATIVE_INFINITY;
  for (const s of drawn)
    for (const p of s.pts) {
      if (!o.xDomain) {
        if (p.t < xLo) xLo = p.t;
        if (p.t > xHi) xHi = p.t;
      }
      if (p.v < yLo) yLo = p.v;
      if (p.v > yHi) yHi = p.v;
    }
  if (o.yMin !== undefined) yLo = Math.min(o.yMin, yLo);
  else if (yLo >= 0) yLo = 0;
  const ax = axes({ left, top, plotW, plotH, xLo, xHi, yLo, yHi, xLabel: o.xLabel, yLabel: o.yLabel });
  const lines = drawn
    .map((s) => {
      const polys = s.segments
        .map((seg) => {
          const coords = seg.map((p) => `${r1(ax.x(p.t))},${r1(ax.y(p.v))}`).join(' ');
          return seg.length === 1
            ? `<circle cx="${r1(ax.x((seg[0] as Point).t))}" cy="${r1(ax.y((seg[0] as Point).v))}" r="1.5" fill="${s.color}"/>`
            : `<polyline points="${coords}"/>`;
        })
        .join('');
      return `<g class="series" data-series="${esc(s.name)}" fill="none" stroke="${s.color}" stroke-width="${s.width ?? 1.5}" stroke-linejoin="round"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}><title>${esc(s.name)}</title>${polys}</g>`;
    })
    .join('');
  const lg = legend(
    drawn.map((s) => ({ name: s.name, color: s.color, dash: s.dash })),
    left,
    top + plotH + 58,
    plotW,
  );
  return frame({
    id: o.id,
    title: o.title,
    desc: o.desc,
    width,
    height,
    body: `<defs><clipPath id="${esc(o.id)}-clip"><rect x="${left}" y="${top - 2}" width="${plotW}" height="${plotH + 4}"/></clipPath></defs>${ax.svg}<g clip-path="url(#${esc(o.id)}-clip)">${lines}</g>${lg.svg}`,
  });
}

export interface BarChartOptions {
  id: string;
  title: string;
  desc: string;
  xLabel: string;
  yLabel: string;
  /** One label per group along x. */
  categories: string[];
  series: { name: string; values: (number | null)[]; color?: string }[];
  width?: number;
  height?: number;
}

/** Grouped bars: one group per category, one bar per series. */
export function barChart(o: BarChartOptions): string {
  const width = o.width ?? 900;
  const plotH = (o.height ?? 300) - 70;
  const left = 72;
  const right = 16;
  const top = 14;
  const plotW = width - left - right;
  const values = o.series
    .flatMap((s) => s.values)
    .filter((v): v is number => v !== null && Number.isFinite(v));
  if (values.length === 0 || o.categories.length === 0) {
    return frame({
      id: o.id,
      title: o.title,
      desc: `${o.desc} No values to show.`,
      width,
      height: 90,
      body: `<text x="${width / 2}" y="50" text-anchor="middle" font-size="14">No values (${esc(o.yLabel)})</text>`,
    });
  }
  const yHi = Math.max(...values);
  const yLo = Math.min(0, ...values);
  const leg = legendHeight(
    o.series.map((s) => s.name),
    plotW,
  );
  const height = top + plotH + 48 + leg;
  const ax = axes({
    left,
    top,
    plotW,
    plotH,
    xLo: 0,
    xHi: o.categories.length,
    yLo,
    yHi,
    xLabel: o.xLabel,
    yLabel: o.yLabel,
    xTicks: false,
  });
  const groupW = plotW / o.categories.length;
  const barW = Math.max(1, (groupW * 0.8) / Math.max(1, o.series.length));
  const every = Math.max(1, Math.ceil(o.categories.length / 20));
  const parts: string[] = [];
  o.categories.forEach((c, ci) => {
    if (ci % every === 0) {
      parts.push(
        `<text x="${r1(left + groupW * (ci + 0.5))}" y="${top + plotH + 18}" text-anchor="middle">${esc(c)}</text>`,
      );
    }
  });
  o.series.forEach((s, si) => {
    const color = s.color ?? seriesStyle(si).color;
    const bars = s.values
      .map((v, ci) => {
        if (v === null || !Number.isFinite(v)) return '';
        const x = left + groupW * ci + groupW * 0.1 + barW * si;
        const y0 = ax.y(0);
        const y1 = ax.y(v);
        return `<rect x="${r1(x)}" y="${r1(Math.min(y0, y1))}" width="${r1(Math.max(0.5, barW - 0.5))}" height="${r1(Math.abs(y0 - y1))}"><title>${esc(`${s.name}, ${o.categories[ci]}: ${v.toPrecision(4)}`)}</title></rect>`;
      })
      .join('');
    parts.push(`<g class="series" data-series="${esc(s.name)}" fill="${color}">${bars}</g>`);
  });
  const lg = legend(
    o.series.map((s, si) => ({ name: s.name, color: s.color ?? seriesStyle(si).color, dash: '', bar: true })),
    left,
    top + plotH + 58,
    plotW,
  );
  return frame({
    id: o.id,
    title: o.title,
    desc: o.desc,
    width,
    height,
    body: `${ax.svg}${parts.join('')}${lg.svg}`,
  });
}
