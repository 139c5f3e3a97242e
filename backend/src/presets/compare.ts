// Published beside measured: one cell per published number, then the preset's claims checked on our
// rows, each with holds true/false (null when not measured yet) and a generated sentence.
import { type Preset, resolveItems } from './load.js';
import { type CellValue, cellMeasure, describeMeasure, type PresetRow } from './measure.js';
import { type Claim, formatRef, type Item, type PresetMeta, type Published } from './schema.js';

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

export interface Finding {
  id: string;
  kind: Claim['kind'];
  /** The paper's claim, as the meta file words it. */
  text: string;
  ref: string;
  /** null: not enough of our runs to say. */
  holds: boolean | null;
  sentence: string;
  /** Pairwise agreement and Kendall τ, for orderings and pairs. */
  agreement?: number;
  tau?: number | null;
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
  summary: string;
}

/** Three significant digits, no exponent for ordinary magnitudes. */
export function fmt(x: number | null | undefined): string {
  if (x === null || x === undefined) return '—';
  if (x === Number.POSITIVE_INFINITY) return '∞';
  if (!Number.isFinite(x)) return '—';
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1e-3 && a < 1e6) return String(Number(x.toPrecision(3)));
  return x.toExponential(2);
}
const pct = (x: number) => `${Math.round(x * 100)} %`;

interface Ctx {
  rows: PresetRow[];
  meta: PresetMeta;
}

/** One item of a claim, evaluated: its paper value (scaled) when published, and ours. */
interface Evaluated {
  name: string;
  label: string;
  paper: number | null;
  /** Whether `paper` is the published value times a scale other than 1. */
  scaled: boolean;
  unit: string | null;
  ours: CellValue;
}

function evaluate(it: Published | Item, ctx: Ctx): Evaluated {
  if (typeof it === 'string') throw new Error('unresolved item');
  if ('id' in it) {
    const ours: CellValue = it.measure
      ? cellMeasure(it.where, it.measure, ctx.rows)
      : { mean: null, sd: null, rows: 0, n: 0 };
    return {
      name: it.name,
      label: it.label,
      paper: it.value * it.scale,
      scaled: it.scale !== 1,
      unit: it.unit,
      ours,
    };
  }
  return {
    name: it.label,
    label: it.label,
    paper: null,
    scaled: false,
    unit: null,
    ours: cellMeasure(it.where, it.measure, ctx.rows),
  };
}

type Tie = { rel?: number | undefined; abs?: number | undefined } | undefined;
/** −1, 0 or +1: a against b, with differences inside the tie tolerance counted as 0. */
function cmp(a: number, b: number, tie: Tie): number {
  const tol = Math.max(tie?.abs ?? 0, (tie?.rel ?? 0) * Math.max(Math.abs(a), Math.abs(b)));
  if (Math.abs(a - b) <= tol) return 0;
  return a > b ? 1 : -1;
}

/** Kendall's τ-b of two rankings given as pairwise signs. */
function kendallTauB(pairs: { p: number; o: number }[]): number | null {
  let s = 0;
  let n1 = 0;
  let n2 = 0;
  for (const { p, o } of pairs) {
    s += p * o;
    if (p !== 0) n1++;
    if (o !== 0) n2++;
  }
  return n1 && n2 ? s / Math.sqrt(n1 * n2) : null;
}

/** "A > B ≈ C" from values, highest first. */
function orderText(xs: { name: string; v: number }[], tie: Tie): string {
  const sorted = [...xs].sort((a, b) => b.v - a.v);
  let out = '';
  sorted.forEach((x, i) => {
    const prev = sorted[i - 1];
    if (prev) out += cmp(prev.v, x.v, tie) === 0 ? ' ≈ ' : ' > ';
    out += x.name;
  });
  return out;
}

function ordering(
  c: Extract<Claim, { kind: 'ordering' }>,
  ctx: Ctx,
): Omit<Finding, 'id' | 'kind' | 'text' | 'ref'> {
  const items = resolveItems(c.items, ctx.meta.published).map((it) => evaluate(it, ctx));
  const tierOf = (name: string) => c.paperOrder?.findIndex((t) => t.includes(name)) ?? -1;
  const paperV = (e: Evaluated) => (c.paperOrder ? -tierOf(e.name) : (e.paper ?? Number.NaN));
  const paperTie = c.paperOrder ? undefined : c.tie;
  const paperText = c.paperOrder
    ? c.paperOrder.map((t) => t.join(' ≈ ')).join(' > ')
    : orderText(
        items.map((e) => ({ name: e.name, v: paperV(e) })),
        c.tie,
      );
  const measured = items.filter((e) => e.ours.mean !== null);
  const missing = items.length - measured.length;
  if (measured.length < 2) {
    return {
      holds: null,
      sentence: `${c.subject}: the paper has ${paperText}; not enough of our runs to compare (${measured.length} of ${items.length} items measured).`,
    };
  }
  const pairs: { p: number; o: number }[] = [];
  for (let i = 0; i < measured.length; i++)
    for (let j = i + 1; j < measured.length; j++) {
      const a = measured[i] as Evaluated;
      const b = measured[j] as Evaluated;
      pairs.push({
        p: cmp(paperV(a), paperV(b), paperTie),
        o: cmp(a.ours.mean as number, b.ours.mean as number, c.tie),
      });
    }
  const ordered = pairs.filter((x) => x.p !== 0);
  const credit = ordered.reduce((s, x) => s + (x.o === x.p ? 1 : x.o === 0 ? 0.5 : 0), 0);
  const tau = kendallTauB(pairs);
  const ours = orderText(
    measured.map((e) => ({ name: e.name, v: e.ours.mean as number })),
    c.tie,
  );
  if (ordered.length === 0)
    return { holds: null, sentence: `${c.subject}: the paper ranks all items equal; nothing to compare.` };
  const agreement = credit / ordered.length;
  const holds = agreement >= c.minAgreement;
  const agreeText = Number.isInteger(credit) ? String(credit) : credit.toFixed(1);
  return {
    holds,
    agreement,
    tau,
    sentence:
      `${c.subject}: paper ${paperText}; here ${ours} — ${agreeText} of ${ordered.length} ordered pairs agree ` +
      `(${pct(agreement)}, Kendall τ ${fmt(tau)})${missing ? `, ${missing} item${missing > 1 ? 's' : ''} not measured` : ''}: ` +
      `${holds ? 'the ordering holds' : 'the ordering does not hold'} (needs ${pct(c.minAgreement)}).`,
  };
}

function pairsClaim(
  c: Extract<Claim, { kind: 'pairs' }>,
  ctx: Ctx,
): Omit<Finding, 'id' | 'kind' | 'text' | 'ref'> {
  const evals = c.pairs.map(([a, b]) => {
    const [ea] = resolveItems([a], ctx.meta.published).map((x) => evaluate(x, ctx));
    const [eb] = resolveItems([b], ctx.meta.published).map((x) => evaluate(x, ctx));
    return { a: ea as Evaluated, b: eb as Evaluated };
  });
  const measured = evals.filter((e) => e.a.ours.mean !== null && e.b.ours.mean !== null);
  if (measured.length === 0)
    return { holds: null, sentence: `${c.subject}: none of the ${evals.length} pairs measured yet.` };
  let credit = 0;
  const against: string[] = [];
  for (const e of measured) {
    const o = cmp(e.a.ours.mean as number, e.b.ours.mean as number, c.tie);
    credit += o > 0 ? 1 : o === 0 ? 0.5 : 0;
    if (o <= 0)
      against.push(
        `${e.a.label} ${fmt(e.a.ours.mean)} ${o === 0 ? '≈' : '<'} ${e.b.label} ${fmt(e.b.ours.mean)}`,
      );
  }
  const agreement = credit / measured.length;
  const holds = agreement >= c.minAgreement;
  const agreeText = Number.isInteger(credit) ? String(credit) : credit.toFixed(1);
  return {
    holds,
    agreement,
    sentence:
      `${c.subject}: the paper has the first above the second in ${evals.length} pair${evals.length > 1 ? 's' : ''}; ` +
      `here ${agreeText} of ${measured.length} agree (${pct(agreement)})` +
      `${against.length ? `; against: ${against.slice(0, 4).join('; ')}${against.length > 4 ? '; …' : ''}` : ''}: ` +
      `${holds ? 'holds' : 'does not hold'} (needs ${pct(c.minAgreement)}).`,
  };
}

const opText = { '>': 'above', '>=': 'at least', '<': 'below', '<=': 'at most' } as const;
function passes(v: number, op: keyof typeof opText, bound: number): boolean {
  return op === '>' ? v > bound : op === '>=' ? v >= bound : op === '<' ? v < bound : v <= bound;
}

function single(it: Item, ctx: Ctx): Evaluated {
  const [e] = resolveItems([it], ctx.meta.published).map((x) => evaluate(x, ctx));
  return e as Evaluated;
}

function checkClaim(c: Claim, ctx: Ctx): Omit<Finding, 'id' | 'kind' | 'text' | 'ref'> {
  switch (c.kind) {
    case 'ordering':
      return ordering(c, ctx);
    case 'pairs':
      return pairsClaim(c, ctx);
    case 'threshold': {
      const e = single(c.item, ctx);
      let v = e.ours.mean;
      if (v === null && c.missing === 'infinite' && e.ours.rows > 0) v = Number.POSITIVE_INFINITY;
      if (v === null)
        return {
          holds: null,
          sentence: `${e.label}: not measured yet (the paper: ${opText[c.op]} ${fmt(c.value)}).`,
        };
      const holds = passes(v, c.op, c.value);
      return {
        holds,
        sentence: `${e.label}: the paper puts it ${opText[c.op]} ${fmt(c.value)}; here ${v === Number.POSITIVE_INFINITY ? 'never reached in the run' : fmt(v)}${e.ours.n > 1 ? ` (mean of ${e.ours.n} runs)` : ''}: ${holds ? 'holds' : 'does not hold'}.`,
      };
    }
    case 'share': {
      const items = resolveItems(c.items, ctx.meta.published).map((x) => evaluate(x, ctx));
      const measured = items.filter((e) => e.ours.mean !== null);
      if (measured.length === 0)
        return {
          holds: null,
          sentence: `None of the ${items.length} cells measured yet (the paper: ${pct(c.share)} ${opText[c.op]} ${fmt(c.value)}).`,
        };
      const k = measured.filter((e) => passes(e.ours.mean as number, c.op, c.value)).length;
      const share = k / measured.length;
      const holds = share >= c.share - c.slack;
      return {
        holds,
        agreement: share,
        sentence:
          `${k} of ${measured.length} measured cells (${pct(share)}) are ${opText[c.op]} ${fmt(c.value)} here; ` +
          `the paper had ${pct(c.share)}: ${holds ? 'holds' : 'does not hold'} (needs ${pct(Math.max(0, c.share - c.slack))}).`,
      };
    }
    case 'close': {
      const e = single(c.item, ctx);
      const paper = c.value ?? e.paper;
      const v = e.ours.mean;
      if (paper === null) return { holds: null, sentence: `${e.label}: no paper value to compare with.` };
      if (v === null)
        return {
          holds: null,
          sentence: `${e.label}: the paper has ${fmt(paper)}${e.unit ? ` ${e.unit}` : ''}; not measured yet.`,
        };
      const t = c.tolerance;
      const within =
        (t.abs !== undefined && Math.abs(v - paper) <= t.abs) ||
        (t.rel !== undefined && Math.abs(v - paper) <= t.rel * Math.abs(paper)) ||
        (t.factor !== undefined && paper > 0 && v > 0 && Math.max(v / paper, paper / v) <= t.factor);
      const tolText = [
        t.abs !== undefined ? `±${fmt(t.abs)}` : null,
        t.rel !== undefined ? `±${pct(t.rel)}` : null,
        t.factor !== undefined ? `a factor ${fmt(t.factor)}` : null,
      ]
        .filter(Boolean)
        .join(' or ');
      return {
        holds: within,
        sentence: `${e.label}: paper ${fmt(paper)}${e.unit ? ` ${e.unit}` : ''}${e.scaled && c.value === undefined ? ' (at our scale)' : ''}, here ${fmt(v)}: ${within ? 'within' : 'outside'} ${tolText}, so it ${within ? 'holds' : 'does not hold'}.`,
      };
    }
    case 'similar': {
      const [a, b] = c.items.map((it) => single(it, ctx)) as [Evaluated, Evaluated];
      if (a.ours.mean === null || b.ours.mean === null)
        return { holds: null, sentence: `${a.label} vs ${b.label}: not measured yet.` };
      const d = Math.abs(a.ours.mean - b.ours.mean);
      const rel = d / Math.max(Math.abs(a.ours.mean), Math.abs(b.ours.mean), 1e-12);
      const holds =
        (c.tolerance.abs !== undefined && d <= c.tolerance.abs) ||
        (c.tolerance.rel !== undefined && rel <= c.tolerance.rel);
      return {
        holds,
        sentence: `${a.label} ${fmt(a.ours.mean)} vs ${b.label} ${fmt(b.ours.mean)}: they differ by ${fmt(d)} (${pct(rel)}); the paper has them about the same, so it ${holds ? 'holds' : 'does not hold'}.`,
      };
    }
    case 'signs': {
      const items = resolveItems(c.items, ctx.meta.published).map((x) => evaluate(x, ctx));
      const sign = (v: number) => (Math.abs(v) <= c.deadband ? 0 : v > 0 ? 1 : -1);
      const sym = (s: number) => (s > 0 ? '+' : s < 0 ? '−' : '0');
      const measured = items.filter((e) => e.ours.mean !== null && e.paper !== null);
      if (measured.length === 0) return { holds: null, sentence: `${c.subject}: not measured yet.` };
      const same = measured.filter((e) => sign(e.paper as number) === sign(e.ours.mean as number));
      const agreement = same.length / measured.length;
      const holds = agreement >= c.minAgreement;
      return {
        holds,
        agreement,
        sentence:
          `${c.subject} (0 within ±${fmt(c.deadband)}): paper ${measured.map((e) => `${e.name} ${sym(sign(e.paper as number))}`).join(', ')}; ` +
          `here ${measured.map((e) => `${e.name} ${sym(sign(e.ours.mean as number))}`).join(', ')} — ${same.length} of ${measured.length} agree: ` +
          `${holds ? 'holds' : 'does not hold'} (needs ${pct(c.minAgreement)}).`,
      };
    }
  }
}

/** The preset's published numbers beside ours, and its claims checked on `rows`. */
export function comparePreset(preset: Preset, rows: PresetRow[]): PresetComparison {
  const only = preset.parts.length === 1 ? preset.parts[0]?.name : undefined;
  const tagged = rows.map((r) => (r.part === undefined && only ? { ...r, part: only } : r));
  const used = tagged.filter((r) => r.status === 'completed' && r.verdict !== 'invalid');
  const ctx: Ctx = { rows: used, meta: preset.meta };
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
  const findings: Finding[] = preset.meta.claims.map((c) => ({
    id: c.id,
    kind: c.kind,
    text: c.text,
    ref: formatRef(c.ref),
    ...checkClaim(c, ctx),
  }));
  const hold = findings.filter((f) => f.holds === true).length;
  const fail = findings.filter((f) => f.holds === false).length;
  const open = findings.length - hold - fail;
  const measuredCells = cells.filter((c) => c.measured?.value !== null && c.measured !== null).length;
  return {
    preset: preset.name,
    paper: `${preset.meta.paper.short} (seed ${preset.meta.paper.id})`,
    experiment: preset.meta.experiment,
    finding: preset.meta.finding,
    scaling: preset.meta.scaling.rule,
    rows: { total: rows.length, used: used.length, excluded: rows.length - used.length },
    cells,
    findings,
    summary:
      `${preset.name}: ${measuredCells} of ${cells.length} published numbers have a measurement beside them; ` +
      `of ${findings.length} findings, ${hold} hold, ${fail} do not${open ? `, ${open} not measured yet` : ''}` +
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
  for (const f of c.findings)
    lines.push(`[${f.holds === null ? 'open' : f.holds ? 'holds' : 'fails'}] ${f.sentence} (${f.ref})`);
  lines.push('', c.summary);
  return `${lines.join('\n')}\n`;
}
