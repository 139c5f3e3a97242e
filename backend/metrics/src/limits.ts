// What held a flow back, as every table names it: the kinds the run's limitedBy analysis (backend
// run/limitedBy.ts) assigns each busy second, and how the CLI, the reports and the web UI print them.
// Browser-safe: the web app imports this module on its own (@lfnlab/metrics/limits).

export type LimitKind = 'network' | 'congestion-control' | 'receiver-window' | 'send-buffer' | 'sender';
export const LIMIT_KINDS: LimitKind[] = [
  'network',
  'congestion-control',
  'receiver-window',
  'send-buffer',
  'sender',
];

export interface FlowLimit {
  /** The kind that held the flow for the largest share of its busy time. */
  limitedBy: LimitKind;
  /**
   * Share of the flow's busy time (data in flight) per kind; they sum to 1. Records written before
   * 'congestion-control' was told apart from 'network' lack that key (it was counted as network).
   */
  shares: Partial<Record<LimitKind, number>> & Record<Exclude<LimitKind, 'congestion-control'>, number>;
  /** Seconds with data in flight, as the kernel counted them. */
  busyS: number;
}

/** How each kind reads in a table. */
export const LIMIT_NAMES: Record<LimitKind, string> = {
  network: 'network',
  'congestion-control': 'congestion control',
  'receiver-window': 'receiver-window',
  'send-buffer': 'send-buffer',
  sender: 'sender (lab)',
};

/** How a flow's limit reads in a table: "network 97 %", "congestion control 71 %", "sender (lab) 64 %". */
export function formatLimit(l: FlowLimit | null | undefined): string {
  if (!l) return '-';
  return `${LIMIT_NAMES[l.limitedBy]} ${Math.round((l.shares[l.limitedBy] ?? 0) * 100)} %`;
}
