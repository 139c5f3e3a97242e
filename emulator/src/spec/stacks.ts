// TCP congestion-control stacks the lab kernel offers. The name is what TCP_CONGESTION takes and
// what `ss -ti` prints; the module is what the image loads at boot (built-ins have none).

export interface StackInfo {
  name: string;
  module: string | null;
  origin: 'mainline' | 'out-of-tree';
  family: 'loss' | 'delay' | 'hybrid' | 'model';
}

export const STACKS: readonly StackInfo[] = [
  { name: 'reno', module: null, origin: 'mainline', family: 'loss' },
  { name: 'cubic', module: null, origin: 'mainline', family: 'loss' },
  { name: 'bic', module: 'tcp_bic', origin: 'mainline', family: 'loss' },
  { name: 'htcp', module: 'tcp_htcp', origin: 'mainline', family: 'loss' },
  { name: 'highspeed', module: 'tcp_highspeed', origin: 'mainline', family: 'loss' },
  { name: 'scalable', module: 'tcp_scalable', origin: 'mainline', family: 'loss' },
  { name: 'vegas', module: 'tcp_vegas', origin: 'mainline', family: 'delay' },
  { name: 'lp', module: 'tcp_lp', origin: 'mainline', family: 'delay' },
  { name: 'westwood', module: 'tcp_westwood', origin: 'mainline', family: 'loss' },
  { name: 'hybla', module: 'tcp_hybla', origin: 'mainline', family: 'loss' },
  { name: 'illinois', module: 'tcp_illinois', origin: 'mainline', family: 'hybrid' },
  { name: 'yeah', module: 'tcp_yeah', origin: 'mainline', family: 'hybrid' },
  { name: 'veno', module: 'tcp_veno', origin: 'mainline', family: 'hybrid' },
  { name: 'nv', module: 'tcp_nv', origin: 'mainline', family: 'delay' },
  { name: 'cdg', module: 'tcp_cdg', origin: 'mainline', family: 'delay' },
  { name: 'dctcp', module: 'tcp_dctcp', origin: 'mainline', family: 'loss' },
  { name: 'bbr', module: 'tcp_bbr', origin: 'mainline', family: 'model' },
  // kernels/stacks: the seed papers' stacks that never reached mainline.
  { name: 'fast', module: 'tcp_fast', origin: 'out-of-tree', family: 'delay' },
  { name: 'hstcplp', module: 'tcp_hstcplp', origin: 'out-of-tree', family: 'hybrid' },
  { name: 'grid', module: 'tcp_grid', origin: 'out-of-tree', family: 'loss' },
];

export const MAINLINE_STACKS = STACKS.filter((s) => s.origin === 'mainline').map((s) => s.name);

export const STACK_NAMES = STACKS.map((s) => s.name) as [string, ...string[]];

export function stackModules(): string[] {
  return STACKS.flatMap((s) => (s.module ? [s.module] : []));
}
