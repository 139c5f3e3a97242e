// Every preset in presets/ loads, every campaign inside it expands (expansion validates each spec),
// every published number has a reference, and the CI variant keeps every spec valid and short.
import { validateSpec } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import { expandCampaign, repeatsOf } from '../campaign/expand.js';
import { presetForCi, presetForReproduction, valuesFor } from './ci.js';
import { comparePreset } from './compare.js';
import { loadPresetsWithOrphans, selections } from './load.js';
import { formatRef } from './schema.js';
import { rowMatches } from './where.js';

const { presets, orphans } = loadPresetsWithOrphans();

describe('the preset folder', () => {
  it('holds presets for every seed paper and no campaign file without a meta file', () => {
    expect(orphans).toEqual([]);
    const papers = new Set(presets.map((p) => p.meta.paper.id));
    expect([...papers].sort()).toEqual(['000', '001', '002', '003', '004']);
    expect(presets.map((p) => p.name)).toEqual(
      expect.arrayContaining([
        'seed000-table1',
        'seed000-table2',
        'seed000-table3',
        'seed000-table4',
        'seed000-sinusoidal',
        'seed001-sst',
        'seed001-dst',
        'seed002-equivalence',
        'seed002-transient',
        'seed002-cbr',
        'seed002-selfsimilar',
        'seed003-responsiveness',
        'seed003-ber',
        'seed004-maxbw',
      ]),
    );
  });

  it('send the UDP backgrounds of seeds 000 and 002 as real cross traffic, not as a modelled capacity', () => {
    for (const name of ['seed000-sinusoidal', 'seed002-cbr', 'seed002-selfsimilar']) {
      const p = presets.find((x) => x.name === name);
      const vary = p?.parts[0]?.campaign.vary ?? {};
      const base = JSON.stringify(p?.parts[0]?.campaign.base ?? {});
      expect(Object.keys(vary).some((k) => k.includes('cross')) || base.includes('cross'), name).toBe(true);
      expect(JSON.stringify(vary), name).not.toContain('changes');
    }
  });
  it('run each pair of seed000-table3 stacks once per path, each stack first in half its pairs', () => {
    const p = presets.find((x) => x.name === 'seed000-table3');
    const label = (f: unknown) => {
      const x = f as { stack: string; streams: number };
      return x.streams > 1 ? `${x.stack}x${x.streams}` : x.stack;
    };
    expect(p?.parts.length).toBe(3);
    for (const part of p?.parts ?? []) {
      const runs = expandCampaign(part.campaign).map((v) => [
        label(v.params['flows[0]']),
        label(v.params['flows[1]']),
      ]);
      const pairs = new Set(runs.map((r) => [...r].sort().join(' / ')));
      expect(runs.length, part.name).toBe(21); // 7 stacks: 7·6/2 pairs
      expect(pairs.size, part.name).toBe(21);
      expect(runs.every(([a, b]) => a !== b)).toBe(true);
      const first = new Map<string, number>();
      for (const [a] of runs) first.set(a as string, (first.get(a as string) ?? 0) + 1);
      expect([...first.values()], part.name).toEqual([3, 3, 3, 3, 3, 3, 3]);
    }
  });
});

describe.each(presets.map((p) => [p.name, p] as const))('preset %s', (_name, preset) => {
  it('expands every part into valid specs', () => {
    for (const part of preset.parts) {
      const variants = expandCampaign(part.campaign);
      expect(variants.length).toBeGreaterThan(0);
      for (const v of variants) expect(validateSpec(v.spec).ok).toBe(true);
    }
  });

  it('names variants by value only, and every selection picks runs the campaign has', () => {
    const variants = preset.parts.flatMap((part) =>
      expandCampaign({ ...part.campaign, repeat: 1 }).map((v) => ({ part: part.name, params: v.params })),
    );
    for (const sel of selections(preset.meta)) {
      expect(JSON.stringify(sel.where), sel.what).not.toContain('$nth');
      expect(variants.filter((v) => rowMatches(v, sel.where)).length, sel.what).toBeGreaterThan(0);
    }
  });

  it('gives every published number a value, a unit and a table/figure/section reference', () => {
    for (const p of preset.meta.published) {
      expect(Number.isFinite(p.value), p.id).toBe(true);
      expect(p.unit, p.id).not.toBe('');
      expect(formatRef(p.ref), p.id).not.toBe('');
      if (p.measure === null) expect(p.note, `${p.id} has no measure, so needs a note`).toBeTruthy();
    }
    for (const c of preset.meta.claims) expect(formatRef(c.ref), c.id).not.toBe('');
  });

  it('states its finding in at most three sentences and its scaling rule', () => {
    const sentences = preset.meta.finding.split(/(?<=[.!?])\s+/).filter(Boolean);
    expect(sentences.length).toBeLessThanOrEqual(3);
    expect(preset.meta.scaling.rule.length).toBeGreaterThan(40);
  });

  it(`shortens every run for CI to at most ${preset.meta.ci.seconds} s and keeps every spec valid`, () => {
    for (const { part, campaign } of presetForCi(preset)) {
      const variants = expandCampaign(campaign);
      const full = preset.parts.find((p) => p.name === part)?.campaign;
      expect(variants.length).toBeGreaterThan(0);
      expect(variants.length).toBeLessThanOrEqual(full ? expandCampaign(full).length : 0);
      for (const v of variants) {
        const r = validateSpec(v.spec);
        if (!r.ok) throw new Error(`${part} ${v.id}: ${JSON.stringify(r.problems)}`);
        expect(r.spec.duration).toBeLessThanOrEqual(preset.meta.ci.seconds * 1000);
        for (const f of r.spec.flows) expect(f.start + f.duration).toBeLessThanOrEqual(r.spec.duration);
      }
    }
  });

  it('has a reproduction length: every value kept but those it says why it drops, at least 3 seeded repetitions, specs valid', () => {
    const r = preset.meta.reproduce;
    if (!r) throw new Error(`${preset.name} has no reproduce block`);
    for (const { part, campaign } of presetForReproduction(preset)) {
      const full = preset.parts.find((p) => p.name === part)?.campaign;
      if (!full) throw new Error(part);
      const dropped = (key: string) =>
        valuesFor(r.values, { name: part, campaign: full }).find((v) => v.key === key);
      expect(Object.entries(campaign.vary).map(([k, v]) => [k, v.length])).toEqual(
        Object.entries(full.vary).map(([k, v]) => [k, dropped(k)?.keep.length ?? v.length]),
      );
      const variants = expandCampaign(campaign);
      expect(campaign.repeat).toBeGreaterThanOrEqual(3);
      for (const v of variants) expect(v.resolved.duration).toBe(r.seconds * 1000);
      // Repetitions of one variant draw from different seeds.
      const seeds = variants.filter(
        (v) => v.id.replace(/-r\d+$/, '') === variants[0]?.id.replace(/-r\d+$/, ''),
      );
      expect(new Set(seeds.map((v) => v.resolved.seed)).size).toBe(
        repeatsOf(campaign, variants[0]?.params ?? {}),
      );
    }
  });

  it('compares with no rows: every cell unmeasured, every finding inconclusive', () => {
    const c = comparePreset(preset, []);
    expect(c.cells).toHaveLength(preset.meta.published.length);
    expect(c.findings.every((f) => f.holds === null && f.verdict === 'inconclusive')).toBe(true);
  });
});
