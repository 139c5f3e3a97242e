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
          The seed papers' experiments, scaled to what the lab emulates faithfully. Shortened runs show the
          mechanics in seconds; full-length runs reproduce the published numbers (see Compare).
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
