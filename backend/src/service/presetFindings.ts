// Where a preset's findings come from for one user: their newest results (completed runs of the
// preset they may see, all of one length, the newest run of each variant) compared now, else the
// committed comparison at presets/results/<name>/comparison.json, else a reproduction under way
// judged provisionally on the runs it kept so far, else nothing (said, not an error).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Campaign, expandCampaign, type Variant } from '../campaign/expand.js';
import { rowOf } from '../campaign/runCampaign.js';
import { findingsView, type PresetFindingsView } from '../presets/findingsView.js';
import {
  comparePreset,
  type Preset,
  type PresetComparison,
  type PresetRow,
  shortenedName,
  shortenForCi,
} from '../presets/index.js';
import { pendingPresets, progressDirOf } from '../presets/pending.js';
import { provisionalComparison } from '../presets/provisional.js';
import { type Explanation, type RunsInfo, readExplanations } from '../presets/publish.js';
import { readRunSummary } from '../report/load.js';
import { publishedRunsText } from '../report/presetSummary.js';
import type { RunSummary } from '../run/summary.js';
import type { PublicUser, Run } from './types.js';

/** What the findings need of the run service: the runs a user may see, and each run's directory. */
export interface VisibleRuns {
  visible(viewer: PublicUser, f: { preset: string; status: 'completed' }): Run[];
  dir(viewer: PublicUser, id: string): string;
}

interface Matched {
  run: Run;
  part: string;
  variant: Variant;
  /** Seconds the run was shortened to; null at full length. */
  shortenedToS: number | null;
}

/** Comparisons are bootstraps of 10 000 resamples per claim: computed once per set of runs. */
const CACHE_SIZE = 64;

export class PresetFindings {
  private readonly expanded = new Map<string, Map<string, Variant>>();
  private readonly compared = new Map<string, PresetComparison>();

  constructor(
    private readonly runs: VisibleRuns,
    /** Committed results: <dir>/<preset>/comparison.json. */
    private readonly resultsDir: string,
  ) {}

  /** As JSON carries it (an infinite value, e.g. "never reached", becomes null), like comparison.json. */
  view(user: PublicUser, preset: Preset): PresetFindingsView {
    return JSON.parse(JSON.stringify(this.build(user, preset))) as PresetFindingsView;
  }

  private build(user: PublicUser, preset: Preset): PresetFindingsView {
    const published = join(this.resultsDir, preset.name);
    // A broken explanations file must not hide the findings: publishing is where it is refused.
    let tested: Explanation[] = [];
    try {
      tested = readExplanations(published);
    } catch {}
    const mine = this.fromRuns(user, preset);
    if (mine) return findingsView(preset, mine.comparison, mine.source, tested);
    const committed = readCommitted(join(published, 'comparison.json'));
    if (committed)
      return findingsView(
        preset,
        committed,
        {
          kind: 'committed',
          file: `presets/results/${preset.name}/comparison.json`,
          runs: committed.rows?.used ?? 0,
          record: readRunsRecord(join(published, 'runs.json')),
        },
        tested,
      );
    // Nothing published yet: a reproduction under way is judged, provisionally, on the runs it kept.
    const progress = progressDirOf(this.resultsDir, preset.name);
    const underWay = existsSync(progress)
      ? pendingPresets([preset], new Set(), this.resultsDir, false)[0]
      : undefined;
    if (underWay?.done) {
      const key = `${preset.name}\u0000progress\u0000${underWay.done}`;
      const provisional = this.remember(key, () => provisionalComparison(preset, progress));
      if (provisional)
        return findingsView(preset, provisional, {
          kind: 'provisional',
          runs: underWay.done,
          of: underWay.runs,
          wallLeftS: underWay.wallLeftS,
        });
    }
    return findingsView(preset, null, null);
  }

  /** A comparison computed once per key (the oldest dropped past CACHE_SIZE); null is not kept. */
  private remember<C extends PresetComparison | null>(key: string, compute: () => C): C {
    const known = this.compared.get(key);
    if (known) return known as C;
    const c = compute();
    if (c) {
      if (this.compared.size >= CACHE_SIZE) this.compared.delete(this.compared.keys().next().value as string);
      this.compared.set(key, c);
    }
    return c;
  }

  private variants(part: string, campaign: Campaign, shortenedToS: number | null) {
    const key = `${part}\u0000${shortenedToS ?? 'full'}`;
    let m = this.expanded.get(key);
    if (!m) {
      const c = shortenedToS === null ? campaign : shortenForCi(campaign, shortenedToS);
      m = new Map(expandCampaign(c).map((v) => [v.id, v]));
      this.expanded.set(key, m);
    }
    return m;
  }

  /** The run's part and variant: a full-length part's, or its shortened campaign's (named NAME-ci). */
  private match(preset: Preset, run: Run): Matched | null {
    const at = run.campaign?.lastIndexOf('@') ?? -1;
    const slash = run.name.indexOf('/');
    if (!run.campaign || at < 0 || slash < 0) return null;
    const campaignName = run.campaign.slice(0, at);
    const id = run.name.slice(slash + 1);
    for (const part of preset.parts) {
      const key = `${preset.name}/${part.name}`;
      if (part.campaign.name === campaignName) {
        const v = this.variants(key, part.campaign, null).get(id);
        return v ? { run, part: part.name, variant: v, shortenedToS: null } : null;
      }
      if (shortenedName(part.campaign.name) === campaignName) {
        const s = run.spec.duration / 1000;
        const v = Number.isInteger(s) ? this.variants(key, part.campaign, s).get(id) : undefined;
        return v ? { run, part: part.name, variant: v, shortenedToS: s } : null;
      }
    }
    return null;
  }

  private fromRuns(user: PublicUser, preset: Preset) {
    const runs = this.runs
      .visible(user, { preset: preset.name, status: 'completed' })
      .sort((a, b) => (b.finishedAt ?? '').localeCompare(a.finishedAt ?? ''));
    const matched = runs.map((r) => this.match(preset, r)).filter((m): m is Matched => m !== null);
    const newest = matched[0];
    if (!newest) return null;
    // One length per comparison (a 10 s run and a full-length run measure different things), the
    // newest run of each variant (a repeat replaces what it repeats).
    const byVariant = new Map<string, Matched>();
    for (const m of matched)
      if (m.shortenedToS === newest.shortenedToS && !byVariant.has(`${m.part}/${m.variant.id}`))
        byVariant.set(`${m.part}/${m.variant.id}`, m);
    const used = [...byVariant.values()];
    const rows: PresetRow[] = [];
    for (const m of used) {
      const summary = readRunSummary<RunSummary>(this.runs.dir(user, m.run.id));
      if (summary) rows.push({ ...rowOf(m.variant, summary), part: m.part, summary });
    }
    if (!rows.length) return null;
    const key = `${preset.name}\u0000${used
      .map((m) => `${m.run.id}@${m.run.finishedAt}`)
      .sort()
      .join(',')}`;
    const comparison = this.remember(key, () => comparePreset(preset, rows, newest.shortenedToS));
    return {
      comparison,
      source: {
        kind: 'runs' as const,
        runs: rows.length,
        batches: new Set(used.map((m) => m.run.campaign)).size,
        newestAt: newest.run.finishedAt ?? newest.run.createdAt,
        shortenedToS: newest.shortenedToS,
      },
    };
  }
}

/** runs.json in words, or null when it is absent or unreadable (the findings still show). */
function readRunsRecord(file: string): string | null {
  if (!existsSync(file)) return null;
  try {
    const r = JSON.parse(readFileSync(file, 'utf8')) as RunsInfo;
    return r.runs && r.length ? publishedRunsText(r) : null;
  } catch {
    return null;
  }
}

/** A committed comparison.json, or null when there is none or it is not one. */
function readCommitted(file: string): PresetComparison | null {
  if (!existsSync(file)) return null;
  try {
    const c = JSON.parse(readFileSync(file, 'utf8')) as PresetComparison;
    return Array.isArray(c.findings) && Array.isArray(c.cells) ? c : null;
  } catch {
    return null;
  }
}
