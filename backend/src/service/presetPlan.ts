// What "Run it" would start for a preset pick (part, variant, length) and what it costs: the runs,
// their lab and wall time on the lab (queueEstimate's arithmetic), and whether they fit the
// caller's quota (the same check POST /api/runs applies), with a pick that fits when this one does
// not: one variant at a time, shortened to the quota's length.
import type { Spec } from '@lfnlab/emulator';
import type { PresetPick } from '../presets/pick.js';
import { SHORTEN_S } from '../presets/pick.js';
import { type WallEstimate, wallEstimate } from './queueEstimate.js';
import { quotaFit, quotaProblems } from './quotas.js';
import { type PlannedRun, presets, resolveRunInput } from './runInputs.js';
import type { SpecStore } from './specStore.js';
import { type Problem, type Quota, type Role, type Run, ServiceError } from './types.js';

export interface PlanVariant {
  id: string;
  label: string;
  /** Lab seconds of traffic. */
  durationS: number;
  /** Whether one run of it alone fits the caller's per-run limits (length, rate, flows). */
  fits: boolean;
  problems: Problem[];
}

export interface PlanSuggestion {
  pick: { part: string; variant?: string; shorten?: number };
  /** What to do, in words: "one variant at a time, shortened to 120 s". */
  text: string;
  cost: WallEstimate;
}

export interface PresetPlanView {
  preset: string;
  pick: { part: string; variant: string | null; shorten: number | null };
  parts: { name: string; runs: number }[];
  /** The part's variants at the picked length (the picker's choices). */
  variants: PlanVariant[];
  /** The runs the pick starts. */
  cost: WallEstimate;
  quota: {
    role: Role;
    limits: Quota;
    /** The caller's runs queued or running now. */
    active: number;
    fits: boolean;
    /** Each exceeded limit, naming its field (`concurrentRuns`, `duration`, `paths.main.rate`, `flows`). */
    problems: Problem[];
    /** A pick of this part that fits, when this one does not and one does. */
    suggestion: PlanSuggestion | null;
  };
}

export interface PlanContext {
  user: { role: Role };
  quota: Quota;
  active: number;
  /** The lab's runs (its pace and per-run overhead). */
  history: Run[];
  /** The pace a run is expected to keep before the lab has one (LabDriver.expectedPace). */
  expectedPace: (spec: Spec) => number;
  specs: SpecStore;
}

const noSpecs = () => false;
const CACHE_SIZE = 64;

/** Variant id of a planned campaign run (`CAMPAIGN/ID`). */
const variantId = (p: PlannedRun) => p.name.slice(p.name.indexOf('/') + 1);

export class PresetPlanner {
  private readonly cache = new Map<string, PlannedRun[]>();

  /** Every run of the part at this length, validated as POST /api/runs would (its 400s too). */
  private async allOf(preset: string, part: string, shorten: number | undefined, specs: SpecStore) {
    const key = `${preset}\u0000${part}\u0000${shorten ?? 'full'}`;
    let runs = this.cache.get(key);
    if (!runs) {
      runs = await resolveRunInput({ preset, part, ...(shorten ? { shorten } : {}) }, specs, noSpecs);
      // Lengths come from requests: keep the newest few expansions only.
      if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
      this.cache.set(key, runs);
    }
    return runs;
  }

  async plan(presetName: string, pick: PresetPick, ctx: PlanContext): Promise<PresetPlanView> {
    const preset = presets().find((p) => p.name === presetName);
    if (!preset) throw new ServiceError(404, `no preset ${presetName}`);
    const part = pick.part ?? preset.parts[0]?.name ?? '';
    const all = await this.allOf(preset.name, part, pick.shorten, ctx.specs);
    const chosen = pick.variant ? all.filter((r) => variantId(r) === pick.variant) : all;
    if (pick.variant && chosen.length === 0)
      throw new ServiceError(400, `no variant ${pick.variant}`, [
        { path: 'variant', message: `must be one of ${all.map(variantId).join(', ')}` },
      ]);
    const role = ctx.user.role;
    // In the file's order (ids start with the position), not the campaign's seeded run order.
    const byId = [...all].sort((a, b) => variantId(a).localeCompare(variantId(b)));
    const variants = byId.map((r): PlanVariant => {
      const problems = quotaProblems(r.spec, ctx.quota, role);
      return {
        id: variantId(r),
        label: r.label ?? variantId(r),
        durationS: r.spec.duration / 1000,
        fits: problems.length === 0,
        problems,
      };
    });
    const problems = quotaFit(
      chosen.map((r) => r.spec),
      ctx.quota,
      role,
      ctx.active,
    );
    const parts = await Promise.all(
      preset.parts.map(async (p) => ({
        name: p.name,
        runs: (await this.allOf(preset.name, p.name, pick.shorten, ctx.specs)).length,
      })),
    );
    const cost = (runs: PlannedRun[]) =>
      wallEstimate(
        runs.map((r) => ({ labS: r.spec.duration / 1000, pace: ctx.expectedPace(r.spec) })),
        ctx.history,
      );
    return {
      preset: preset.name,
      pick: { part, variant: pick.variant ?? null, shorten: pick.shorten ?? null },
      parts,
      variants,
      cost: cost(chosen),
      quota: {
        role,
        limits: ctx.quota,
        active: ctx.active,
        fits: problems.length === 0,
        problems,
        suggestion: problems.length ? await this.suggest(preset.name, part, pick, chosen, ctx, cost) : null,
      },
    };
  }

  /** The picked variant (else the part, else its first variant that fits), at a length the quota allows. */
  private async suggest(
    preset: string,
    part: string,
    pick: PresetPick,
    chosen: PlannedRun[],
    ctx: PlanContext,
    cost: (runs: PlannedRun[]) => WallEstimate,
  ): Promise<PlanSuggestion | null> {
    const maxS = Math.min(ctx.quota.maxDurationS, SHORTEN_S.max);
    const tooLong = chosen.some((r) => r.spec.duration / 1000 > ctx.quota.maxDurationS);
    if (tooLong && maxS < SHORTEN_S.min) return null;
    const shorten = tooLong ? maxS : pick.shorten;
    const all = await this.allOf(preset, part, shorten, ctx.specs);
    const fitsAlone = (r: PlannedRun) => quotaProblems(r.spec, ctx.quota, ctx.user.role).length === 0;
    const slots = Math.max(1, ctx.quota.concurrentRuns - ctx.active);
    const length = shorten ? `, shortened to ${shorten} s` : '';
    const wait = ctx.active >= ctx.quota.concurrentRuns ? ' once your queued or running runs end' : '';
    if (!pick.variant && all.length <= slots && all.every(fitsAlone))
      return {
        pick: { part, ...(shorten ? { shorten } : {}) },
        text: `the whole part${length}${wait}`,
        cost: cost(all),
      };
    const one = all.find((r) => variantId(r) === pick.variant && fitsAlone(r)) ?? all.find(fitsAlone);
    if (!one) return null;
    return {
      pick: { part, variant: variantId(one), ...(shorten ? { shorten } : {}) },
      text: `one variant at a time${length}${wait}: ${one.label ?? variantId(one)}`,
      cost: cost([one]),
    };
  }
}
