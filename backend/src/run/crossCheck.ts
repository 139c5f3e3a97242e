// Cross traffic is part of the path a spec describes, so a run proves its UDP sources sent what
// their patterns asked for. Each generator closes with its own account (lfn-udpgen's `#end` line):
// the bytes it sent, the datagrams it dropped from its schedule when it fell more than its
// maximum lag behind (a busy lab), the sends the kernel refused, and the mean rate its pattern
// intended over the intervals it ran (for a self-similar source, the rate its own draws gave).
// The sink's side is not judged here: datagrams lost at the bottleneck are the network's doing.
import { parseUdpGenLine, type UdpGenEnd } from '@lfnlab/emulator';
import { grade } from './checkGrade.js';
import type { Check } from './fidelity.js';

/** Within this of the intended rate, and at most this share of the schedule missed, passes. */
const RATE_PASS = 0.01;
const MISSED_PASS = 0.001;
/** Up to these the run is suspect; beyond them the path was not the one the spec describes. */
const RATE_WARN = 0.05;
const MISSED_WARN = 0.01;

const EXPECTED = `the pattern's rate ± ${RATE_PASS * 100} %, at most ${MISSED_PASS * 100} % of its datagrams skipped or refused`;

/**
 * The generator's closing record in its output (raw stdout, stderr possibly appended); null without
 * one, or with one that does not parse (a cut-off line): either way its account is missing.
 */
export function generatorEnd(report: string): UdpGenEnd | null {
  const line = report.split('\n').find((l) => l.startsWith('#end\t'));
  if (!line) return null;
  try {
    const r = parseUdpGenLine(line);
    return r?.type === 'end' ? r : null;
  } catch {
    return null;
  }
}

/** One source's check, `cross-traffic:<source>`, from its generator's output (null: the generator left none). */
export function checkCrossTraffic(source: string, report: string | null): Check {
  const id = `cross-traffic:${source}`;
  const end = report === null ? null : generatorEnd(report);
  if (!end)
    return {
      id,
      status: 'fail',
      measured: null,
      expected: EXPECTED,
      message: `${source}: the UDP generator left no closing record, so what it sent is unknown`,
    };
  const seconds = end.elapsedMs / 1000;
  if (end.reason !== 'duration')
    return {
      id,
      status: 'fail',
      measured: null,
      expected: EXPECTED,
      message: `${source}: the UDP generator stopped early (${end.reason}) after ${seconds.toFixed(1)} s`,
    };
  const sentBps = seconds > 0 ? (end.ipBytes * 8) / seconds : 0;
  const ratio =
    end.intendedBps > 0 ? sentBps / end.intendedBps : sentBps === 0 ? 1 : Number.POSITIVE_INFINITY;
  const scheduled = end.sent + end.skipped + end.errors;
  const missed = scheduled > 0 ? (end.skipped + end.errors) / scheduled : 0;
  const off = Math.abs(ratio - 1);
  const status = grade(off <= RATE_PASS && missed <= MISSED_PASS, off <= RATE_WARN && missed <= MISSED_WARN);
  const mbps = (bps: number) => (bps / 1e6).toFixed(3);
  return {
    id,
    status,
    measured: ratio,
    expected: EXPECTED,
    message:
      `${source}: sent ${mbps(sentBps)} Mbit/s of the ${mbps(end.intendedBps)} Mbit/s its pattern asked for over ` +
      `${seconds.toFixed(1)} s (${(ratio * 100).toFixed(2)} %); ${end.skipped} of ${scheduled} datagrams skipped, ` +
      `${end.errors} refused, ${end.late} late by at most ${end.maxLateMs.toFixed(1)} ms`,
  };
}
