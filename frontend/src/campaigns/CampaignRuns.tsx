// A campaign's runs, one per variant, named by the variant's label (`reno · 100 Mbit/s · rep 2`)
// rather than its id: folded away under the campaign's progress, since a preset part has up to
// 147 of them.
import { Anchor, Table, Text } from '@mantine/core';
import type { Run } from '../api/types';
import { hrefOf } from '../app/router';
import { LabelText } from '../runs/LabelText';
import { RunStatusBadge, VerdictBadge } from '../runs/RunStatusBadge';
import { variantTitle } from '../runs/runTitle';

/** Variants in label order, numbers by value (`2 flows` before `12 flows`). */
const byLabel = (a: Run, b: Run) =>
  variantTitle(a).localeCompare(variantTitle(b), undefined, { numeric: true });

export function CampaignRuns({ campaign, runs }: { campaign: string; runs: Run[] }) {
  return (
    <details data-testid="campaign-runs">
      <summary style={{ cursor: 'pointer' }}>
        <Text span size="sm">
          Runs ({runs.length})
        </Text>
      </summary>
      <Table fz="sm" mt="xs" aria-label={`Runs of ${campaign}`}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Variant</Table.Th>
            <Table.Th w={1}>Outcome</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {[...runs].sort(byLabel).map((r) => {
            const live = r.status === 'running' || r.status === 'queued';
            return (
              <Table.Tr key={r.id}>
                <Table.Td>
                  <Anchor
                    href={hrefOf(live ? { page: 'live', runId: r.id } : { page: 'results', runId: r.id })}
                    title={r.name}
                  >
                    <LabelText text={variantTitle(r)} />
                  </Anchor>
                </Table.Td>
                {/* One narrow column, so a phone keeps room for the label: the verdict once completed. */}
                <Table.Td>
                  {r.status === 'completed' ? (
                    <VerdictBadge verdict={r.verdict} />
                  ) : (
                    <RunStatusBadge status={r.status} />
                  )}
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </details>
  );
}
