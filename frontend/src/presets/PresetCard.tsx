// One paper preset: what the paper found, how it is scaled to the lab, its findings as decided on
// my newest results (or the committed ones) with what the lab cannot express, and "Run it" with a
// picker (part, variant, length), its cost and whether it fits my quota.
import { Badge, Card, Group, Spoiler, Stack, Text, Title } from '@mantine/core';
import type { Preset } from '../api/types';
import { PresetFindings } from './PresetFindings';
import { paperLabel, paperTitle, scalingRule } from './presetText';
import { RunPicker } from './RunPicker';

export function PresetCard({ preset }: { preset: Preset }) {
  const rule = scalingRule(preset);
  return (
    <Card
      withBorder
      radius="md"
      padding="md"
      data-testid={`preset-${preset.id}`}
      component="article"
      aria-labelledby={`preset-title-${preset.id}`}
    >
      <Stack gap="xs" h="100%">
        <Group justify="space-between" wrap="nowrap" align="flex-start">
          <Title order={3} size="sm" fw={700} lh={1.35} id={`preset-title-${preset.id}`}>
            {preset.title}
          </Title>
          <Badge variant="light" style={{ flexShrink: 0 }}>
            {preset.id}
          </Badge>
        </Group>
        <Text size="xs" c="dimmed">
          {paperLabel(preset)}
          {paperTitle(preset) ? ` — ${paperTitle(preset)}` : ''}
        </Text>
        <Text size="sm">
          <b>What the paper found: </b>
          {preset.finding}
        </Text>
        {rule && (
          <Spoiler
            maxHeight={0}
            showLabel="How it is scaled to the lab"
            hideLabel="Hide scaling"
            styles={{ control: { fontSize: 13 } }}
          >
            <Text size="xs">{rule}</Text>
          </Spoiler>
        )}
        <PresetFindings presetId={preset.id} />
        <RunPicker preset={preset} />
      </Stack>
    </Card>
  );
}
