// The summary of every published preset result (presets/results/): per paper and preset, each
// finding's verdict in words, the sentence that puts ours beside the paper's, n, the lab clock the
// runs used, their length and wall time. One HTML page and the same as Markdown for the repository.
import { formatWallS } from '../presets/cost.js';
import type { PendingPreset } from '../presets/pending.js';
import type { PublishedPreset, RunsInfo } from '../presets/publish.js';
import { basisText, nText, runsToDecideText, type VerdictTest, verdictOf } from '../presets/verdict.js';
import type { LimitKind } from '../run/limitedBy.js';
import { esc } from './format.js';
import { mdCell, page, table, verdictBadge } from './page.js';
import { pendingHtml, pendingMarkdown, pendingTotalS } from './pendingSummary.js';

function lengthText(r: RunsInfo): string {
  const l = r.length;
  const each = l.seconds !== null ? `${l.seconds} s runs` : 'full-length runs';
  const more = l.mostRepeat ? ` (up to ${l.mostRepeat} where a finding needed more)` : '';
  return `${l.kind === 'reproduction' ? 'reproduction length' : l.kind}: ${each} × ${l.repeat} repetitions${more}`;
}

function clockText(r: RunsInfo): string {
  return Object.entries(r.clock)
    .map(([mode, n]) => `${mode} ${n}`)
    .join(', ');
}

function runsText(r: RunsInfo): string {
  const v = r.runs;
  // Older runs.json files predate the count of invalid tries run again.
  const again = r.invalidTries ?? 0;
  return `${v.completed} of ${v.planned} runs (${v.valid} valid, ${v.suspect} suspect, ${v.invalid} invalid)${again ? `; ${again} more ${again === 1 ? 'try' : 'tries'} the lab could not carry, run again` : ''}`;
}

const sig = (x: number) => String(Number(x.toPrecision(3)));

/** A check's measured value in the unit its `expected` text uses (fidelity.ts, timingChecks.ts). */
const MEASURED_AS: Record<string, (x: number) => string> = {
  'packet-spacing': (x) => `${sig(x * 100)} %`,
  'delay-jitter': (x) => `${sig(x)} ms`,
  'idle-rtt': (x) => `${sig(x)} ms`,
  'bottleneck-rate': (x) => `${sig(x / 1e6)} Mbit/s`,
  'lab-cpu': (x) => `${sig(x)} %`,
  'flow-start': (x) => `${sig(x)} s late`,
  'cross-traffic': (x) => `${sig(x * 100)} %`,
};

/**
 * Why runs were not valid, one clause per kind of check: `packet spacing in 9 runs (measured
 * 81.7 % to 87 %; expected …)`. Empty for older runs.json files and presets whose runs were all valid.
 */
export function flaggedText(r: RunsInfo): string {
  return (r.flagged ?? [])
    .map((c) => {
      const runs = c.warn + c.fail;
      const how = c.fail ? ` (${c.fail} failed, ${c.warn} warned)` : '';
      const as = MEASURED_AS[c.check] ?? sig;
      const range =
        c.min === null || c.max === null
          ? ''
          : c.min === c.max
            ? `measured ${as(c.min)}; `
            : `measured ${as(c.min)} to ${as(c.max)}; `;
      return `${c.check.replace(/-/g, ' ')} in ${runs} ${runs === 1 ? 'run' : 'runs'}${how} (${range}expected ${c.expected})`;
    })
    .join('; ');
}

const tally = (m: Record<string, number>) =>
  Object.entries(m)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ×${n}`)
    .join(', ');

/**
 * Which lfnlab made the runs and which judged them: `run by lfnlab 0.1.0 (abc) ×21`, with `judged
 * again by …` when rejudge gave some of them their verdicts. Empty for older runs.json files.
 */
export function codeText(r: RunsInfo): string {
  if (!r.code) return '';
  const ran = tally(r.code.ranBy);
  const judged = tally(r.code.judgedBy);
  return `run by ${ran}${judged !== ran ? `; verdicts as judged by ${judged}` : ''}`;
}

/** Length, runs and verdicts, lab clock, wall time: the line under each preset in the summary. */
const runsLine = (r: RunsInfo) => {
  const code = codeText(r);
  return `${lengthText(r)} · ${runsText(r)} · lab clock: ${clockText(r) || 'unknown'} · wall time ${formatWallS(r.wallS)}${code ? ` · ${code}` : ''}`;
};

/** How a limit other than the network reads in "N of M flows by …". */
const HELD_BY: Record<Exclude<LimitKind, 'network'>, string> = {
  'congestion-control': 'their own congestion control (the link idle)',
  'receiver-window': 'their window',
  'send-buffer': 'their send buffer',
  sender: 'the lab (sender)',
};

/**
 * Flows that something other than the network held back (by the largest share of each flow's busy
 * time), per part where the preset has several: `manchester: 84 of 126 flows by their window`.
 * Empty when every flow was network-limited, and for runs.json files written before limits.
 */
export function heldText(r: RunsInfo): string {
  const parts = Object.entries(r.limits ?? {});
  return parts
    .flatMap(([part, byKind]) => {
      const total = Object.values(byKind).reduce((a, n) => a + (n ?? 0), 0);
      const held = Object.entries(byKind)
        .filter(([kind, n]) => kind !== 'network' && n)
        .sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0))
        .map(([kind, n]) => `${n} of ${total} flows by ${HELD_BY[kind as keyof typeof HELD_BY] ?? kind}`);
      return held.length ? [`${parts.length > 1 ? `${part}: ` : ''}${held.join(', ')}`] : [];
    })
    .join('; ');
}

/** A published preset's runs in one paragraph, why runs were not valid and what held flows back included. */
export function publishedRunsText(r: RunsInfo): string {
  const why = flaggedText(r);
  const held = heldText(r);
  return `${runsLine(r)}${why ? `. Not valid because of: ${why}` : ''}${held ? `. Held back by something other than the network: ${held}` : ''}`;
}

/** Tallies over every finding: holds / fails / inconclusive. */
export function verdictCounts(all: PublishedPreset[]): Record<'holds' | 'fails' | 'inconclusive', number> {
  const c = { holds: 0, fails: 0, inconclusive: 0 };
  for (const p of all) for (const f of p.comparison.findings) c[verdictOf(f)]++;
  return c;
}

/** The header's count: "5 presets published; … . 10 not reproduced yet (about 110 h of lab wall time left on one lab, 55 h on two at once)." */
function countsText(all: PublishedPreset[], pending: readonly PendingPreset[]): string {
  const counts = verdictCounts(all);
  const head = `${all.length} presets published; findings: ${counts.holds} hold, ${counts.fails} fail, ${counts.inconclusive} inconclusive.`;
  return pending.length
    ? `${head} ${pending.length} not reproduced yet (about ${formatWallS(pendingTotalS(pending))} of lab wall time left on one lab, ${formatWallS(pendingTotalS(pending) / 2)} on two at once).`
    : head;
}

const byPaper = (all: PublishedPreset[]) => {
  const m = new Map<string, PublishedPreset[]>();
  for (const p of all) m.set(p.comparison.paper, [...(m.get(p.comparison.paper) ?? []), p]);
  return m;
};

export function renderResultsSummaryHtml(
  all: PublishedPreset[],
  pending: readonly PendingPreset[] = [],
): string {
  const sections = [...byPaper(all)].map(([paper, presets]) => {
    const blocks = presets.map(({ comparison: c, runs: r, explanations }) => {
      const why = flaggedText(r);
      const held = heldText(r);
      const rows = c.findings.map((f) => {
        const v = verdictOf(f);
        const tested = explanations
          .filter((e) => e.finding === f.id)
          .map(
            (e) =>
              `<br><strong>Tested:</strong> ${esc(e.hypothesis)} <span class="aside">(${esc(e.experiment)})</span> <strong>Answer:</strong> ${esc(e.answer)}`,
          )
          .join('');
        return [
          verdictBadge(v),
          `${esc(f.text)}<br><span class="aside">${esc(f.ref)}</span>`,
          `${esc(f.sentence)}${tested}`,
          esc(testCell(f.test, r)),
        ];
      });
      return [
        `<h3><a href="${esc(c.preset)}/comparison.html">${esc(c.preset)}</a></h3>`,
        `<p class="aside">${esc(runsLine(r))}${r.measuredAt ? ` · measured ${esc(r.measuredAt.slice(0, 10))}` : ''}</p>`,
        why ? `<p class="aside">Not valid because of: ${esc(why)}</p>` : '',
        held ? `<p class="aside">Held back by something other than the network: ${esc(held)}</p>` : '',
        rows.length
          ? table(
              `${c.preset}: findings`,
              ['verdict', 'the paper found', 'ours vs the paper', 'test, n'],
              rows,
            )
          : '<p>No finding to check.</p>',
      ].join('\n');
    });
    return `<h2>${esc(paper)}</h2>\n${blocks.join('\n')}`;
  });
  const body = [
    '<h1>The papers reproduced: findings checked in the lab</h1>',
    `<p>${esc(countsText(all, pending))} A finding holds or fails only when its test decides at 95 % confidence with at least 3 runs per cell; each preset's page has the numbers.</p>`,
    ...sections,
    ...pendingHtml(pending),
  ].join('\n');
  return page({ title: 'lfnlab: the papers reproduced', body });
}

/**
 * The "test, n" cell: the test, n per cell, the variants and runs behind it, and for an inconclusive
 * finding what deciding it would cost at this preset's pace (its runs' wall time, one lab).
 */
function testCell(t: VerdictTest | undefined, r: RunsInfo): string {
  if (!t) return '—';
  const basis = basisText(t);
  const more = runsToDecideText(t);
  const perRun = r.runs.completed ? r.wallS / r.runs.completed : 0;
  const wall = more && perRun ? ` (~${formatWallS((t.runsToDecide as number) * perRun)} on one lab)` : '';
  return `${t.name}; ${nText(t)}${basis ? ` (${basis})` : ''}${more ? `; ${more}${wall}` : ''}`;
}

export function renderResultsSummaryMarkdown(
  all: PublishedPreset[],
  pending: readonly PendingPreset[] = [],
): string {
  const out = [
    '# The papers reproduced',
    '',
    countsText(all, pending),
    'Written by `lfnlab preset publish` and `lfnlab preset summary`; do not edit by hand. [The same as a page](index.html).',
    '',
  ];
  for (const [paper, presets] of byPaper(all)) {
    out.push(`## ${paper}`, '');
    for (const { comparison: c, runs: r, explanations } of presets) {
      const why = flaggedText(r);
      const held = heldText(r);
      out.push(
        `### [${c.preset}](${c.preset}/comparison.html)`,
        '',
        runsLine(r),
        '',
        ...(why ? [`Not valid because of: ${why}`, ''] : []),
        ...(held ? [`Held back by something other than the network: ${held}`, ''] : []),
        '| verdict | the paper found | ours vs the paper | test, n |',
        '| --- | --- | --- | --- |',
        ...c.findings.map(
          (f) =>
            `| **${verdictOf(f)}** | ${mdCell(f.text)} (${mdCell(f.ref)}) | ${mdCell(
              [
                f.sentence,
                ...explanations
                  .filter((e) => e.finding === f.id)
                  .map((e) => `Tested: ${e.hypothesis} (${e.experiment}). Answer: ${e.answer}`),
              ].join(' '),
            )} | ${mdCell(testCell(f.test, r))} |`,
        ),
        '',
      );
    }
  }
  out.push(...pendingMarkdown(pending));
  return `${out.join('\n')}\n`;
}
