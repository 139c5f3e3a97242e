// What a kernel tree offers the lab: its stacks and qdiscs, built in or as modules.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface KernelInventory {
  release: string;
  hz: number | null;
  stacks: { name: string; module: string | null }[];
  qdiscs: { name: string; module: string | null }[];
}

const NOT_STACKS = new Set(['tcp_diag']);

export function readConfig(text: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of text.split('\n')) {
    const hit = /^(CONFIG_[A-Z0-9_]+)=(.*)$/.exec(line);
    if (hit?.[1]) m.set(hit[1], hit[2] ?? '');
  }
  return m;
}

export function inventoryFrom(release: string, configText: string, moduleFiles: string[]): KernelInventory {
  const cfg = readConfig(configText);
  const builtin = (prefix: string) =>
    [...cfg.entries()]
      .filter(([k, v]) => k.startsWith(prefix) && v === 'y')
      .map(([k]) => k.slice(prefix.length).toLowerCase());
  const mods = (dir: string, prefix: string) =>
    moduleFiles
      .filter((f) => f.startsWith(dir) && /\.ko(\.(xz|zst|gz))?$/.test(f))
      .map((f) => f.slice(dir.length).replace(/\.ko.*$/, ''))
      .filter((n) => n.startsWith(prefix) && !NOT_STACKS.has(n));
  const stacks = [
    { name: 'reno', module: null },
    ...builtin('CONFIG_TCP_CONG_')
      .filter((n) => n !== 'advanced')
      .map((name) => ({ name, module: null })),
    ...mods('kernel/net/ipv4/', 'tcp_').map((m) => ({ name: m.replace(/^tcp_/, ''), module: m })),
  ];
  const qdiscs = [
    ...builtin('CONFIG_NET_SCH_').map((name) => ({ name, module: null })),
    ...mods('kernel/net/sched/', 'sch_').map((m) => ({ name: m.replace(/^sch_/, ''), module: m })),
  ];
  const hz = cfg.get('CONFIG_HZ');
  return { release, hz: hz ? Number(hz) : null, stacks: dedupe(stacks), qdiscs: dedupe(qdiscs) };
}

const dedupe = <T extends { name: string }>(xs: T[]) =>
  [...new Map(xs.map((x) => [x.name, x])).values()].sort((a, b) => a.name.localeCompare(b.name));

function walk(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? walk(p, base) : [p.slice(base.length + 1)];
  });
}

export function kernelInventory(release: string, modulesDir: string, configPath: string): KernelInventory {
  return inventoryFrom(release, readFileSync(configPath, 'utf8'), walk(modulesDir));
}

/** The qdiscs the lab's plans use (emulator/src/plan): a kernel without one cannot run the lab. */
export const LAB_QDISCS = [
  'ingress',
  'netem',
  'prio',
  'htb',
  'tbf',
  'fq',
  'fq_codel',
  'codel',
  'red',
  'pie',
  'cake',
] as const;

export interface LabNeeds {
  stacks: readonly string[];
  qdiscs: readonly string[];
}

/** What the lab needs and the kernel lacks; empty lists when it has everything. */
export function missingForLab(inv: KernelInventory, needs: LabNeeds): { stacks: string[]; qdiscs: string[] } {
  const has = (xs: { name: string }[]) => new Set(xs.map((x) => x.name));
  const stacks = has(inv.stacks);
  const qdiscs = has(inv.qdiscs);
  return {
    stacks: needs.stacks.filter((s) => !stacks.has(s)),
    qdiscs: needs.qdiscs.filter((q) => !qdiscs.has(q)),
  };
}

/** Throws naming every stack and qdisc the lab needs that this kernel lacks (a vendor kernel, say). */
export function assertLabNeeds(inv: KernelInventory, needs: LabNeeds, kernel: string): void {
  const m = missingForLab(inv, needs);
  if (!m.stacks.length && !m.qdiscs.length) return;
  const parts = [
    m.stacks.length ? `congestion controls ${m.stacks.join(', ')} (CONFIG_TCP_CONG_*)` : '',
    m.qdiscs.length ? `qdiscs ${m.qdiscs.join(', ')} (CONFIG_NET_SCH_*)` : '',
  ].filter(Boolean);
  throw new Error(
    `kernel ${kernel} (${inv.release}) lacks what the lab needs: ${parts.join('; ')}. Build them in or as modules, or go back to the pinned kernel with 'lfnlab kernel use --pinned'`,
  );
}
