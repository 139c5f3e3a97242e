import { Alert, Loader, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { usePresets } from '../api/queries';
import { PresetCard } from './PresetCard';

export function PresetsPage() {
  const presets = usePresets();
  return (
    <Stack>
      <div>
        <Title order={2}>Paper presets</Title>
        <Text size="sm" c="dimmed">
          The seed papers' experiments, scaled to what the lab emulates faithfully. Each card says whether the
          paper's findings hold on your newest runs (or on the published results), what "Run it" costs and
          whether it fits your quota. Shortened runs (one repetition each) show the mechanics in seconds; only
          runs at length with three or more repetitions per cell can decide a finding.
        </Text>
      </div>
      {presets.isPending && <Loader aria-label="Loading presets" />}
      {presets.error && <Alert color="red">{presets.error.message}</Alert>}
      <SimpleGrid cols={{ base: 1, md: 2, xl: 3 }} spacing="md">
        {presets.data?.map((p) => (
          <PresetCard key={p.id} preset={p} />
        ))}
      </SimpleGrid>
    </Stack>
  );
}
