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
  'seed000-sinusoidal': {
    'published sin.stab.size1': [16, 'a2272a5806ba'],
    'published sin.stab.size2': [16, '30f3c11dacdb'],
    'published sin.stab.size3': [16, '51e24f552737'],
    'published sin.gain (measure.of)': [48, 'ec850c97a713'],
    'published sin.gain (measure.to)': [24, '462d21e3935c'],
    'published sin.bic.sizes23': [4, '3b399f0076de'],
    'claim stab.by.stack item FAST': [4, '3bdd0f65701a'],
    'claim stab.by.stack item HSTCP-LP': [4, '3b2db57a8706'],
    'claim stab.by.stack item H-TCP': [4, 'c28de138d38b'],
    'claim stab.by.stack item HS-TCP': [4, '375f4969d76f'],
    'claim stab.by.stack item P-TCP': [4, '39864a2622a9'],
    'claim stab.by.stack item S-TCP': [4, '0f337d60c57b'],
    'claim stab.by.stack item Bic-TCP': [4, '3b399f0076de'],
    'claim periods.alike item 60 s period': [16, 'af3bece08817'],
    'claim periods.alike item 30 s period': [16, '63f6cea86d5d'],
  },
  'seed000-table1': {
    'published stab.size1': [24, 'deae01b1b683'],
    'published stab.size2': [24, '9e8bfca5122b'],
    'published stab.size3': [24, '2891d8cc3737'],
    'published stab.stcp': [6, 'bcb9bf349b6e'],
    'published t1.avg.size1.reno': [3, 'f6242b865220'],
    'published t1.avg.size1.ptcp': [3, '285d1648c774'],
    'published t1.avg.size1.stcp': [3, '788fef3221ec'],
    'published t1.avg.size1.fast': [3, '1311bb43039e'],
    'published t1.avg.size1.hstcp': [3, '7e1e78085069'],
    'published t1.avg.size1.bic': [3, '39c828febf9f'],
    'published t1.avg.size1.htcp': [3, 'e37ab560a163'],
    'published t1.avg.size1.hstcplp': [3, '20f92732de21'],
    'published t1.avg.size2.reno': [3, '924d823c11ad'],
    'published t1.avg.size2.ptcp': [3, '69e75b0cd36d'],
    'published t1.avg.size2.stcp': [3, 'e601903b44f6'],
    'published t1.avg.size2.fast': [3, '971c8f2cd110'],
    'published t1.avg.size2.hstcp': [3, '3c0dcfff472f'],
    'published t1.avg.size2.bic': [3, '917d620e84ae'],
    'published t1.avg.size2.htcp': [3, 'b8ad0505ee08'],
    'published t1.avg.size2.hstcplp': [3, '843c11da4a21'],
    'published t1.avg.size3.reno': [3, '30b35ea77166'],
    'published t1.avg.size3.ptcp': [3, '1d767bf0eec0'],
    'published t1.avg.size3.stcp': [3, 'f3a6e02fdcb1'],
    'published t1.avg.size3.fast': [3, '6cb4211da98e'],
    'published t1.avg.size3.hstcp': [3, '7549e457bee1'],
    'published t1.avg.size3.bic': [3, '31667d3d044c'],
    'published t1.avg.size3.htcp': [3, '4f8cb2b80d5a'],
    'published t1.avg.size3.hstcplp': [3, '2ebf7e6bcca0'],
    'published t1.avg.size23.reno': [6, '146672e2d565'],
    'published t1.avg.size23.ptcp': [6, 'f9e222a618b0'],
    'published t1.avg.size23.stcp': [6, 'bcb9bf349b6e'],
    'published t1.avg.size23.fast': [6, '92d0fcde5a96'],
    'published t1.avg.size23.hstcp': [6, 'a608e1437acc'],
    'published t1.avg.size23.bic': [6, '186a79d81728'],
    'published t1.avg.size23.htcp': [6, '6ba1f61a047c'],
    'published t1.avg.size23.hstcplp': [6, '92d2a19fa670'],
    'claim stab.by.stack item Reno': [6, '146672e2d565'],
    'claim stab.by.stack item HSTCP-LP': [6, '92d2a19fa670'],
    'claim stab.by.stack item H-TCP': [6, '6ba1f61a047c'],
    'claim stab.by.stack item Bic-TCP': [6, '186a79d81728'],
    'claim stab.by.stack item HS-TCP': [6, 'a608e1437acc'],
    'claim stab.by.stack item S-TCP': [6, 'bcb9bf349b6e'],
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
