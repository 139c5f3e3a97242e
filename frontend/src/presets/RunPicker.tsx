// What "Run it" starts: a part, one variant or all of them, full length or shortened (the fields
// POST /api/runs takes for a preset), with its cost (runs, lab and wall time) and whether it fits
// my quota, each exceeded limit named with its field, and a pick that fits offered in one click.
import { SHORTEN_S } from '@lfnlab/presets/pick';
import { VERDICT_COLORS } from '@lfnlab/report/palette';
import { Alert, Badge, Button, Group, NumberInput, Select, Stack, Text } from '@mantine/core';
import { useState } from 'react';
import { usePresetPlan, useStartRun } from '../api/queries';
import type { Preset, PresetPick, PresetPlanView, WallEstimate } from '../api/types';
import { navigate } from '../app/router';
import { stashDraft } from '../designer/specText';
import { fmt, fmtDuration } from '../lib/format';

const ALL = '__all__';

/** "12 runs · 1 h 40 min of traffic · about 2 h 10 min on the lab". */
export function costText(c: WallEstimate): string {
  const runs = `${c.runs} run${c.runs === 1 ? '' : 's'}`;
  return `${runs} · ${fmtDuration(c.labS)} of traffic · about ${fmtDuration(c.wallS)} on the lab`;
}

/** How the wall time was reckoned, for the tooltip-free reader (the line under the cost). */
export function costBasis(c: WallEstimate): string {
  const pace = c.pace === 1 ? 'at real time' : `at ${fmt(c.pace)} lab s per wall s`;
  const basis = c.fromHistory
    ? ' (the lab’s recent runs)'
    : ' (what this lab is expected to keep, until it has finished a run)';
  return `${pace}, plus ${fmt(c.overheadS)} s set-up per run${basis}; queue wait not included`;
}

function QuotaMark({ plan, onPick }: { plan: PresetPlanView; onPick: (p: PresetPick) => void }) {
  const q = plan.quota;
  const overVariants = plan.variants.filter((v) => !v.fits).length;
  if (q.fits)
    return (
      <Text size="xs" c="dimmed" data-testid="quota-fits">
        Fits your {q.role} quota.
      </Text>
    );
  return (
    <Alert
      p="xs"
      color={VERDICT_COLORS.fails}
      variant="light"
      title={`Over your ${q.role} quota`}
      role="status"
      data-testid="quota-over"
    >
      <Stack gap={4}>
        <ul style={{ margin: 0, paddingInlineStart: 18 }}>
          {q.problems.map((p) => (
            <li key={p.path}>
              <Text size="xs">
                <code>{p.path}</code>: {p.message}
              </Text>
            </li>
          ))}
        </ul>
        {!plan.pick.variant && overVariants > 0 && (
          <Text size="xs">
            {overVariants} of {plan.variants.length} variants are over the per-run limits (marked in the
            Variant list).
          </Text>
        )}
        {q.suggestion ? (
          <Group gap="xs" wrap="wrap">
            <Text size="xs">
              Fits: {q.suggestion.text} ({costText(q.suggestion.cost)}).
            </Text>
            <Button size="compact-xs" variant="default" onClick={() => onPick(q.suggestion?.pick ?? {})}>
              Use this
            </Button>
          </Group>
        ) : (
          <Text size="xs">No variant of this part fits your quota.</Text>
        )}
      </Stack>
    </Alert>
  );
}

/**
 * The length a card offers first: 10 s shows the mechanics quickly, but some presets' staggered
 * flows need longer before every variant is valid (their CI length), and a default the server
 * refuses would greet the user with an error.
 */
export function defaultShorten(preset: Pick<Preset, 'ci'>): number {
  return Math.min(SHORTEN_S.max, Math.max(10, preset.ci?.seconds ?? 0));
}

export function RunPicker({ preset }: { preset: Preset }) {
  const start = useStartRun();
  const [part, setPart] = useState<string>(preset.parts[0]?.name ?? '');
  const [variant, setVariant] = useState<string>(ALL);
  const [shorten, setShorten] = useState<number | ''>(defaultShorten(preset));
  const validShorten = shorten === '' || (shorten >= SHORTEN_S.min && shorten <= SHORTEN_S.max);
  const pick: PresetPick = {
    ...(preset.parts.length > 1 ? { part } : {}),
    ...(variant !== ALL ? { variant } : {}),
    ...(shorten !== '' ? { shorten } : {}),
  };
  const plan = usePresetPlan(preset.id, pick, validShorten);
  const p = plan.data;

  const choose = (next: PresetPick) => {
    if (next.part) setPart(next.part);
    setVariant(next.variant ?? ALL);
    setShorten(next.shorten ?? '');
  };
  const run = () =>
    start.mutate(
      { preset: preset.id, ...pick },
      { onSuccess: (r) => navigate({ page: 'live', runId: r.id }) },
    );

  const variantData = [
    { value: ALL, label: `All variants${p ? ` (${p.variants.length})` : ''}` },
    ...(p?.variants ?? []).map((v) => ({
      value: v.id,
      label: `${v.label}${v.fits ? '' : ' — over quota'}`,
    })),
  ];

  return (
    <Stack gap="xs" mt="auto">
      <Group gap="xs" align="flex-end" wrap="wrap">
        {preset.parts.length > 1 && (
          <Select
            label="Part"
            size="xs"
            w={140}
            data={preset.parts.map((x) => x.name)}
            value={part}
            onChange={(v) => {
              if (v) setPart(v);
              setVariant(ALL);
            }}
            allowDeselect={false}
          />
        )}
        <Select
          label="Variant"
          size="xs"
          w={{ base: '100%', xs: 240 }}
          data={variantData}
          value={variant}
          onChange={(v) => setVariant(v ?? ALL)}
          allowDeselect={false}
          searchable
          comboboxProps={{ withinPortal: true }}
        />
        <NumberInput
          label="Shorten to (s)"
          description="empty = full length"
          size="xs"
          w={130}
          min={SHORTEN_S.min}
          max={SHORTEN_S.max}
          value={shorten}
          error={validShorten ? undefined : `${SHORTEN_S.min} to ${SHORTEN_S.max} s`}
          onChange={(v) => setShorten(v === '' ? '' : Number(v))}
        />
      </Group>
      <div aria-live="polite">
        {plan.error ? (
          <Text size="xs" c={VERDICT_COLORS.fails} role="status">
            {plan.error.message}
          </Text>
        ) : p ? (
          <Stack gap={2}>
            <Group gap={6} wrap="wrap">
              <Badge size="sm" variant="outline" color="gray">
                Cost
              </Badge>
              <Text size="xs" fw={600} data-testid="run-cost">
                {costText(p.cost)}
              </Text>
            </Group>
            <Text size="xs" c="dimmed">
              {costBasis(p.cost)}
            </Text>
          </Stack>
        ) : (
          <Text size="xs" c="dimmed">
            Working out the cost…
          </Text>
        )}
      </div>
      {p && <QuotaMark plan={p} onPick={choose} />}
      <Group gap="xs">
        <Button
          size="xs"
          onClick={run}
          loading={start.isPending}
          disabled={!validShorten}
          aria-label={`Run preset ${preset.title}`}
        >
          Run it
        </Button>
        <OpenInDesigner preset={preset} part={part} />
      </Group>
      {start.error && (
        <Alert color="red" p="xs" role="alert">
          {start.error.message}
        </Alert>
      )}
    </Stack>
  );
}

function OpenInDesigner({ preset, part }: { preset: Preset; part: string }) {
  const text = preset.parts.find((x) => x.name === part)?.text;
  return (
    <Button
      size="xs"
      variant="default"
      disabled={!text}
      onClick={() => {
        if (!text) return;
        stashDraft(text);
        navigate({ page: 'designer' });
      }}
    >
      Open in designer
    </Button>
  );
}
