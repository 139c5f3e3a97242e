// Which kernel modules the image carries: what the lab uses plus their dependencies, not the
// 390 MB of GPU, sound and NIC drivers a VM never loads.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Module paths (relative to lib/modules/ABI) the image wants, before dependencies. */
export const WANTED: RegExp[] = [
  /^kernel\/net\/ipv4\/tcp_[a-z0-9]+\.ko/, // every congestion-control stack, and tcp_diag for ss -ti
  /^kernel\/net\/ipv4\/(inet|udp|raw)_diag\.ko/,
  /^kernel\/net\/sched\/(sch|cls|act)_[a-z0-9_]+\.ko/, // qdiscs, classifiers, actions
  /^kernel\/drivers\/net\/(veth|ifb|dummy)\.ko/,
  /^kernel\/drivers\/virtio\/[a-z_]+\.ko/,
  /^kernel\/drivers\/char\/virtio_console\.ko/,
  /^kernel\/drivers\/firmware\/qemu_fw_cfg\.ko/,
  // Network ports for a lab PC booted from the ISO (its control channel) and for the lab as a
  // bump in the wire: virtio under qemu, and the common wired NICs of PCs and servers. Loaded by
  // the device's modalias only when the image is a lab PC, never at a qemu lab's boot.
  /^kernel\/drivers\/net\/virtio_net\.ko/,
  /^kernel\/net\/bridge\/bridge\.ko/, // the wire: the router bridges its two ports
  /^kernel\/drivers\/net\/ethernet\/intel\/(e1000|e1000e|igb|igc|ixgbe|i40e)\/\1\.ko/,
  /^kernel\/drivers\/net\/ethernet\/(realtek\/r8169|broadcom\/tg3|broadcom\/bnxt\/bnxt_en|aquantia\/atlantic\/atlantic)\.ko/,
  /^extra\/.+\.ko/, // out-of-tree stacks built against this kernel
];

/** Connection tracking pulls in all of netfilter; only act_ct and act_ctinfo need it. */
export const UNWANTED: RegExp[] = [
  /^kernel\/net\/sched\/act_ct(info)?\.ko/,
  /^kernel\/net\/sched\/act_ipt\.ko/,
];

export function parseModulesDep(text: string): Map<string, string[]> {
  const deps = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const [mod, rest] = line.split(':');
    if (mod && rest !== undefined) deps.set(mod.trim(), rest.trim().split(/\s+/).filter(Boolean));
  }
  return deps;
}

/** The wanted modules and everything they depend on, sorted. */
export function moduleClosure(deps: Map<string, string[]>, extra: string[] = []): string[] {
  const keep = new Set<string>();
  const visit = (m: string) => {
    if (keep.has(m)) return;
    keep.add(m);
    for (const d of deps.get(m) ?? []) visit(d);
  };
  for (const m of [...deps.keys(), ...extra]) {
    if (WANTED.some((re) => re.test(m)) && !UNWANTED.some((re) => re.test(m))) visit(m);
  }
  return [...keep].sort();
}

export function readModuleClosure(modulesDir: string): string[] {
  return moduleClosure(parseModulesDep(readFileSync(join(modulesDir, 'modules.dep'), 'utf8')));
}

/** Module base name as modprobe and /proc/modules spell it. */
export const moduleName = (path: string) =>
  (path.split('/').pop() ?? '').replace(/\.ko.*$/, '').replace(/-/g, '_');

/**
 * Loaded at boot, in this order, so a missing one shows in the boot report instead of as a
 * failed run: the stacks, the socket diagnostics, and what the dumbbell is built from.
 */
export function bootModules(stackModules: string[], available: Set<string>): string[] {
  const base = [
    'veth',
    'ifb',
    'sch_ingress',
    'sch_netem',
    'sch_prio',
    'sch_htb',
    'sch_tbf',
    'sch_fq',
    'sch_fq_codel',
    'cls_matchall',
    'cls_u32',
    'act_mirred',
    'inet_diag',
    'tcp_diag',
    'udp_diag',
  ];
  return [...new Set([...stackModules, ...base])].filter((m) => available.has(m));
}
