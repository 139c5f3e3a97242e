// Downloads (CSV, JSON, Flent, HTML report), re-run, open in designer and open in Grafana.
import { Alert, Button, Group, Menu, Paper, Title } from '@mantine/core';
import { useState } from 'react';
import { stringify } from 'yaml';
import { grafanaUrl, useStartRun } from '../api/queries';
import type { Run } from '../api/types';
import { navigate } from '../app/router';
import { stashDraft } from '../designer/specText';
import { toSpecInput } from '../lib/specInput';

/** The service's CSV export is one sample kind per file (?kind=). */
const CSV_KINDS = [
  ['goodput', 'Goodput per flow (bit/s)'],
  ['tcp', 'TCP state: cwnd, RTT, retransmits'],
  ['queue', 'Bottleneck queue (packets, drops)'],
  ['rtt', 'RTT probe (ms)'],
  ['interval', 'iperf3 intervals'],
  ['cpu', 'Lab CPU (%)'],
  ['udp', 'UDP cross traffic'],
] as const;

export function RunActions({ run }: { run: Run }) {
  const start = useStartRun();
  const [error, setError] = useState<string | null>(null);
  const base = `/api/runs/${encodeURIComponent(run.id)}`;
  const specText = () => stringify(toSpecInput(run.spec), { lineWidth: 0 });

  const rerun = () =>
    start.mutate(
      { text: specText() },
      { onSuccess: (r) => navigate({ page: 'live', runId: r.id }), onError: (e) => setError(e.message) },
    );

  const grafana = async () => {
    // Open the window first (popup blockers allow it only in the click), then point it at the URL.
    const w = window.open('', '_blank', 'noopener');
    try {
      const { url } = await grafanaUrl(run.id);
      if (w) w.location.href = url;
      else window.location.href = url;
    } catch (e) {
      w?.close();
      setError(`Grafana: ${(e as Error).message}`);
    }
  };

  const openInDesigner = () => {
    stashDraft(specText());
    navigate({ page: 'designer' });
  };

  return (
    <Paper withBorder p="sm" radius="md">
      <Title order={3} size="h5" mb="xs">
        Downloads and actions
      </Title>
      <Group gap="xs">
        <Menu position="bottom-start" withinPortal>
          <Menu.Target>
            <Button size="xs" variant="default" aria-haspopup="menu">
              CSV ▾
            </Button>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Label>One file per sample kind</Menu.Label>
            {CSV_KINDS.map(([kind, label]) => (
              <Menu.Item key={kind} component="a" href={`${base}/export/csv?kind=${kind}`} download>
                {label}
              </Menu.Item>
            ))}
          </Menu.Dropdown>
        </Menu>
        <Button component="a" size="xs" variant="default" href={`${base}/export/json`} download>
          JSON
        </Button>
        <Button component="a" size="xs" variant="default" href={`${base}/export/flent`} download>
          Flent
        </Button>
        <Button
          component="a"
          size="xs"
          variant="default"
          href={`${base}/report`}
          target="_blank"
          rel="noopener"
        >
          HTML report
        </Button>
        <Button size="xs" onClick={rerun} loading={start.isPending}>
          Re-run
        </Button>
        <Button size="xs" variant="light" onClick={openInDesigner}>
          Open in designer
        </Button>
        <Button size="xs" variant="light" onClick={() => void grafana()}>
          Open in Grafana
        </Button>
      </Group>
      {error && (
        <Alert color="red" mt="xs" p="xs" role="alert">
          {error}
        </Alert>
      )}
    </Paper>
  );
}
