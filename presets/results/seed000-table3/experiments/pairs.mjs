// Table 3's pairs as rows: every stack's asymmetry against its partner in each kept run
// (A = (x − y)/(x + y) on whole-run goodputs, as the preset reads them), a matrix of them per path,
// and each stack's average with a set of partners left out. Shared by pairs-table.mjs (the
// reproduction), the buffer experiments' and ptcp-streams-table.mjs's scripts.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asymmetry, smallSampleCi } from '@lfnlab/metrics';
import { parse } from 'yaml';
import { keptCompletedRuns } from '../../../../backend/dist/campaign/progress.js';

export const STACKS = ['ptcp', 'scalable', 'fast', 'highspeed', 'bic', 'htcp', 'hstcplp'];
export const LABELS = {
  ptcp: 'P-TCP',
  scalable: 'S-TCP',
  fast: 'FAST',
  highspeed: 'HS-TCP',
  bic: 'Bic-TCP',
  htcp: 'H-TCP',
  hstcplp: 'HSTCP-LP',
};
export const DEADBAND = 0.1;

/** A flow's stack key: Reno with more than one stream is P-TCP. */
export const keyOf = (f) => (f.stack === 'reno' && (f.streams ?? 1) > 1 ? 'ptcp' : f.stack);

// The paper's rows and the partners the preset leaves out come from the preset's own table, so the
// scripts judge what the preset judges.
const t3 = parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../../../seed000-table3.meta.yaml'), 'utf8'))
  .tables[0];
const columnKeys = t3.columns.map((c) => keyOf(c.measure.subject));
/** A Table 3 row of the paper (caltech, ufl, manchester, avg) in STACKS order. */
export const paperRow = (row) => {
  const values = t3.rows.find((r) => r.key === row).values;
  return STACKS.map((stack) => values[columnKeys.indexOf(stack)]);
};
export const PAPER_AVG = paperRow('avg');
/** Per path, the partners left out of each stack's average (P-TCP on Caltech, HSTCP-LP on UFL and Manchester). */
export const EXCLUDED = Object.fromEntries(
  t3.rows.filter((r) => r.where?.part).map((r) => [r.where.part, (r.measure?.exclude ?? []).map(keyOf)]),
);
export const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
export const f2 = (x) => (x >= 0 ? ' ' : '') + x.toFixed(2);
export const sign = (x) => (x > DEADBAND ? '+' : x < -DEADBAND ? '−' : '0');

/** Ids of the kept runs pairRows left out because their verdict was invalid. */
export const leftOutInvalid = [];

/**
 * Two rows per kept run (one per stack), tagged with `tags` (path, buffer…); none for a missing dir.
 * A run judged invalid is not a result (the link did not do what its spec says): left out, as the
 * preset's comparison leaves it out, and its id listed in `leftOutInvalid`.
 */
export function pairRows(runsDir, tags) {
  let runs = [];
  try {
    runs = keptCompletedRuns(runsDir);
  } catch {
    return [];
  }
  const rows = [];
  for (const { id, summary, spec } of runs) {
    const [a, b] = spec.flows;
    const goodput = (name) => summary.flows.find((f) => f.name === name)?.goodputMbps.wholeRun;
    const [xa, xb] = [goodput(a.name), goodput(b.name)];
    if (!Number.isFinite(xa) || !Number.isFinite(xb)) continue;
    const verdict = typeof summary.verdict === 'string' ? summary.verdict : summary.verdict?.verdict;
    if (verdict === 'invalid') {
      leftOutInvalid.push(id);
      continue;
    }
    const common = { ...tags, id, seed: summary.seed, verdict };
    rows.push({ ...common, stack: keyOf(a), partner: keyOf(b), mbps: xa, partnerMbps: xb, asymmetry: asymmetry(xa, xb) });
    rows.push({ ...common, stack: keyOf(b), partner: keyOf(a), mbps: xb, partnerMbps: xa, asymmetry: asymmetry(xb, xa) });
  }
  return rows;
}

export function writeCsv(file, rows, tagNames) {
  const header = [...tagNames, 'stack', 'partner', 'id', 'seed', 'verdict', 'mbps', 'partnerMbps', 'asymmetry'];
  const fmt = (v) => (typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(4) : v);
  writeFileSync(file, `${[header.join(','), ...rows.map((r) => header.map((h) => fmt(r[h])).join(','))].join('\n')}\n`);
}

/** Each row stack's mean asymmetry against each column stack, with n. */
export function printMatrix(title, rows) {
  const runs = new Set(rows.map((r) => r.id)).size;
  console.log(`\n${title}: ${runs} runs; each row's asymmetry against the column (mean, n)`);
  console.log(`${''.padEnd(9)}${STACKS.map((s) => LABELS[s].padStart(11)).join('')}`);
  for (const stack of STACKS) {
    const cells = STACKS.map((partner) => {
      const xs = rows.filter((r) => r.stack === stack && r.partner === partner).map((r) => r.asymmetry);
      return (xs.length ? `${f2(mean(xs))} (${xs.length})` : '-').padStart(11);
    });
    console.log(`${LABELS[stack].padEnd(9)}${cells.join('')}`);
  }
}

/**
 * Each stack's average asymmetry over `rows`, leaving out the partners `out(row)` names, with a
 * 95 % interval (bootstrap ∪ jackknife t), its sign (deadband ±0.1) against the paper's, and how many agree.
 */
export function printAverages(title, rows, out, paper) {
  console.log(`\n${title} (sign with deadband ±${DEADBAND}; the paper's value and sign)`);
  let agree = 0;
  let judged = 0;
  STACKS.forEach((stack, i) => {
    const xs = rows.filter((r) => r.stack === stack && !out(r)).map((r) => r.asymmetry);
    if (xs.length === 0 || paper[i] === null) {
      console.log(`  ${LABELS[stack].padEnd(9)} ${xs.length ? f2(mean(xs)) : 'no runs'} (not judged)`);
      return;
    }
    const m = mean(xs);
    const ci = smallSampleCi([xs], (g) => mean(g[0]));
    judged += 1;
    if (sign(m) === sign(paper[i])) agree += 1;
    const interval = ci ? `${f2(ci.low)} to ${f2(ci.high)}` : 'no interval';
    console.log(`  ${LABELS[stack].padEnd(9)} ${f2(m)} (n = ${xs.length}, ${interval}) ${sign(m)}   paper ${f2(paper[i])} ${sign(paper[i])}`);
  });
  console.log(`  signs agree: ${agree} of ${judged}`);
}
