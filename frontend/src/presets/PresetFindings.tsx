// A preset's findings on the card: where they were decided (my runs, or the committed results),
// each finding's verdict word with its test and n, ours (mean ± σ) beside the published value
// scaled to the lab with its scale factor, the targeted experiment and its answer where a finding
// failed on the published results, and what the lab cannot express of the experiment.
import { VERDICT_COLORS } from '@lfnlab/report/palette';
import { Loader, Stack, Text } from '@mantine/core';
import { usePresetFindings } from '../api/queries';
import type { FindingCell, FindingsSource, FindingView } from '../api/types';
import { dash, fmt, fmtDate, fmtDuration, fmtMeanSd } from '../lib/format';
import { FindingVerdict } from './FindingVerdict';

export function sourceText(s: FindingsSource): string {
  if (s.kind === 'committed')
    return `Decided on the published results (${s.runs} run${s.runs === 1 ? '' : 's'}, ${s.file}).`;
  if (s.kind === 'provisional')
    return `Provisional: its reproduction is under way, judged on the ${s.runs} ${s.runs === 1 ? 'run' : 'runs'} kept so far of its ${s.of} (about ${fmtDuration(s.wallLeftS)} of lab wall time left). The verdicts can move until every run is in.`;
  const length = s.shortenedToS === null ? 'full length' : `shortened to ${s.shortenedToS} s`;
  return `Decided on your ${s.runs} completed run${s.runs === 1 ? '' : 's'} (${length}; newest ${fmtDate(s.newestAt)}).`;
}

/** "64 × 0.161 = 10.3 Mbit/s": the paper's value, the scale factor, the value it means here. */
export function scaledText(c: FindingCell): string {
  const p = c.published;
  const value = fmtMeanSd(p.value, p.sd, '').trim();
  if (p.scale === 1) return fmtMeanSd(p.scaled, p.scaledSd, c.unit);
  return `${value} × ${fmt(p.scale)} = ${fmtMeanSd(p.scaled, p.scaledSd, c.unit)}`;
}

function oursText(c: FindingCell): string {
  if (!c.ours) return 'not measured by this preset';
  if (c.ours.mean === null) return `${dash} (n = 0)`;
  return `${fmtMeanSd(c.ours.mean, c.ours.sd, c.unit)} (n = ${c.ours.n})`;
}

/** One line per published number: ours, then the paper's value times the scale factor. */
function FindingCells({ cells }: { cells: FindingCell[] }) {
  return (
    <ul style={{ margin: '2px 0 0', paddingInlineStart: 18 }}>
      {cells.map((c) => (
        <li key={c.id} data-testid={`cell-${c.id}`}>
          <Text size="xs">
            {c.label}
            <Text span size="xs" c="dimmed">
              {' '}
              ({c.ref})
            </Text>
          </Text>
          <Text size="xs">
            <b>ours</b> {oursText(c)} · <b>paper</b> {scaledText(c)}
            {c.ratio !== null && (
              <Text span size="xs" c="dimmed">
                {' '}
                · ratio {fmt(c.ratio)}
              </Text>
            )}
          </Text>
        </li>
      ))}
    </ul>
  );
}

/**
 * A targeted experiment run where the finding did not hold on the published results, and its
 * answer; headed alike for a failed and an inconclusive finding (the verdict is shown above it).
 * Where one experiment ruled its candidate out and the next tested another, each is numbered in
 * the order they ran.
 */
function Tested({ tested, nth, of }: { tested: FindingView['tested'][number]; nth: number; of: number }) {
  const which = of > 1 ? `Targeted experiment ${nth} of ${of}` : 'Targeted experiment';
  return (
    <section aria-label={which} data-testid="tested">
      <Text size="xs">
        <b>
          {of > 1 ? `What targeted experiment ${nth} of ${of} found` : 'What a targeted experiment found'}
        </b>{' '}
        (on the published results): {tested.answer}
      </Text>
      <details>
        <summary style={{ fontSize: 'var(--mantine-font-size-xs)', cursor: 'pointer' }}>
          The hypothesis and the experiment
        </summary>
        <Text size="xs">{tested.hypothesis}</Text>
        <Text size="xs" c="dimmed">
          Experiment: {tested.experiment}
        </Text>
      </details>
    </section>
  );
}

function Finding({ f }: { f: FindingView }) {
  const numbers = f.cells.length === 1 ? "the paper's number" : `the paper's ${f.cells.length} numbers`;
  return (
    <Stack gap={2}>
      <FindingVerdict finding={f} />
      <details>
        <summary style={{ fontSize: 'var(--mantine-font-size-xs)', cursor: 'pointer' }}>
          How it was decided{f.cells.length ? `; ours beside ${numbers}, scaled to the lab` : ''}
        </summary>
        <Text size="xs" c="dimmed">
          {f.sentence}
        </Text>
        {f.cells.length > 0 && <FindingCells cells={f.cells} />}
      </details>
      {f.tested.map((t, i) => (
        <Tested key={t.hypothesis} tested={t} nth={i + 1} of={f.tested.length} />
      ))}
    </Stack>
  );
}

/** What the lab cannot express, listed (the preset's own words). */
/** A headed list of what a reproduction differs from the paper by: what the lab cannot express, or leaves out. */
export function PaperDepartures({
  items,
  title = 'What the lab cannot express',
}: {
  items: string[];
  title?: string;
}) {
  if (!items.length) return null;
  return (
    <section aria-label={title}>
      <Text size="xs" fw={700}>
        {title}
      </Text>
      <ul style={{ margin: 0, paddingInlineStart: 18 }}>
        {items.map((x) => (
          <li key={x}>
            <Text size="xs">{x}</Text>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function PresetFindings({ presetId }: { presetId: string }) {
  const q = usePresetFindings(presetId);
  if (q.isPending) return <Loader size="xs" aria-label="Loading findings" />;
  if (q.error)
    return (
      <Text size="xs" c={VERDICT_COLORS.fails}>
        Findings could not be loaded: {q.error.message}
      </Text>
    );
  const v = q.data;
  const provisional = v.source?.kind === 'provisional';
  return (
    <Stack gap={6}>
      <section aria-label={provisional ? 'Findings so far, provisional' : 'Findings, decided on our runs'}>
        <Text size="xs" fw={700}>
          Findings{provisional ? ' so far' : ''}
        </Text>
        {v.source ? (
          <Stack gap={6}>
            <Text size="xs" c="dimmed">
              {sourceText(v.source)}
            </Text>
            {v.source.kind === 'committed' && v.source.record ? (
              <Text size="xs" c="dimmed" data-testid="published-runs">
                Runs: {v.source.record}.
              </Text>
            ) : null}
            {v.findings.map((f) => (
              <Finding key={f.id} f={f} />
            ))}
          </Stack>
        ) : (
          <Text size="xs" c="dimmed">
            {v.message}
          </Text>
        )}
      </section>
      <PaperDepartures items={v.notExpressed} />
      <PaperDepartures items={v.notReproduced} title="What the reproduction leaves out" />
    </Stack>
  );
}
