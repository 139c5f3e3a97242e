// Whether a run's results can be trusted: the verdict banner and the table of fidelity checks, kept
// apart so the run report's layout does not bury how each measured value is read.
import { movedMetricsText } from '@lfnlab/metrics';
import { esc, fixed, int, isNum, num } from './format.js';
import type { RunData } from './load.js';
import { badge, table } from './page.js';

const VERDICT_TEXT: Record<string, string> = {
  valid: 'VALID: the emulated link did what the spec said',
  suspect: 'SUSPECT: some fidelity checks warned; read the reasons before using these results',
  invalid: 'INVALID RUN: the emulated link did not do what the spec said; do not use these results',
};

export function verdictBanner(run: RunData): string {
  const s = run.summary;
  const v = s.verdict ?? s.fidelity?.verdict ?? null;
  const reasons = s.fidelity?.reasons ?? [];
  const cls = v ?? 'unknown';
  const heading =
    v !== null
      ? (VERDICT_TEXT[v] ?? v)
      : 'NO VERDICT: the run stopped before the link could be checked; do not use these results';
  const statusLine =
    s.status !== 'completed'
      ? `<p><strong>Run ${esc(s.status)}</strong>${s.error ? `: ${esc(s.error)}` : ''}</p>`
      : '';
  const list = reasons.length
    ? `<p>${reasons.length === 1 ? 'Reason' : 'Reasons'}:</p><ul class="reasons">${reasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>`
    : v === 'valid'
      ? '<p>Every fidelity check passed or was skipped for lack of data.</p>'
      : '';
  return `<section class="verdict ${esc(cls)}" id="verdict" role="${v === 'invalid' || v === null ? 'alert' : 'status'}" aria-label="Fidelity verdict">
<h2>Fidelity verdict: ${esc(heading)}</h2>${statusLine}${list}</section>`;
}

/** A check's measured value with the unit its id implies (see run/fidelity.ts). */
export function measuredText(id: string, m: number | null): string {
  if (m === null || !isNum(m)) return '—';
  if (id.startsWith('bottleneck-rate:')) return `${num(m / 1e6, 4)} Mbit/s`;
  if (id.startsWith('idle-rtt:')) return `${fixed(m, 2)} ms`;
  if (id === 'lab-cpu') return `${fixed(m, 1)} %`;
  if (id.startsWith('sampler:')) return `${fixed(m * 100, 1)} % kept`;
  if (id.startsWith('delay-loss:'))
    return Number.isInteger(m) ? `${int(m)} drops` : `${num(m * 100, 3)} % lost`;
  if (id === 'hidden-drops') return `${int(m)} drops`;
  if (id === 'flow-start') return `${fixed(m, 2)} s late`;
  if (id.startsWith('cross-traffic:')) return `${fixed(m * 100, 2)} % of its pattern`;
  return num(m, 4);
}

export function fidelitySection(run: RunData): string {
  const f = run.summary.fidelity;
  if (!f) return '<p>No fidelity report: the run ended before its checks ran.</p>';
  const rows = f.checks.map((c) => [
    `<code>${esc(c.id)}</code>`,
    badge(c.status),
    esc(c.message),
    `<td class="num">${esc(measuredText(c.id, c.measured))}</td>`,
    esc(c.expected),
  ]);
  const counts = ['fail', 'warn', 'pass', 'skip']
    .map((st) => `${f.checks.filter((c) => c.status === st).length} ${st}`)
    .join(', ');
  const rejudged = (run.summary.rejudged ?? [])
    .map(
      (n) =>
        `<p class="aside">Judged again ${esc(n.at.slice(0, 10))} by ${esc(n.by)}: it was ${esc(n.previousVerdict ?? 'not judged')}; ${esc(n.changed.map((c) => `${c.id} ${c.before ?? 'absent'} → ${c.after ?? 'absent'}`).join('; ') || 'no check changed')}${n.metricsChanged?.length ? `; metrics computed again from the samples, these moved or are new: ${esc(movedMetricsText(n.metricsChanged))}` : ''}.</p>`,
    )
    .join('\n');
  return `<p>${esc(f.checks.length)} checks: ${esc(counts)}. Any failed check makes a run invalid, any warning suspect.</p>${rejudged}
${table('Fidelity checks: what was measured against what the spec asked for', ['Check', 'Status', 'Finding', 'Measured', 'Expected'], rows)}`;
}
