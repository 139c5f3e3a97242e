// What POST /api/runs can start from (spec text, a stored spec or campaign, a paper preset), turned
// into the runs to queue: each with its validated spec and the exact text that produced it.
import type { Spec } from '@lfnlab/emulator';
import { stringify } from 'yaml';
import { loadPresets, type Preset, shortenForCi, shortestValidLength } from '../presets/index.js';
import type { SpecStore } from './specStore.js';
import { type Problem, ServiceError } from './types.js';
import { type CheckedCampaign, checkCampaign, checkCampaignText, checkSpecText } from './validation.js';

export type RunInput =
  | { text: string }
  | { specId: string; variant?: string }
  | { preset: string; part?: string; shorten?: number; variant?: string };

export interface PlannedRun {
  name: string;
  /** A campaign's run: its variant's label (`reno · 100 Mbit/s · rep 2`); null for a plain spec. */
  label: string | null;
  spec: Spec;
  specText: string;
  preset: string | null;
  /** Set for runs expanded from a campaign: its name (each run is one variant). */
  campaign: string | null;
}

const invalid = (what: string, problems: Problem[]) =>
  new ServiceError(
    400,
    `invalid ${what}: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
    problems,
  );

function fromCampaign(c: CheckedCampaign, o: { variant?: string; preset: string | null }): PlannedRun[] {
  const variants = o.variant ? c.variants.filter((v) => v.id === o.variant) : c.variants;
  if (variants.length === 0)
    throw new ServiceError(400, `no variant ${o.variant}`, [
      { path: 'variant', message: `must be one of ${c.variants.map((v) => v.id).join(', ')}` },
    ]);
  return variants.map((v) => ({
    name: `${c.campaign.name}/${v.id}`,
    label: v.label,
    spec: v.resolved,
    specText: stringify(v.spec),
    preset: o.preset,
    campaign: c.campaign.name,
  }));
}

let presetCache: Preset[] | null = null;
export function presets(): Preset[] {
  presetCache ??= loadPresets();
  return presetCache;
}

export async function resolveRunInput(
  input: RunInput,
  specs: SpecStore,
  canSee: (ownerId: string) => boolean,
): Promise<PlannedRun[]> {
  if ('text' in input) {
    const r = checkSpecText(input.text, 'text');
    if (!r.ok) throw invalid('spec', r.problems);
    return [
      { name: r.value.name, label: null, spec: r.value, specText: input.text, preset: null, campaign: null },
    ];
  }
  if ('specId' in input) {
    const s = specs.get(input.specId);
    if (!s || !canSee(s.ownerId))
      throw new ServiceError(404, `no spec ${input.specId}`, [{ path: 'specId', message: 'not found' }]);
    if (s.kind === 'spec') {
      const r = checkSpecText(s.text, 'specId');
      if (!r.ok) throw invalid('stored spec', r.problems);
      return [
        { name: r.value.name, label: null, spec: r.value, specText: s.text, preset: null, campaign: null },
      ];
    }
    const c = await checkCampaignText(s.text, 'specId');
    if (!c.ok) throw invalid('stored campaign', c.problems);
    return fromCampaign(c.value, { variant: input.variant, preset: null });
  }
  const preset = presets().find((p) => p.name === input.preset);
  if (!preset)
    throw new ServiceError(400, `no preset ${input.preset}`, [
      {
        path: 'preset',
        message: `must be one of ${presets()
          .map((p) => p.name)
          .join(', ')}`,
      },
    ]);
  const part = input.part ? preset.parts.find((p) => p.name === input.part) : preset.parts[0];
  if (!part)
    throw new ServiceError(400, `preset ${preset.name} has no part ${input.part}`, [
      { path: 'part', message: `must be one of ${preset.parts.map((p) => p.name).join(', ')}` },
    ]);
  const campaign = input.shorten ? shortenForCi(part.campaign, input.shorten) : part.campaign;
  const c = await checkCampaign(campaign, 'preset');
  if (!c.ok && input.shorten) {
    // Too short for the part's schedule (staggered flows start whole seconds apart): name the
    // shortest length that works instead of every variant's problem.
    const least = shortestValidLength(part.campaign, input.shorten);
    const message = least
      ? `must be at least ${least} s for part ${part.name} (its flows start whole seconds apart), or empty for full length`
      : 'cannot be shortened; leave it empty for full length';
    throw new ServiceError(400, `shorten ${message}`, [{ path: 'shorten', message }]);
  }
  if (!c.ok) throw invalid('preset', c.problems);
  return fromCampaign(c.value, { variant: input.variant, preset: preset.name });
}
