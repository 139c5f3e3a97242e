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
