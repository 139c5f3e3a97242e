// A finding's verdict as the comparison decided it: the word first (holds / fails / inconclusive;
// the colour only repeats it), then the test that decided it and the runs per cell (n).
import { nText, verdictOf } from '@lfnlab/presets/verdict';
import { VERDICT_COLORS } from '@lfnlab/report/palette';
import { Badge, Group, Text } from '@mantine/core';
import type { PresetFinding } from '../api/types';

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
            ({t.name}; {nText(t)}
            {t.deterministic ? ', closed-form' : ''})
          </Text>
        )}
      </Text>
    </Group>
  );
}
