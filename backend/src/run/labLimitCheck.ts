// The verdict's view of limitedBy.ts: a flow held back by the lab (its sender could not keep up
// while the bottleneck idled) measured the emulator, not the stack. Suspect when that held for a
// fifth of the flow's busy time, invalid when for most of it.
import { type Check, type FidelityReport, verdictOf } from './fidelity.js';
import { type FlowLimit, LIMIT_NAMES, type LinkProof } from './limitedBy.js';

export const LAB_LIMITED_WARN = 0.2;
export const LAB_LIMITED_FAIL = 0.5;

export function labLimitChecks(limits: Record<string, FlowLimit | null>): Check[] {
  return Object.entries(limits).flatMap(([flow, l]): Check[] => {
    if (!l) return [];
    const share = l.shares.sender;
    const pct = (share * 100).toFixed(0);
    return [
      {
        id: `lab-limited:${flow}`,
        status: share >= LAB_LIMITED_FAIL ? 'fail' : share >= LAB_LIMITED_WARN ? 'warn' : 'pass',
        measured: share,
        expected: `< ${LAB_LIMITED_WARN * 100} % of busy time limited by the lab`,
        message:
          share >= LAB_LIMITED_WARN
            ? `${flow}: limited by the sender (the lab) for ${pct} % of its busy time — the bottleneck delivered under its rate while the lab lagged (a queue the emulated link did not drain, or an idle link and a busy lab CPU), so the rate measures the emulator`
            : `${flow}: limited by the lab for ${pct} % of its busy time (mostly ${LIMIT_NAMES[l.limitedBy]})`,
      },
    ];
  });
}

/** The link's verdict with the flows' lab-limit checks added (worst status wins). */
export function withLabLimits(
  report: FidelityReport,
  limits: Record<string, FlowLimit | null>,
): FidelityReport {
  return verdictOf([...report.checks, ...labLimitChecks(limits)]);
}

/**
 * What the run's link checks proved per bottleneck direction, for telling a queue that came and
 * went from an emulated link that lagged (limitedBy.ts): exact packet timing, the rate kept.
 */
export function linkProofOf(report: FidelityReport | null) {
  return (path: string, direction: 'forward' | 'reverse'): LinkProof => {
    const passed = (check: string) =>
      report?.checks.find((c) => c.id === `${check}:${path}:${direction}`)?.status === 'pass';
    return { timing: passed('packet-spacing'), rate: passed('bottleneck-rate') };
  };
}
