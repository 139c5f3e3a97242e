// A preset's findings as the web app shows them: each claim's verdict with its test and n, and the
// published numbers it is about, ours (mean ± σ) beside the published value scaled to the lab (with
// the scale factor). Built from a comparison (our runs compared now, or a committed
// comparison.json) and the preset's claims, which say which published numbers a claim talks about.

import { claimIds, notReproducedLines } from './claimItems.js';
import type { CellComparison, PresetComparison } from './compare.js';
import { globRe, type Preset } from './load.js';
import type { Explanation } from './publish.js';
import { type Verdict, type VerdictTest, verdictOf } from './verdict.js';

/** One published number beside ours. */
export interface FindingCell {
  id: string;
  label: string;
  unit: string;
  ref: string;
  /** The paper's value and σ, the factor that scales them to the lab, and the scaled values. */
  published: { value: number; sd: number | null; scale: number; scaled: number; scaledSd: number | null };
  /** Our mean and σ over `n` runs; null when this preset does not measure the number. */
  ours: { mean: number | null; sd: number | null; n: number } | null;
  /** ours / scaled published. */
  ratio: number | null;
}

export interface FindingView {
  id: string;
  kind: string;
  /** The paper's claim in our words. */
  text: string;
  ref: string;
  verdict: Verdict;
  /** The comparison's sentence: the numbers the test judged and why it decided so. */
  sentence: string;
  /** Null only in comparison.json files older than the tests. */
  test: VerdictTest | null;
  /** The published numbers the claim talks about (none when it talks about unpublished selections). */
  cells: FindingCell[];
  /**
   * The targeted experiments run on the published results when this finding failed there, in the
   * order they were run (each the likely cause, the experiment and its answer; explanations.yaml
   * beside them); empty when there is none.
   */
  tested: Omit<Explanation, 'finding'>[];
}

/** Where the findings come from. */
export type FindingsSource =
  | {
      kind: 'runs';
      /** Completed runs the comparison used, and how many separate starts they came from. */
      runs: number;
      batches: number;
      newestAt: string;
      /** Seconds each run was shortened to, or null for full length. */
      shortenedToS: number | null;
    }
  | {
      kind: 'committed';
      file: string;
      runs: number;
      /**
       * What the published runs were, in words (runs.json beside the comparison): length, verdicts,
       * why runs were not valid, lab clock, wall time; null without a runs.json.
       */
      record: string | null;
    }
  | {
      /** A reproduction under way, judged on the runs it kept so far (presets/results/NAME/progress). */
      kind: 'provisional';
      /** Runs kept so far, of the reproduction's `of`, and the lab wall time the rest takes. */
      runs: number;
      of: number;
      wallLeftS: number;
    };

export interface PresetFindingsView {
  preset: string;
  /** What the lab cannot express of the paper's experiment. */
  notExpressed: string[];
  /** What the reproduction leaves out, and why: whole parts, or values of a varied parameter. */
  notReproduced: string[];
  /** Null when there is nothing to compare yet (`message` says so). */
  source: FindingsSource | null;
  message: string | null;
  findings: FindingView[];
  /** The comparison's one-line summary. */
  summary: string | null;
}

export function cellView(c: CellComparison): FindingCell {
  return {
    id: c.id,
    label: c.label,
    unit: c.unit,
    ref: c.ref,
    published: c.published,
    ours: c.measured ? { mean: c.measured.value, sd: c.measured.sd, n: c.measured.n } : null,
    ratio: c.ratio,
  };
}

export function findingsView(
  preset: Pick<Preset, 'name' | 'meta' | 'parts'>,
  comparison: PresetComparison | null,
  source: FindingsSource | null,
  explanations: Explanation[] = [],
): PresetFindingsView {
  const base = {
    preset: preset.name,
    notExpressed: preset.meta.notExpressed,
    notReproduced: notReproducedLines(preset),
  };
  if (!comparison || !source)
    return {
      ...base,
      source: null,
      message: 'No results yet: none of your runs of this preset has completed, and none are published.',
      findings: [],
      summary: null,
    };
  const claims = new Map(preset.meta.claims.map((c) => [c.id, c]));
  const testedOf = (id: string) =>
    explanations.filter((e) => e.finding === id).map(({ finding: _, ...rest }) => rest);
  const findings = comparison.findings.map((f): FindingView => {
    const claim = claims.get(f.id);
    const patterns = (claim ? claimIds(claim) : []).map(globRe);
    return {
      id: f.id,
      kind: f.kind,
      text: f.text,
      ref: f.ref,
      verdict: verdictOf(f),
      sentence: f.sentence,
      test: (f.test as VerdictTest | undefined) ?? null,
      cells: comparison.cells.filter((c) => patterns.some((re) => re.test(c.id))).map(cellView),
      tested: testedOf(f.id),
    };
  });
  return { ...base, source, message: null, findings, summary: comparison.summary };
}
