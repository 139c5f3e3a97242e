// One paper preset: what the paper found, how it is scaled to the lab, and a "run it" button
// (optionally shortened, as CI does, so a class can see it work in seconds).
import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  NumberInput,
  Select,
  Spoiler,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { useStartRun } from '../api/queries';
import type { Preset } from '../api/types';
import { navigate } from '../app/router';
import { stashDraft } from '../designer/specText';
import { FindingVerdicts } from './FindingVerdict';
import { paperLabel, paperTitle, scalingRule } from './presetText';

export function PresetCard({ preset }: { preset: Preset }) {
  const start = useStartRun();
  const [part, setPart] = useState<string | null>(preset.parts[0]?.name ?? null);
  const [shorten, setShorten] = useState<number | ''>(10);
  const rule = scalingRule(preset);
  const partText = preset.parts.find((p) => p.name === part)?.text;

  const run = () =>
    start.mutate(
      {
        preset: preset.id,
        ...(part && preset.parts.length > 1 ? { part } : {}),
        ...(shorten ? { shorten: Number(shorten) } : {}),
      },
      { onSuccess: (r) => navigate({ page: 'live', runId: r.id }) },
    );

  const openInDesigner = () => {
    if (!partText) return;
    stashDraft(partText);
    navigate({ page: 'designer' });
  };

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
        <FindingVerdicts findings={preset.findings} />
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
        <Group gap="xs" align="flex-end" mt="auto">
          {preset.parts.length > 1 && (
            <Select
              label="Part"
              size="xs"
              w={130}
              data={preset.parts.map((p) => p.name)}
              value={part}
              onChange={setPart}
              allowDeselect={false}
            />
          )}
          <NumberInput
            label="Shorten to (s)"
            description="empty = full length"
            size="xs"
            w={120}
            min={1}
            max={600}
            value={shorten}
            onChange={(v) => setShorten(v === '' ? '' : Number(v))}
          />
          <Button size="xs" onClick={run} loading={start.isPending} aria-label={`Run preset ${preset.title}`}>
            Run it
          </Button>
          <Button size="xs" variant="default" onClick={openInDesigner} disabled={!partText}>
            Open in designer
          </Button>
        </Group>
        {start.error && (
          <Alert color="red" p="xs" role="alert">
            {start.error.message}
          </Alert>
        )}
      </Stack>
    </Card>
  );
}
