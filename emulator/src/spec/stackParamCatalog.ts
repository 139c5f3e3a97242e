// The constants of each stack (stacks.ts) that decide its dynamics, read from the sources the lab
// runs: mainline net/ipv4/tcp_*.c of the pinned 6.1 kernel and our kernels/stacks/*/tcp_*.c.
// Scaling a paper's rate by k with the RTT kept divides every window in packets by k, so what
// matters is each constant's dimension:
//   window: counted in packets (or bytes); sits elsewhere relative to the window unless scaled by k
//   rate:   a capacity; scales with k like the link
//   time:   ms/s/RTTs; kept when the RTT is kept, but not relative to a congestion epoch (∝ window)
//   ratio:  dimensionless; unchanged by any scaling
// `sysfs` says whether /sys/module/<module>/parameters/<name> exists and writing it changes running
// sockets: 'live' (the spec may set it, stackParams), 'load' (read once when the module loads; the
// lab's modules stay loaded), 'hidden' (a module parameter with permission 0: no sysfs file),
// 'none' (a compile-time constant). A 'load' parameter marked `boot` is settable all the same: the
// lab kernel takes it on its command line (module.param=value) and the lab boots with it.

import { OWN_STACK_PARAMS } from './ownStackParams.js';
import { atBoot, fixed, I31, live, type StackParam, type StackParams } from './stackParamEntry.js';
import { addedStacks, type DeclaredParam } from './stacks.js';

export type { ParamDimension, ParamUnit, StackParam, StackParams } from './stackParamEntry.js';

/** Per mainline stack name (STACKS): its parameters. */
const MAINLINE_STACK_PARAMS: Readonly<Record<string, StackParams>> = {
  reno: { module: null, params: [] },
  cubic: {
    module: 'tcp_cubic',
    params: [
      // Built in (Debian's 6.1 has CONFIG_TCP_CONG_CUBIC=y): tcp_cubic.bic_scale= on the kernel's
      // command line reaches it before its init turns it into cube_factor.
      atBoot(
        'bic_scale',
        41,
        'packets',
        'window',
        [1, 1024],
        'C = bic_scale·10/1024 packets/s³ (0.4); K = ∛(W·(1−β)/C), so K shrinks by ∛k when W does unless C is scaled by k too. Read once at boot: the lab boots with it',
      ),
      live('beta', 717, 'ratio', 'ratio', [1, 1023], 'window kept on loss, /1024 (0.7)', 1024),
      live('hystart_low_window', 16, 'packets', 'window', [0, 65535], 'HyStart acts only above this window'),
      live(
        'hystart_ack_delta_us',
        2000,
        'us',
        'time',
        [0, 1_000_000],
        'HyStart ACK-train spacing that ends slow start',
      ),
    ],
  },
  bic: {
    module: 'tcp_bic',
    params: [
      live(
        'low_window',
        14,
        'packets',
        'window',
        [0, 65535],
        'below this window BIC grows and backs off like Reno',
      ),
      live(
        'max_increment',
        16,
        'packets',
        'window',
        [1, 65535],
        'largest step per RTT of the binary search (Smax)',
      ),
      live('smooth_part', 20, 'RTTs', 'time', [0, 65535], 'RTTs the search spends near the last maximum'),
      live('beta', 819, 'ratio', 'ratio', [1, 1023], 'window kept on loss, /1024 (0.8)', 1024),
    ],
  },
  htcp: {
    module: 'tcp_htcp',
    params: [
      fixed(
        'delta_l',
        1000,
        'ms',
        'time',
        'Δ_L: Reno-like growth for 1 s after a loss, then α rises with the time since it',
      ),
      fixed('rtt_ref', 100, 'ms', 'time', 'RTT scaling makes α proportional to RTT/100 ms (use_rtt_scaling)'),
      fixed('beta_min', 0.5, 'ratio', 'ratio', 'smallest window kept on loss (0.5)'),
      fixed('beta_max', 0.8, 'ratio', 'ratio', 'largest window kept on loss (0.8)'),
    ],
  },
  highspeed: {
    module: 'tcp_highspeed',
    params: [
      fixed(
        'low_window',
        38,
        'packets',
        'window',
        'first row of the RFC 3649 table: Reno below, HighSpeed above',
      ),
      fixed('high_window', 84035, 'packets', 'window', 'last row of the table (a = 73, b = 0.1)'),
    ],
  },
  scalable: {
    module: 'tcp_scalable',
    params: [
      fixed(
        'ai_cnt',
        100,
        'packets',
        'window',
        'one packet per min(W, 100) ACKed: Reno-like growth below 100 packets, +1 % per RTT above',
      ),
      fixed('md', 0.125, 'ratio', 'ratio', 'window given up on loss (1/8)'),
    ],
  },
  vegas: {
    module: 'tcp_vegas',
    params: [
      live('alpha', 2, 'packets', 'window', [0, 65535], 'grow while fewer than alpha packets are queued'),
      live('beta', 4, 'packets', 'window', [0, 65535], 'shrink while more than beta packets are queued'),
      live('gamma', 1, 'packets', 'window', [0, 65535], 'leave slow start once gamma packets are queued'),
    ],
  },
  lp: {
    module: 'tcp_lp',
    params: [
      fixed(
        'threshold',
        0.15,
        'ratio',
        'ratio',
        'early congestion when the one-way delay is 15 % of its range above the minimum',
      ),
      fixed(
        'inference',
        3,
        'RTTs',
        'time',
        'inference time-out, about 3 RTTs, during which a second indication sends the window to 1',
      ),
    ],
  },
  westwood: {
    module: 'tcp_westwood',
    params: [
      fixed('rtt_min', 50, 'ms', 'time', 'the bandwidth filter takes a sample at most every max(RTT, 50 ms)'),
    ],
  },
  hybla: {
    module: 'tcp_hybla',
    params: [live('rtt0', 25, 'ms', 'time', [1, 10_000], 'reference RTT: growth is scaled by (RTT/rtt0)²')],
  },
  illinois: {
    module: 'tcp_illinois',
    params: [
      fixed('win_thresh', 15, 'packets', 'window', 'below this window Illinois acts like Reno', 'hidden'),
      fixed('theta', 5, 'RTTs', 'time', 'RTTs of low delay before α goes to its maximum', 'hidden'),
    ],
  },
  yeah: {
    module: 'tcp_yeah',
    params: [
      fixed('alpha', 80, 'packets', 'window', 'most packets YeAH lets queue before it drains'),
      fixed('ai_cnt', 100, 'packets', 'window', "Scalable's increase in fast mode (see scalable.ai_cnt)"),
      fixed('phy', 8, 'ratio', 'ratio', 'slow mode once queueing delay exceeds baseRTT/8'),
      fixed('rho', 16, 'RTTs', 'time', 'RTTs of Reno mode before a loss counts as competition'),
    ],
  },
  veno: {
    module: 'tcp_veno',
    params: [
      fixed(
        'beta',
        3,
        'packets',
        'window',
        'backlog below which a loss counts as random (window kept at 4/5)',
      ),
    ],
  },
  nv: {
    module: 'tcp_nv',
    params: [
      live('nv_pad', 10, 'packets', 'window', [0, 65535], 'packets NV lets queue above the rate it measures'),
      fixed('nv_pad_buffer', 2, 'packets', 'window', 'no growth within this many packets of nv_pad'),
      live(
        'nv_min_cwnd',
        2,
        'packets',
        'window',
        [1, 65535],
        'NV does not cut the window below this without loss',
      ),
      live('nv_reset_period', 5, 's', 'time', [1, 3600], 'how often the minimum RTT is renewed'),
    ],
  },
  cdg: {
    module: 'tcp_cdg',
    params: [
      fixed('window', 8, 'RTTs', 'time', 'RTT samples in the delay-gradient moving average', 'load'),
      live(
        'backoff_beta',
        717,
        'ratio',
        'ratio',
        [1, 1023],
        'window kept on a delay backoff, /1024 (0.7)',
        1024,
      ),
    ],
  },
  dctcp: {
    module: 'tcp_dctcp',
    params: [
      live('dctcp_shift_g', 4, 'ratio', 'ratio', [0, 10], 'gain of the marked-fraction average, 1/2^g'),
      live('dctcp_alpha_on_init', 1024, 'ratio', 'ratio', [0, 1024], 'starting α, /1024', 1024),
    ],
  },
  bbr: {
    module: 'tcp_bbr',
    params: [
      fixed('cwnd_min_target', 4, 'packets', 'window', 'smallest window, also in ProbeRTT'),
      fixed('high_gain', 2.885, 'ratio', 'ratio', 'Startup pacing and window gain (2/ln 2)'),
      fixed('cwnd_gain', 2, 'ratio', 'ratio', 'window as a multiple of the estimated BDP'),
      fixed('min_rtt_win', 10, 's', 'time', 'lifetime of the min-RTT estimate before ProbeRTT'),
      fixed('probe_rtt_mode', 200, 'ms', 'time', 'time spent in ProbeRTT'),
      fixed('full_bw_thresh', 1.25, 'ratio', 'ratio', 'Startup ends when bandwidth grows less than 25 %…'),
      fixed('full_bw_cnt', 3, 'RTTs', 'time', '…for 3 rounds'),
    ],
  },
};

/** Per stack name (STACKS): its parameters. */
export const STACK_PARAMS: Readonly<Record<string, StackParams>> = {
  ...MAINLINE_STACK_PARAMS,
  ...OWN_STACK_PARAMS,
};

/** The range each module_param type holds (64-bit ones cut to what a JSON number keeps exact). */
const TYPE_RANGE: Record<string, [number, number]> = {
  bool: [0, 1],
  byte: [0, 255],
  short: [-32768, 32767],
  ushort: [0, 65535],
  int: [-(2 ** 31), I31],
  uint: [0, 2 ** 32 - 1],
  long: [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  ulong: [0, Number.MAX_SAFE_INTEGER],
};

/** An added stack's declared parameter as the catalog holds one: live, within its type's range. */
export function declaredParam(d: DeclaredParam): StackParam | null {
  const range = TYPE_RANGE[d.type];
  if (!range || d.default < range[0] || d.default > range[1]) return null;
  return {
    name: d.name,
    default: d.default,
    unit: "the module's units",
    dimension: 'unknown',
    sysfs: 'live',
    min: range[0],
    max: range[1],
    meaning: d.description ?? `module parameter ${d.name} (${d.type})`,
  };
}

/**
 * A stack's parameters: the catalog's for the lab's own stacks; for an added stack, the writable
 * ones its module declares (settable, as the author made them writable; their dimension unknown).
 */
export function stackParamsOf(stack: string): StackParams | undefined {
  if (Object.hasOwn(STACK_PARAMS, stack)) return STACK_PARAMS[stack];
  const added = addedStacks().find((s) => s.name === stack);
  if (!added?.module || !added.params?.length) return undefined;
  return { module: added.module, params: added.params.flatMap((d) => declaredParam(d) ?? []) };
}

/** Every stack, built in or added, that has parameters. */
export const paramStacks = (): string[] => [
  ...Object.keys(STACK_PARAMS),
  ...addedStacks().flatMap((s) => (stackParamsOf(s.name) ? [s.name] : [])),
];

/** The parameters a spec may set for a stack: sysfs 'live' ones, and load-time ones the lab boots with. */
export const settableParams = (stack: string): StackParam[] =>
  (stackParamsOf(stack)?.params ?? []).filter((p) => p.sysfs === 'live' || p.boot === true);

/** The lab kernel's command-line form of a load-time parameter: `tcp_cubic.bic_scale=7`. */
export const kernelParamArg = (module: string, name: string, value: number) => `${module}.${name}=${value}`;

/** A parameter's entry, or undefined (own keys only: `constructor` names no stack). */
export function stackParam(stack: string, name: string): StackParam | undefined {
  return stackParamsOf(stack)?.params.find((p) => p.name === name);
}

/** Where the kernel shows a module parameter. */
export const sysfsParamPath = (module: string, name: string) => `/sys/module/${module}/parameters/${name}`;
