// The move from positions to values (issue 15) kept every published number on its runs: for each
// selection that picked variants by position (`$nth`), or by an object pattern that is now spelled
// out (seed004 ramp.ratio), the runs it picks now are the runs it picked then. The record was made
// once, with the old matcher, from the campaigns' variants: how many variants, and a digest of their
// parts and parameter values (not their positions, so reordering a `vary` list keeps it valid).
// A change that moves one of these numbers to other runs on purpose updates its line here.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expandCampaign } from '../campaign/expand.js';
import { loadPresets, type Preset, selections } from './load.js';
import { rowMatches } from './where.js';

/** Preset → selection (as load errors name it) → [variants picked, digest of their parameters]. */
const PICKED_BY_POSITION: Record<string, Record<string, [number, string]>> = {
  // P-TCP's variants gained `connect: together` (2026-12-04): the same counts, new digests.
  'seed000-sinusoidal': {
    'published sin.stab.size1': [16, 'c0ee1deda387'],
    'published sin.stab.size2': [16, '300cc0540826'],
    'published sin.stab.size3': [16, '92ac94e5c998'],
    'published sin.gain (measure.of)': [48, '657f98b6fcba'],
    'published sin.gain (measure.to)': [24, '641967209cf3'],
    'published sin.bic.sizes23': [4, '38a511f0f82d'],
    'claim stab.by.stack item FAST': [4, '2b4bd798c2e6'],
    'claim stab.by.stack item HSTCP-LP': [4, 'cbbecec5a61c'],
    'claim stab.by.stack item H-TCP': [4, '6f1e0d9d9acb'],
    'claim stab.by.stack item HS-TCP': [4, '5e7e19aa077f'],
    'claim stab.by.stack item P-TCP': [4, '2edcd673247d'],
    'claim stab.by.stack item S-TCP': [4, '239e278b147b'],
    'claim stab.by.stack item Bic-TCP': [4, '38a511f0f82d'],
    'claim periods.alike item 60 s period': [16, '5dbaad3ec85d'],
    'claim periods.alike item 30 s period': [16, '36152ce606d7'],
  },
  'seed000-table1': {
    'published stab.size1': [24, '6c9e28a2e816'],
    'published stab.size2': [24, 'b7d9b25ef43e'],
    'published stab.size3': [24, 'ee732e13e150'],
    'published stab.stcp': [6, '702417f4674a'],
    'published t1.avg.size1.reno': [3, 'aee08808e15c'],
    'published t1.avg.size1.ptcp': [3, '2ae1f2abc134'],
    'published t1.avg.size1.stcp': [3, '5145f192269f'],
    'published t1.avg.size1.fast': [3, 'b650ae02cb13'],
    'published t1.avg.size1.hstcp': [3, 'd4bcb9231fd9'],
    'published t1.avg.size1.bic': [3, '79e16b4f49e3'],
    'published t1.avg.size1.htcp': [3, '890cd005731e'],
    'published t1.avg.size1.hstcplp': [3, 'af0d885fe1b4'],
    'published t1.avg.size2.reno': [3, 'd3290a1c0321'],
    'published t1.avg.size2.ptcp': [3, 'f966b9dda2f9'],
    'published t1.avg.size2.stcp': [3, 'e54a893deb50'],
    'published t1.avg.size2.fast': [3, 'f3ee10d9f900'],
    'published t1.avg.size2.hstcp': [3, '3ab24541eb5e'],
    'published t1.avg.size2.bic': [3, '4ef15adc3c09'],
    'published t1.avg.size2.htcp': [3, '8653b0339ce1'],
    'published t1.avg.size2.hstcplp': [3, '2681c4b76bc3'],
    'published t1.avg.size3.reno': [3, '876049008f4d'],
    'published t1.avg.size3.ptcp': [3, 'e0bbfd667862'],
    'published t1.avg.size3.stcp': [3, '00fc25d6c294'],
    'published t1.avg.size3.fast': [3, '2e72494bc380'],
    'published t1.avg.size3.hstcp': [3, 'a38ed3246d4e'],
    'published t1.avg.size3.bic': [3, '22b05b1f4e23'],
    'published t1.avg.size3.htcp': [3, '3dc0e5450578'],
    'published t1.avg.size3.hstcplp': [3, 'efcb7eefc589'],
    'published t1.avg.size23.reno': [6, '02b2454f8306'],
    'published t1.avg.size23.ptcp': [6, 'cf01a8ce921f'],
    'published t1.avg.size23.stcp': [6, '702417f4674a'],
    'published t1.avg.size23.fast': [6, 'a6dd8cb6c080'],
    'published t1.avg.size23.hstcp': [6, '254e6f4c4352'],
    'published t1.avg.size23.bic': [6, '8274a320123a'],
    'published t1.avg.size23.htcp': [6, '634e07a26e34'],
    'published t1.avg.size23.hstcplp': [6, '05a74d6a8090'],
    'claim stab.by.stack item Reno': [6, '02b2454f8306'],
    'claim stab.by.stack item HSTCP-LP': [6, '05a74d6a8090'],
    'claim stab.by.stack item H-TCP': [6, '634e07a26e34'],
    'claim stab.by.stack item Bic-TCP': [6, '8274a320123a'],
    'claim stab.by.stack item HS-TCP': [6, '254e6f4c4352'],
    'claim stab.by.stack item S-TCP': [6, '702417f4674a'],
  },
  'seed000-table2': {
    'claim by.window item size 1': [21, '609c5c26670b'],
    'claim by.window item size 3': [21, '03c6b0435761'],
  },
  'seed002-cbr': {
    'claim order.stacks item Scalable': [5, 'c3d61a0c8622'],
    'claim order.stacks item HS-TCP': [5, '7bd860e1a6a2'],
    'claim order.stacks item Reno': [5, 'd72b18be0914'],
    'claim empty.pipe item Scalable, 0 % background': [1, '70d42b6f002d'],
    'claim empty.pipe item HS-TCP, 0 % background': [1, 'a9869c0b3d69'],
    'claim empty.pipe item Scalable, 10 % background': [1, 'd8ea4a6ca100'],
    'claim empty.pipe item HS-TCP, 10 % background': [1, 'a3cb62466c52'],
  },
  // Rescaled to 25 Mbit/s with BER x C^2 kept: the same selections, the BERs they name moved with it.
  'seed003-ber': {
    'claim reno.by.ber item 0': [1, '4c0cd8e26db8'],
    'claim reno.by.ber item 6.19e-10': [1, '6670b4eb2089'],
    'claim reno.by.ber item 6.19e-9': [1, '46c7079fd9fa'],
    'claim reno.by.ber item 6.19e-8': [1, 'd17ab5d9c551'],
    'claim reno.by.ber item 6.19e-7': [1, 'ac26ec0ac09f'],
    'claim reno.never.recovers item Reno link use at BER 6.19e-8 (paper 1e-9, 10 % uncorrected)': [
      1,
      'd17ab5d9c551',
    ],
    'claim reno.rare.errors item Reno link use at BER 6.19e-10 (paper 1e-11, 10 % uncorrected)': [
      1,
      '6670b4eb2089',
    ],
    'claim grid.ignores item Grid at 6.19e-9': [1, 'ba674e1bcfe5'],
    'claim grid.ignores item Reno at 6.19e-9': [1, '46c7079fd9fa'],
    'claim grid.ignores item Grid at 6.19e-8': [1, '87cbfcc87267'],
    'claim grid.ignores item Reno at 6.19e-8': [1, 'd17ab5d9c551'],
    'claim grid.ignores item Grid at 6.19e-7': [1, '80efb75ff6ff'],
    'claim grid.ignores item Reno at 6.19e-7': [1, 'ac26ec0ac09f'],
  },
  // Rescaled to 50 Mbit/s on purpose (100 Mbit/s runs were invalid in the dilated lab): the same
  // selections, the paths they name moved with the rates.
  'seed003-responsiveness': {
    'published case5.theory': [1, 'a4e9408eb7e1'],
    'published case5.measured': [1, 'a4e9408eb7e1'],
    'published case6.theory': [1, 'a4e9408eb7e1'],
    'published fig2.measured': [1, 'a4e9408eb7e1'],
    'claim c.rtt2 item 50 Mbit/s 120 ms': [1, 'a4e9408eb7e1'],
    'claim c.rtt2 item 50 Mbit/s 60 ms': [1, 'aab612cd9a9d'],
    'claim c.rtt2 item 25 Mbit/s 120 ms': [1, 'ffd672e22a32'],
    'claim twice.theory item Measured over theoretical recovery time at 50 Mbit/s, 120 ms': [
      1,
      'a4e9408eb7e1',
    ],
    'claim proportional item measured/theory at 50 Mbit/s, 120 ms': [1, 'a4e9408eb7e1'],
    'claim proportional item measured/theory at 50 Mbit/s, 60 ms': [1, 'aab612cd9a9d'],
  },
  'seed004-maxbw': {
    'published ramp.ratio': [3, 'e8cba4284a2b'],
  },
};

/** JSON with sorted keys: the same parameters give the same text whatever the key order. */
const canonical = (x: unknown): string => {
  if (Array.isArray(x)) return `[${x.map(canonical).join(',')}]`;
  if (x && typeof x === 'object')
    return `{${Object.keys(x)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((x as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(x);
};

/** Every variant of every part, once (repetitions share their parameters). */
const variantsOf = (p: Preset) =>
  p.parts.flatMap((part) =>
    expandCampaign({ ...part.campaign, repeat: 1, order: 'sequential' }).map((v) => ({
      part: part.name,
      params: v.params,
    })),
  );

const presets = loadPresets();

describe.each(Object.entries(PICKED_BY_POSITION))('preset %s', (name, recorded) => {
  const preset = presets.find((p) => p.name === name);

  it('picks, by parameter values, the variants it used to pick by position', () => {
    if (!preset) throw new Error(`no preset ${name}`);
    const variants = variantsOf(preset);
    const now: Record<string, [number, string]> = {};
    for (const sel of selections(preset.meta)) {
      if (!(sel.what in recorded)) continue;
      const picked = variants
        .filter((v) => rowMatches(v, sel.where))
        .map((v) => `${v.part} ${canonical(v.params)}`)
        .sort();
      now[sel.what] = [
        picked.length,
        createHash('sha256').update(picked.join('\n')).digest('hex').slice(0, 12),
      ];
    }
    expect(now).toEqual(recorded);
  });
});
