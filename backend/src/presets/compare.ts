// Published beside measured: one cell per published number, then the preset's claims decided on
// our rows, each holds / fails / inconclusive by a stated test (claims.ts, orderings.ts) with the
// runs behind it (n), and a generated sentence.
import { notReproducedWhy } from './claimItems.js';
import { close, share, signs, similar, threshold } from './claims.js';
import type { EstimateContext, LeftOut } from './estimate.js';
import { fmt } from './fmt.js';
import type { Judged } from './judge.js';
import type { Preset } from './load.js';
import { cellMeasure, describeMeasure, type PresetRow } from './measure.js';
import { ordering, pairsClaim } from './orderings.js';
import { type PresetScaling, presetScaling } from './scaling.js';
import { type Claim, formatRef, type PresetMeta } from './schema.js';
import { nText, verdictOf } from './verdict.js';

export interface CellComparison {
  id: string;
  label: string;
  ref: string;
  unit: string;
  /** Our result field the number corresponds to; null for context numbers. */
  field: string | null;
  published: { value: number; sd: number | null; scale: number; scaled: number; scaledSd: number | null };
  measured: { value: number | null; sd: number | null; rows: number; n: number } | null;
  /** measured / scaled published. */
  ratio: number | null;
  note: string | null;
}

/** One claim of the paper, decided on our runs by the test named in `test`. */
export interface Finding extends Judged {
  id: string;
  kind: Claim['kind'];
  /** The paper's claim, as the meta file words it. */
  text: string;
  ref: string;
}

export interface PresetComparison {
  preset: string;
  paper: string;
  experiment: string;
  finding: string;
  scaling: string;
  rows: { total: number; used: number; excluded: number };
  cells: CellComparison[];
  findings: Finding[];
  /** Dimensionless groups paper against ours (scaling.ts), with the caveats of those not kept; null if not computable. */
  groups: ScalingReport | null;
  summary: string;
}

export interface ScalingReport extends PresetScaling {
  caveats: PresetMeta['scaling']['caveats'];
}

/** The groups paper against ours at the length the runs had (null: full length), with the meta's caveats. */
export function scalingReport(preset: Preset, seconds: number | null): ScalingReport | null {
  try {
    return { ...presetScaling(preset, seconds), caveats: preset.meta.scaling.caveats };
  } catch {
    return null;
  }
}

export { fmt } from './fmt.js';

function checkClaim(c: Claim, ctx: EstimateContext): Judged {
  switch (c.kind) {
    case 'ordering':
      return ordering(c, ctx);
    case 'pairs':
      return pairsClaim(c, ctx);
    case 'threshold':
      return threshold(c, ctx);
    case 'share':
      return share(c, ctx);
    case 'close':
      return close(c, ctx);
    case 'similar':
      return similar(c, ctx);
    case 'signs':
      return signs(c, ctx);
  }
}

/**
 * A claim judged, and the variants its averages left out because the lab could not carry them
 * (estimate.ts, withoutUncarried): named in its sentence and listed in its test record.
 */
function judgedWithLeftOut(c: Claim, ctx: EstimateContext, onlyPart?: string): Judged {
  const leftOut = new Map<string, LeftOut>();
  const j = checkClaim(c, { ...ctx, leftOut });
  if (leftOut.size === 0) return j;
  // A preset of one part names no part.
  const list = [...leftOut.values()]
    .map((v) => (onlyPart ? { ...v, label: v.label.replace(`${onlyPart} · `, '') } : v))
    .sort((a, b) => (a.label < b.label ? -1 : 1));
  const named = list.map((v) => `${v.label} (${v.usable} of ${v.tried} runs usable)`).join('; ');
  return {
    ...j,
    sentence: `${j.sentence} Left out of the averages (every repetition ran, too few usable: the lab could not carry them): ${named}.`,
    test: { ...j.test, leftOut: list },
  };
}

/** How results name a preset's paper, and group by it: `Short (seed NNN)`. */
export const paperLabel = (preset: Preset) => `${preset.meta.paper.short} (seed ${preset.meta.paper.id})`;

/** The preset's published numbers beside ours, and its claims checked on `rows`. */
/** `seconds`: the length the runs were shortened to (CI, reproduction), null for full length. */
export function comparePreset(
  preset: Preset,
  rows: PresetRow[],
  seconds: number | null = null,
): PresetComparison {
  const only = preset.parts.length === 1 ? preset.parts[0]?.name : undefined;
  const tagged = rows.map((r) => (r.part === undefined && only ? { ...r, part: only } : r));
  const usable = (r: PresetRow) => r.status === 'completed' && r.verdict !== 'invalid';
  const used = tagged.filter(usable);
  const ctx: EstimateContext = { rows: used, meta: preset.meta, left: tagged.filter((r) => !usable(r)) };
  const cells: CellComparison[] = preset.meta.published.map((p) => {
    const scaled = p.value * p.scale;
    const scaledSd = p.sd === null ? null : p.sd * p.scale;
    let measured: CellComparison['measured'] = null;
    if (p.measure) {
      const c = cellMeasure(p.where, p.measure, used);
      const sd = p.sdFrom && p.sdFrom !== 'rows' ? cellMeasure(p.where, p.sdFrom, used).mean : c.sd;
      measured = { value: c.mean, sd, rows: c.rows, n: c.n };
    }
    return {
      id: p.id,
      label: p.label,
      ref: formatRef(p.ref),
      unit: p.unit,
      field: p.measure ? describeMeasure(p.measure) : null,
      published: { value: p.value, sd: p.sd, scale: p.scale, scaled, scaledSd },
      measured,
      ratio:
        measured?.value !== null && measured?.value !== undefined && scaled !== 0
          ? measured.value / scaled
          : null,
      note: p.note,
    };
  });
  // A reproduction says why a finding of a part it does not run has nothing measured.
  const reproduction = seconds !== null && seconds === preset.meta.reproduce?.seconds;
  const findings: Finding[] = preset.meta.claims.map((c) => {
    const j = judgedWithLeftOut(c, ctx, only);
    const why = reproduction && j.test.measured === 0 ? notReproducedWhy(preset, c) : null;
    return {
      id: c.id,
      kind: c.kind,
      text: c.text,
      ref: formatRef(c.ref),
      ...j,
      ...(why ? { sentence: `${j.sentence} Not in the reproduction: ${why}` } : {}),
    };
  });
  const hold = findings.filter((f) => f.verdict === 'holds').length;
  const fail = findings.filter((f) => f.verdict === 'fails').length;
  const inconclusive = findings.length - hold - fail;
  const runs = findings.filter((f) => f.test.measured > 0).map((f) => f.test.n);
  const measuredCells = cells.filter((c) => c.measured?.value !== null && c.measured !== null).length;
  return {
    preset: preset.name,
    paper: paperLabel(preset),
    experiment: preset.meta.experiment,
    finding: preset.meta.finding,
    scaling: preset.meta.scaling.rule,
    rows: { total: rows.length, used: used.length, excluded: rows.length - used.length },
    cells,
    findings,
    groups: scalingReport(preset, seconds),
    summary:
      `${preset.name}: ${measuredCells} of ${cells.length} published numbers have a measurement beside them; ` +
      `of ${findings.length} findings, ${hold} hold, ${fail} do not, ${inconclusive} inconclusive` +
      `${runs.length ? ` (fewest runs behind a finding: ${Math.min(...runs)})` : ''}` +
      `${rows.length - used.length ? ` (${rows.length - used.length} runs left out: not completed or fidelity invalid)` : ''}.`,
  };
}

/** Plain-text rendering: the side-by-side table, then the findings. */
export function formatComparison(c: PresetComparison): string {
  const lines = [`${c.preset} — ${c.paper}`, c.experiment, `Scaling: ${c.scaling}`, ''];
  lines.push('published (scaled) | ours | ratio | number | reference');
  for (const x of c.cells) {
    const pub = `${fmt(x.published.scaled)}${x.published.scaledSd !== null ? `±${fmt(x.published.scaledSd)}` : ''} ${x.unit}`;
    const ours = x.measured
      ? `${fmt(x.measured.value)}${x.measured.sd !== null ? `±${fmt(x.measured.sd)}` : ''} (n=${x.measured.n})`
      : 'not measured by this preset';
    lines.push(`${pub} | ${ours} | ${fmt(x.ratio)} | ${x.label} | ${x.ref}`);
  }
  lines.push('');
  for (const f of c.findings) {
    const v = verdictOf(f);
    const t = f.test as Finding['test'] | undefined;
    lines.push(`[${v}] ${f.sentence} (${f.ref})`);
    if (t)
      lines.push(
        `    test: ${t.name}; ${nText(t)} runs per cell${t.deterministic ? ' (closed-form, one run decides)' : ''}`,
      );
  }
  // comparison.json files written before groups carry none.
  const groups = (c.groups?.groups ?? []).filter((g) => g.id !== 'bdp');
  const lost = groups.filter((g) => g.preserved === false);
  if (c.groups)
    lines.push(
      '',
      `Dimensionless groups: ${groups.filter((g) => g.preserved).length} of ${groups.length} kept` +
        (lost.length
          ? `; not kept: ${lost.map((g) => g.id).join(', ')} (lfnlab preset show ${c.preset})`
          : ''),
    );
  lines.push('', c.summary);
  return `${lines.join('\n')}\n`;
}
