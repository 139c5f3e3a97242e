// Downloads (CSV, JSON, Flent, HTML report), re-run, open in designer and open in Grafana.
import { Alert, Button, Group, Menu, Paper, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { stringify } from 'yaml';
import { grafanaUrl, useHealth, useStartRun } from '../api/queries';
import type { Run } from '../api/types';
import { navigate } from '../app/router';
import { stashDraft } from '../designer/specText';
import { toSpecInput } from '../lib/specInput';

/**
 * The service's CSV export is one sample kind per file (?kind=). A kind only some runs have is
 * offered only to those: UDP with cross traffic, the wire's flows with a wire.
 */
const CSV_KINDS: readonly (readonly [string, string, ((spec: Run['spec']) => boolean)?])[] = [
  ['goodput', 'Goodput per flow (bit/s)'],
  ['tcp', 'TCP state: cwnd, RTT, retransmits'],
  ['queue', 'Bottleneck queue (packets, drops)'],
  ['rtt', 'RTT probe (ms)'],
  ['interval', 'iperf3 intervals'],
  ['cpu', 'Lab CPU (%)'],
  ['udp', 'UDP cross traffic', (spec) => Object.values(spec.paths).some((p) => p.cross.length > 0)],
  ['wireflow', "A wire's flows as the lab saw them", (spec) => spec.wire !== undefined],
];

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

  // Grafana shows what InfluxDB holds: no link when the service runs without it. The address is
  // fetched ahead, so the button is a plain link to a new tab (window.open with noopener returns
  // null, and the old code then sent this tab away instead).
  const health = useHealth();
  const withGrafana = health.data !== undefined && health.data.influx !== 'off';
  const grafana = useQuery({
    queryKey: ['grafana', run.id, run.finishedAt],
    queryFn: () => grafanaUrl(run.id),
    enabled: withGrafana,
  });

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
            {CSV_KINDS.filter(([, , has]) => !has || has(run.spec)).map(([kind, label]) => (
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
        {withGrafana && grafana.data && (
          <Button
            component="a"
            size="xs"
            variant="light"
            href={grafana.data.url}
            target="_blank"
            rel="noopener noreferrer"
          >
            Open in Grafana
          </Button>
        )}
      </Group>
      {grafana.error && (
        <Alert color="yellow" mt="xs" p="xs">
          Grafana link unavailable: {grafana.error.message}
        </Alert>
      )}
      {error && (
        <Alert color="red" mt="xs" p="xs" role="alert">
          {error}
        </Alert>
      )}
    </Paper>
  );
}
