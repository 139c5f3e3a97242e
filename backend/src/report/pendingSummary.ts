// The summary's section on presets not reproduced yet: what is left of each (runs kept, wall time
// left) and, for a reproduction under way, its findings judged provisionally on the runs kept so far.
import { formatWallS } from '../presets/cost.js';
import type { PendingPreset } from '../presets/pending.js';
import { nText, verdictOf } from '../presets/verdict.js';
import { esc } from './format.js';
import { mdCell, table, verdictBadge } from './page.js';

/** The presets not reproduced yet, one row each: preset, paper, claims, plan, kept, left, verdicts so far. */
const PENDING_HEAD = [
  'preset',
  'paper',
  'findings',
  'reproduction length',
  'runs kept',
  'wall time left',
  'provisional verdicts',
];

/** "2 hold, 1 fails, 2 inconclusive": a comparison's findings by verdict, or "none yet". */
function provisionalCounts(p: PendingPreset): string {
  if (!p.provisional) return 'none yet';
  const c = { holds: 0, fails: 0, inconclusive: 0 };
  for (const f of p.provisional.findings) c[verdictOf(f)]++;
  return `${c.holds} hold, ${c.fails} fail, ${c.inconclusive} inconclusive`;
}

function pendingRow(p: PendingPreset): string[] {
  const pace = p.paceMeasured
    ? "at its kept runs' pace"
    : 'at the pace a dilated lab keeps at its rates, on one lab';
  const left = `~${formatWallS(p.wallLeftS)} ${pace}${p.labs > 1 ? ` on ${p.labs} labs at once` : ''}`;
  return [
    p.preset,
    p.paper,
    String(p.claims),
    `${p.runs} runs (${p.seconds} s × ${p.repeat} repetitions per cell)`,
    `${p.done} of ${p.runs}`,
    p.done === p.runs ? 'none: compare and publish' : left,
    provisionalCounts(p),
  ];
}

/** Wall time left over every pending preset on one lab (each row's is on as many labs as it ran on). */
export const pendingTotalS = (pending: readonly PendingPreset[]) =>
  pending.reduce((a, p) => a + p.wallLeftS * p.labs, 0);

const PENDING_NOTE =
  'Their findings are not decided until they are published. A reproduction that spans sittings keeps each finished run in presets/results/PRESET/progress; `scripts/reproduce-presets.sh PRESET` resumes it.';

/** Why the provisional verdicts may still move: what they were judged on and what is missing. */
const provisionalNote = (p: PendingPreset) => {
  const rows = p.provisional?.rows;
  const left = rows?.excluded
    ? ` (${rows.excluded} of them left out: not completed or fidelity invalid)`
    : '';
  return `Judged by the published comparison's tests on the ${p.done} runs kept so far of ${p.runs}${left}. Cells not run yet are not measured, so these verdicts are provisional: they can move until every run is in.`;
};

/** One row per finding: verdict, the paper's claim, ours so far, the test and n. */
const provisionalRows = (p: PendingPreset) =>
  (p.provisional?.findings ?? []).map((f) => ({
    verdict: verdictOf(f),
    claim: f.text,
    ref: f.ref,
    ours: f.sentence,
    test: f.test ? `${f.test.name}; ${nText(f.test)}` : '—',
  }));

const FINDINGS_HEAD = ['verdict so far', 'the paper found', 'ours so far', 'test, n'];

export function pendingHtml(pending: readonly PendingPreset[]): string[] {
  if (!pending.length) return [];
  return [
    '<h2>Not reproduced yet</h2>',
    `<p class="aside">${esc(PENDING_NOTE).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>`,
    table(
      'presets not reproduced yet',
      PENDING_HEAD,
      pending.map((p) => pendingRow(p).map(esc)),
    ),
    ...pending
      .filter((p) => p.provisional)
      .flatMap((p) => [
        `<h3>${esc(p.preset)}, provisionally</h3>`,
        `<p class="aside">${esc(provisionalNote(p))}</p>`,
        table(
          `${p.preset}: provisional findings`,
          FINDINGS_HEAD,
          provisionalRows(p).map((r) => [
            verdictBadge(r.verdict),
            `${esc(r.claim)}<br><span class="aside">${esc(r.ref)}</span>`,
            esc(r.ours),
            esc(r.test),
          ]),
        ),
      ]),
  ];
}

export function pendingMarkdown(pending: readonly PendingPreset[]): string[] {
  if (!pending.length) return [];
  return [
    '## Not reproduced yet',
    '',
    PENDING_NOTE,
    '',
    `| ${PENDING_HEAD.join(' | ')} |`,
    `|${PENDING_HEAD.map(() => ' --- |').join('')}`,
    ...pending.map((p) => `| ${pendingRow(p).map(mdCell).join(' | ')} |`),
    '',
    ...pending
      .filter((p) => p.provisional)
      .flatMap((p) => [
        `### ${p.preset}, provisionally`,
        '',
        provisionalNote(p),
        '',
        `| ${FINDINGS_HEAD.join(' | ')} |`,
        `|${FINDINGS_HEAD.map(() => ' --- |').join('')}`,
        ...provisionalRows(p).map(
          (r) =>
            `| *${r.verdict}* | ${mdCell(r.claim)} (${mdCell(r.ref)}) | ${mdCell(r.ours)} | ${mdCell(r.test)} |`,
        ),
        '',
      ]),
  ];
}
