// A finding's verdict as the comparison decided it: the word first (holds / fails / inconclusive;
// the colour only repeats it), then the test that decided it, what it found, and the runs per cell (n).
import { basisText, ciMethodText, nText, pText, type VerdictTest, verdictOf } from '@lfnlab/presets/verdict';
import { VERDICT_COLORS } from '@lfnlab/report/palette';
import { Badge, Group, Text } from '@mantine/core';
import type { PresetFinding } from '../api/types';
import { fmt } from '../lib/format';

/** An interval end; JSON carries an unbounded one as null. */
const end = (x: number | null | undefined, side: 'low' | 'high') =>
  x === null || x === undefined ? (side === 'low' ? '−∞' : '∞') : fmt(x);

/**
 * What the test found: "95 % CI 0.31 to 0.42 (paired by seed), t on 2 df", "share 0.73 to 0.91 (1 of 11
 * undecided)", "τ = 0.62, p = 0.0031 (α = 0.05)", "variance × 1.71 for values sharing a run",
 * "about 8 repetitions would decide it (60 more runs)".
 */
export function testNumbers(t: VerdictTest): string {
  const parts: string[] = [];
  if (t.ci?.units !== undefined)
    parts.push(
      `share ${end(t.ci.low, 'low')} to ${end(t.ci.high, 'high')} (${t.ci.undecided ?? 0} of ${t.ci.units} undecided)`,
    );
  else if (t.ci)
    parts.push(
      `${fmt(t.ci.level * 100)} % CI ${end(t.ci.low, 'low')} to ${end(t.ci.high, 'high')}${t.ci.paired ? ' (paired by seed)' : ''}${ciMethodText(t.ci)}`,
    );
  if (t.tau !== null && t.tau !== undefined) parts.push(`τ = ${fmt(t.tau)}`);
  if (t.p !== null && t.p !== undefined)
    parts.push(`${pText(t.p)}${t.alpha !== undefined ? ` (α = ${fmt(t.alpha)})` : ''}`);
  if (t.designEffect) parts.push(`variance × ${t.designEffect.toFixed(2)} for values sharing a run`);
  if (t.repetitionsToDecide !== undefined)
    parts.push(
      t.repetitionsToDecide === null
        ? 'not decided within 100 repetitions at this spread'
        : `about ${t.repetitionsToDecide} repetitions would decide it${t.runsToDecide ? ` (${t.runsToDecide} more runs)` : ''}`,
    );
  return parts.join(', ');
}

/** The variants a finding's averages left out because the lab could not carry them; "" for none. */
export function leftOutText(t: VerdictTest): string {
  if (!t.leftOut?.length) return '';
  const named = t.leftOut.map((v) => `${v.label} (${v.usable} of ${v.tried} runs usable)`).join('; ');
  return `Left out of the averages, the lab could not carry them: ${named}.`;
}

export function FindingVerdict({ finding }: { finding: PresetFinding }) {
  const verdict = verdictOf(finding);
  const t = finding.test;
  return (
    <Group gap={6} wrap="nowrap" align="flex-start" data-testid={`finding-${finding.id}`}>
      <Badge
        size="sm"
        variant={verdict === 'inconclusive' ? 'outline' : 'filled'}
        color={VERDICT_COLORS[verdict]}
        autoContrast
        style={{ flexShrink: 0 }}
      >
        {verdict}
      </Badge>
      <Text size="xs">
        {finding.text}
        {t && (
          <Text span size="xs" c="dimmed">
            {' '}
            ({t.name}
            {testNumbers(t) ? `: ${testNumbers(t)}` : ''}; {nText(t)}
            {basisText(t) ? ` (${basisText(t)})` : ''}
            {t.deterministic ? ', closed-form' : ''}){leftOutText(t) ? ` ${leftOutText(t)}` : ''}
          </Text>
        )}
      </Text>
    </Group>
  );
}
