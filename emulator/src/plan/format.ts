// The dry run: the plan as the commands a person would type, in the order the lab runs them.
import type { Cmd, Plan } from './types.js';

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quote one argv element for display only; plans are never run through a shell. */
export const shellQuote = (arg: string) => (SAFE.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);
export const formatArgv = (argv: readonly string[]) => argv.map(shellQuote).join(' ');

function formatCmd(c: Cmd): string[] {
  const lines = c.comment ? [`# ${c.comment}`] : [];
  let line = formatArgv(c.argv);
  // Shown as a pipe for the reader; the lab feeds stdin directly, no shell.
  if (c.stdin !== undefined) line = `printf '%s\\n' ${shellQuote(c.stdin.trimEnd())} | ${line}`;
  if (c.until) line += `    # repeated until it succeeds, up to ${c.until.timeoutMs / 1000} s`;
  if (c.allowFail) line += '    # best effort';
  if (c.on === 'hosts') line += ONHOSTS;
  lines.push(line);
  return lines;
}

/** A wire's external hosts are the lab host's: their commands run there, not in the lab. */
const ONHOSTS = '    # on the lab host';
const bg = (p: { argv: string[]; on?: 'hosts' }) =>
  `${formatArgv(p.argv)} &${p.on === 'hosts' ? ONHOSTS : ''}`;

export function formatPlan(plan: Plan): string {
  const out: string[] = [`# lfnlab plan for '${plan.specName}' (seed ${plan.seed})`];
  if (plan.labKernelArgs?.length)
    out.push(
      `# the lab kernel boots with: ${plan.labKernelArgs.join(' ')} (load-time stack parameters; a lab booted without them is restarted)`,
    );
  for (const s of plan.setup) {
    out.push('', `# === ${s.title}`, ...s.cmds.flatMap(formatCmd));
  }
  out.push('', '# === idle RTT, before traffic');
  for (const r of plan.idleRtt) {
    out.push(...formatCmd(r.warmup), ...formatCmd(r.probe));
    if (r.calibrate) {
      out.push(
        `# calibration (${r.path}): the min RTT's excess over the configured RTT is the emulator's own delay;`,
        "# each direction's delay stage is changed to (RTT − excess)/2 with `tc qdisc change ... netem delay`,",
        '# then the probe runs again. Both measurements and the applied delay go in idle-rtt.json.',
      );
    }
  }
  out.push('', `# === samplers, running from before the first flow until after the last`);
  for (const p of plan.samplers) out.push(`# ${p.name}`, bg(p));
  out.push('', '# === traffic (t = seconds after the servers are listening)');
  for (const p of plan.servers) {
    out.push(`# ${p.name}`, bg(p));
    if (p.ready) out.push(...formatCmd(p.ready));
  }
  for (const p of [...plan.clients, ...plan.cross].sort((a, b) => a.at - b.at)) {
    out.push(`# t=${(p.at / 1000).toFixed(3)} ${p.name}`, bg(p));
  }
  if (plan.changes.length) {
    out.push('', '# === scheduled changes (an RTT change is also corrected by the calibration at run time)');
    for (const c of plan.changes)
      out.push(`# t=${(c.at / 1000).toFixed(3)} path ${c.path}`, ...c.cmds.flatMap(formatCmd));
  }
  out.push('', "# === while flows run: each socket's stack and state");
  for (const c of Object.values(plan.socketProbes)) out.push(...formatCmd(c));
  for (const s of plan.snapshot) out.push('', `# === record: ${s.title}`, ...s.cmds.flatMap(formatCmd));
  out.push(
    '',
    `# === ${plan.teardown.title} (always, also after a failure or a kill)`,
    ...plan.teardown.cmds.flatMap(formatCmd),
  );
  return `${out.join('\n')}\n`;
}
