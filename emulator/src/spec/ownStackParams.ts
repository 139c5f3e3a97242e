// The constants of the lab's own modules (kernels/stacks/*/tcp_*.c), read from their sources: what
// each means and whether an experiment may set it, as stackParamCatalog.ts records mainline's.

import { fixed, flag, I31, live, type StackParams } from './stackParamEntry.js';

/** Per stack name of our own modules (STACKS): its parameters. */
export const OWN_STACK_PARAMS: Readonly<Record<string, StackParams>> = {
  fast: {
    module: 'tcp_fast',
    params: [
      live(
        'alpha',
        100,
        'packets',
        'window',
        [1, 65536],
        'packets the flow keeps queued in the path (FAST α)',
      ),
      live('gamma_pct', 50, 'ratio', 'ratio', [1, 100], 'FAST γ, percent', 100),
      flag('pacing', 1, 'new sockets ask for pacing (1) or not (0)'),
      flag('startup', 1, 'exponential start-up until queueing appears (1) or naive FAST (0)'),
    ],
  },
  hstcplp: {
    module: 'tcp_hstcplp',
    params: [
      flag('lp_enable', 1, "TCP-LP's early congestion inference on (1) or plain HighSpeed TCP (0)"),
      fixed(
        'hs_low_window',
        38,
        'packets',
        'window',
        'HighSpeed response above this window (Reno below)',
        'none',
        undefined,
        'hs_window_pct',
      ),
      fixed(
        'hs_high_window',
        83000,
        'packets',
        'window',
        'top of the HighSpeed response function',
        'none',
        undefined,
        'hs_window_pct',
      ),
      live(
        'hs_window_pct',
        100,
        'ratio',
        'ratio',
        [1, 100],
        "the table's window column scaled to this percent (100·k keeps it at 1/k of the rate)",
        100,
      ),
      live('delta_pct', 15, 'ratio', 'ratio', [1, 100], 'TCP-LP threshold, percent of d_max − d_min', 100),
      live('itt_rtts', 3, 'RTTs', 'time', [1, 1000], 'inference time-out in smoothed RTTs'),
      live(
        'min_spread_ms',
        5,
        'ms',
        'time',
        [0, 10_000],
        'smallest d_max − d_min before the delay inference acts',
      ),
      live(
        'min_threshold_us',
        0,
        'us',
        'time',
        [0, 1_000_000],
        'least threshold above d_min, µs, whatever delta_pct gives (0 = as published; 2000 = two 1 ms timestamp ticks)',
      ),
      live(
        'owd_newest',
        0,
        'ratio',
        'ratio',
        [0, 1],
        'time each one-way delay from the newest segment an ACK covers (1) or from its TSecr (0)',
      ),
    ],
  },
  grid: {
    module: 'tcp_grid',
    params: [
      live('loss_thresh', 2, 'packets', 'window', [1, 65535], 'losses in one window that mean congestion'),
      live(
        'link_mbps',
        0,
        'Mbit/s',
        'rate',
        [0, 100_000],
        'capacity C; 0 = the largest delivery rate measured',
      ),
      live(
        'greedy_ms',
        600_000,
        'ms',
        'time',
        [0, I31],
        'TCP greedy timer: time held at a level before probing',
      ),
      flag('probe_mode', 0, 'increase after the greedy timer: +1 packet per RTT (0) or eq. (20) (1)'),
    ],
  },
};
