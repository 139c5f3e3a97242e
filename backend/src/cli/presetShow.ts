// `lfnlab preset show NAME`: the paper, the scaling rule, and the dimensionless groups paper
// against ours, with the meta file's caveat for each group the scaling does not keep.

import { notReproducedLines } from '../presets/claimItems.js';
import { groupValue, preservedText } from '../presets/groupText.js';
import type { Preset } from '../presets/load.js';
import { caveatsOf, type PresetScaling, presetScaling } from '../presets/scaling.js';
import { table } from './args.js';

const wrap = (text: string, indent: string, width = 96): string => {
  const lines: string[] = [];
  let line = '';
  for (const w of text.split(/\s+/)) {
    if (line && line.length + 1 + w.length > width - indent.length) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return lines.map((l) => indent + l).join('\n');
};

/**
 * The groups that read otherwise at the reproduction length (its runs shorten every time in the spec
 * alike, so the stagger and run-length groups move); null when none do or the preset has no such length.
 */
function reproductionShift(p: Preset, full: PresetScaling): string | null {
  const seconds = p.meta.reproduce?.seconds;
  if (!seconds) return null;
  const short = presetScaling(p, seconds);
  if (short.timeFactor === full.timeFactor) return null;
  const before = new Map(full.groups.map((g) => [g.id, g]));
  const moved = short.groups.filter((g) => {
    const f = before.get(g.id);
    return !f || f.ours !== g.ours || f.paper !== g.paper;
  });
  if (!moved.length) return null;
  return [
    `at the reproduction length (${short.at.runS} s runs, run length × ${groupValue(short.timeFactor)}), where the findings are judged:`,
    table(
      ['group', 'paper', 'ours', 'preserved'],
      moved.map((g) => [g.label, groupValue(g.paper), groupValue(g.ours), preservedText(g)]),
    ),
  ].join('\n');
}

const bdpText = (r: PresetScaling['bdpRange'], k: number) =>
  r.min === r.max ? groupValue(r.min / k) : `${groupValue(r.min / k)}–${groupValue(r.max / k)}`;

export function formatPresetShow(p: Preset, s: PresetScaling = presetScaling(p)): string {
  const m = p.meta;
  const out = [
    `${p.name}: ${m.paper.short} (seed ${m.paper.id})`,
    wrap(m.paper.title, '  '),
    '',
    'experiment:',
    wrap(m.experiment, '  '),
    '',
    `scaling: rate × ${s.rateFactor}, RTT × ${s.rttFactor}, run length × ${s.timeFactor}`,
    wrap(m.scaling.rule, '  '),
    '',
    `dimensionless groups at ${s.at.rateMbps} Mbit/s, ${s.at.rttMs} ms, MTU ${s.at.mtu} (${s.at.part}: ${s.at.variant}); stacks: ${s.stacks.join(', ')}`,
    `BDP over all runs: ${bdpText(s.bdpRange, 1)} packets here, ${bdpText(s.bdpRange, s.rateFactor * s.rttFactor)} in the paper; a window group keeps its paper/ours ratio at every point`,
    table(
      ['group', 'paper', 'ours', 'preserved'],
      s.groups.map((g) => [g.label, groupValue(g.paper), groupValue(g.ours), preservedText(g)]),
    ),
  ];
  const repro = reproductionShift(p, s);
  if (repro) out.push('', repro);
  const r = m.reproduce;
  if (r) {
    out.push('', `reproduction: ${r.seconds} s runs × ${r.repeat} repetitions`, wrap(r.why, '  '));
    for (const line of notReproducedLines(p)) out.push(wrap(`Not in the reproduction: ${line}`, '  '));
  }
  const notes = s.groups.filter((g) => g.note).map((g) => `  ${g.label}: ${g.note}`);
  if (notes.length) out.push('', 'notes:', ...notes);
  const lost = s.groups.filter((g) => g.preserved === false && g.id !== 'bdp');
  if (lost.length) {
    out.push('', 'not preserved, and what it likely does:');
    const seen = new Set<object>();
    for (const g of lost)
      for (const c of caveatsOf(p, g.id)) {
        if (seen.has(c)) continue;
        seen.add(c);
        out.push(`  ${c.groups.join(', ')} → claims ${c.claims.join(', ')}`, wrap(c.effect, '    '));
      }
  }
  out.push(
    '',
    'A window group is preserved when ours is within 10 % of the paper’s or the parameter is the scaled',
    'default rounded to whole packets; time groups compare with the RTT (kept) or the congestion epoch.',
    "The paper's side takes each stack at its module default (the seed papers do not state their",
    "stacks' parameters) and our MTU.",
  );
  return out.join('\n');
}
