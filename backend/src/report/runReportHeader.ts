// The top of a run report: what ran, where and when, with the fidelity verdict right under the title.
// fmtDate lives here because the header is where dates first appear; the footer reuses it.
import type { CodeIdentity } from '../run/codeVersion.js';
import { esc, int, num } from './format.js';
import { type RunData, runStarted, trafficStart } from './load.js';
import { badge } from './page.js';
import { verdictBanner } from './runReportFidelity.js';

export const fmtDate = (d: Date | null) =>
  d
    ? `${d
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, '')} UTC`
    : '—';

/** The code that ran and judged the run; older records did not note it. */
function lfnlabCell(id: Partial<CodeIdentity> | undefined): string {
  if (!id?.version)
    return '<span class="note">not recorded (a run from before lfnlab noted its own version)</span>';
  const commit = id.commit
    ? ` <code>${esc(id.commit)}</code>${id.modified ? ' <span class="note">(with uncommitted changes)</span>' : ''}`
    : '';
  return `${esc(id.version)}${commit}`;
}

export function header(run: RunData, label?: string): string {
  const s = run.summary;
  const env = run.environment;
  const kernel = env?.image?.kernel;
  const started = runStarted(run);
  const t0 = trafficStart(run);
  const items: [string, string][] = [
    ['Run', esc(s.name)],
    ['Date', esc(fmtDate(started))],
    ['Traffic start (t = 0)', esc(fmtDate(t0))],
    ['Status', badge(s.status)],
    ['Seed', esc(s.seed ?? env?.seed ?? '—')],
    [
      'Kernel',
      kernel
        ? `${esc(kernel.abi ?? '—')}${kernel.version ? ` <span class="note">(${esc(kernel.package ?? 'linux-image')} ${esc(kernel.version)}${kernel.hz ? `, HZ=${esc(kernel.hz)}` : ''})</span>` : ''}`
        : '—',
    ],
    [
      'Lab accelerator',
      env?.lab?.accel
        ? `${esc(env.lab.accel.toUpperCase())}${env.lab.accel === 'tcg' ? ' <span class="note">(software emulation, no KVM)</span>' : ''}${env.lab.cpus ? `, ${esc(env.lab.cpus)} vCPU` : ''}${env.lab.memMb ? `, ${esc(env.lab.memMb)} MiB` : ''}`
        : '—',
    ],
    [
      'Lab clock',
      s.clock
        ? `${esc(s.clock.mode)}${s.clock.mode === 'dilated' ? ' <span class="note">(qemu\'s instruction counter drives lab time: timers exact, wall time stretched)</span>' : ''}: ${num(s.clock.guestS, 3)} s of lab time in ${num(s.clock.wallS, 3)} s of wall time${s.clock.dilation ? ` (${num(s.clock.dilation, 3)} lab s per wall s)` : ''}`
        : '—',
    ],
    ['Image id', `<code>${esc(env?.image?.id ?? env?.lab?.imageId ?? '—')}</code>`],
    ['lfnlab', lfnlabCell(env?.lfnlab)],
    [
      'Lab CPU',
      esc(env?.cpu?.model ? `${env.cpu.model}${env.cpu.mhz ? ` @ ${num(env.cpu.mhz, 4)} MHz` : ''}` : '—'),
    ],
    ['Samples', esc(s.samples !== undefined ? int(s.samples) : '—')],
    ['Directory', `<code>${esc(run.dir)}</code>`],
  ];
  return `<header>
<h1>Run report: ${esc(s.name)}${label ? `: ${esc(label)}` : ''}</h1>
${verdictBanner(run)}
<dl class="meta">${items.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>
</header>`;
}
