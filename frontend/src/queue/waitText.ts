// A queued run's place in words: "3rd in line, 2 runs ahead, starts in about 4 min (17:42)".
import type { QueueSpot } from '../api/types';
import { fmtDuration } from '../lib/format';

const ordinal = (n: number) => {
  const t = n % 100;
  if (t >= 11 && t <= 13) return `${n}th`;
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
};

export function aheadText(ahead: number): string {
  return ahead === 0 ? 'nothing ahead' : ahead === 1 ? '1 run ahead' : `${ahead} runs ahead`;
}

export function clockTime(iso: string): string {
  return new Date(iso).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
}

export function waitText(q: QueueSpot): string {
  const when =
    q.estimatedWaitS < 5
      ? 'starts any moment'
      : `starts in about ${fmtDuration(roundWait(q.estimatedWaitS))} (${clockTime(q.estimatedStartAt)})`;
  return `${ordinal(q.position)} in line, ${aheadText(q.ahead)}; ${when}`;
}

/** Estimates are rough: whole minutes past 2 min, 10 s steps below. */
const roundWait = (s: number) => (s >= 120 ? Math.round(s / 60) * 60 : Math.max(10, Math.round(s / 10) * 10));
