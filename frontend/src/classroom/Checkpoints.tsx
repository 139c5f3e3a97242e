// A sheet's checkpoints with the grade of each: a word for the outcome (never colour alone) and
// the numbers the check compared, so a student sees why.
import { Badge, Group, List, Stack, Text } from '@mantine/core';
import type { CheckpointGrade, Sheet } from './api';

const OUTCOME = (g: CheckpointGrade | undefined) =>
  !g || g.passed === null
    ? { label: 'not measurable', color: 'gray' }
    : g.passed
      ? { label: 'passed', color: 'blue' }
      : { label: 'not passed', color: 'orange' };

export function Checkpoints({ sheet, grades }: { sheet: Sheet; grades: CheckpointGrade[] | null }) {
  return (
    <List spacing="xs" listStyleType="none" ml={0} pl={0} data-testid="checkpoints">
      {sheet.checkpoints.map((c) => {
        const g = grades?.find((x) => x.id === c.id);
        const o = OUTCOME(g);
        return (
          <List.Item key={c.id}>
            <Stack gap={2}>
              <Group gap="xs" wrap="wrap">
                {grades && (
                  <Badge color={o.color} variant={o.label === 'passed' ? 'filled' : 'light'} size="sm">
                    {o.label}
                  </Badge>
                )}
                <Text size="sm" fw={500}>
                  {c.text}
                </Text>
                <Text size="xs" c="dimmed">
                  ({c.points} {c.points === 1 ? 'point' : 'points'})
                </Text>
              </Group>
              <Text size="xs" ff="monospace" c="dimmed">
                {c.check}
              </Text>
              {g?.detail && (
                <Text size="xs" data-testid={`checkpoint-${c.id}-detail`}>
                  {g.detail}
                </Text>
              )}
            </Stack>
          </List.Item>
        );
      })}
    </List>
  );
}
