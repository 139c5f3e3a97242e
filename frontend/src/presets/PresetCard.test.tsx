import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { type ApiCall, mockApi } from '../../test/support/api';
import { renderInApp } from '../../test/support/render';
import type { Preset, PresetFindingsView, PresetPlanView, WallEstimate } from '../api/types';
import { PresetCard } from './PresetCard';

const preset: Preset = {
  id: 'seed000-table4',
  paper: { id: '000', short: 'Bullot 2005', title: 'A comparison of high-speed TCP stacks' },
  title: 'Goodput with and without reverse traffic',
  finding: 'FAST suffers most from reverse traffic.',
  scaling: { rule: 'Rate scaled from 622 Mbit/s to 100 Mbit/s, RTT kept.' },
  parts: [{ name: 'main', text: 'name: t4\n' }],
};

// GET /api/presets/:id/findings as docs/API.md describes it.
const findings: PresetFindingsView = {
  preset: preset.id,
  notExpressed: ['The forward transfer restarts at the half instead of running on.'],
  notReproduced: ['part long needs an hour of lab time per run.'],
  source: {
    kind: 'committed',
    file: 'presets/results/seed000-table4/comparison.json',
    runs: 42,
    record: '21 of 21 runs (19 valid, 2 suspect, 0 invalid). Not valid because of: packet spacing in 2 runs',
  },
  message: null,
  summary: '…',
  findings: [
    {
      id: 'order.with',
      kind: 'ordering',
      text: 'With reverse traffic FAST came last by a wide margin.',
      ref: 'Table 4',
      verdict: 'fails',
      sentence: '…',
      test: { name: 'Kendall τ-b, one-sided', n: 3, nMax: 4, items: 7, measured: 7 },
      cells: [
        {
          id: 't4.with.fast',
          label: 'FAST, with reverse traffic',
          unit: 'Mbit/s',
          ref: 'Table 4',
          published: { value: 64, sd: null, scale: 0.16, scaled: 10.24, scaledSd: null },
          ours: { mean: 22.5, sd: 1.25, n: 3 },
          ratio: 2.2,
        },
      ],
      tested: [
        {
          hypothesis: 'The reverse flow starts late.',
          experiment: 'lfnlab campaign run experiments/reverse.yaml',
          answer: 'No: FAST still came last.',
        },
      ],
    },
  ],
};

const cost = (runs: number, labS: number): WallEstimate => ({
  runs,
  labS,
  wallS: labS + 20 * runs,
  pace: 1,
  overheadS: 20,
  fromHistory: false,
});

const variants = [
  { id: '001-fast-r1', label: 'fast · rep 1', durationS: 10, fits: true, problems: [] },
  {
    id: '002-bic-r1',
    label: 'bic · 8 flows · rep 1',
    durationS: 10,
    fits: false,
    problems: [{ path: 'flows', message: '8 flows (counts expanded) is above the student quota of 4' }],
  },
];

function plan(call: ApiCall): PresetPlanView {
  const pick = call.body as { variant?: string; shorten?: number };
  const chosen = pick.variant ? variants.filter((v) => v.id === pick.variant) : variants;
  const fits = chosen.length === 1 && chosen.every((v) => v.fits);
  return {
    preset: preset.id,
    pick: { part: 'main', variant: pick.variant ?? null, shorten: pick.shorten ?? null },
    parts: [{ name: 'main', runs: 2 }],
    variants,
    cost: cost(chosen.length, (pick.shorten ?? 300) * chosen.length),
    quota: {
      role: 'student',
      limits: { concurrentRuns: 1, maxDurationS: 120, maxRateMbps: 100, maxFlows: 4 },
      active: 0,
      fits,
      problems: fits
        ? []
        : [
            {
              path: 'concurrentRuns',
              message: '0 run(s) queued or running and 2 more asked for; the student quota is 1 at a time',
            },
          ],
      suggestion: fits
        ? null
        : {
            pick: { part: 'main', variant: '001-fast-r1', shorten: 10 },
            text: 'one variant at a time, shortened to 10 s: fast · rep 1',
            cost: cost(1, 10),
          },
    },
  };
}

const routes = {
  'GET /api/presets/seed000-table4/findings': { body: findings },
  'POST /api/presets/seed000-table4/plan': (c: ApiCall) => ({ body: plan(c) }),
};

describe('PresetCard', () => {
  it('shows each finding as a word with its test and n, ours beside the scaled published value', async () => {
    mockApi(routes);
    renderInApp(<PresetCard preset={preset} />);
    const f = await screen.findByTestId('finding-order.with');
    expect(within(f).getByText('fails')).toBeTruthy();
    expect(within(f).getByText(/Kendall τ-b, one-sided; n = 3–4/)).toBeTruthy();
    expect(screen.getByText(/Decided on the published results \(42 runs/)).toBeTruthy();
    // What the published runs were, and why some were not valid.
    expect(
      screen.getByText(/Runs: 21 of 21 runs \(19 valid, 2 suspect.*packet spacing in 2 runs/),
    ).toBeTruthy();
    const cell = screen.getByTestId('cell-t4.with.fast');
    expect(cell.textContent).toContain('22.5 ± 1.25 Mbit/s (n = 3)');
    expect(cell.textContent).toContain('64 × 0.16 = 10.2 Mbit/s');
    const tested = screen.getByRole('region', { name: 'Targeted experiment' });
    expect(tested.textContent).toContain('The reverse flow starts late.');
    expect(tested.textContent).toContain('Experiment: lfnlab campaign run experiments/reverse.yaml');
    expect(tested.textContent).toContain(
      'What a targeted experiment found (on the published results): No: FAST still came last.',
    );
    const notExpressed = screen.getByRole('region', { name: 'What the lab cannot express' });
    expect(notExpressed.textContent).toContain('restarts at the half');
    expect(notExpressed.textContent).not.toContain('part long');
    const leftOut = screen.getByRole('region', { name: 'What the reproduction leaves out' });
    expect(leftOut.textContent).toContain('part long needs an hour');
  });

  it('shows every targeted experiment of a finding, numbered in the order they ran', async () => {
    const second = {
      hypothesis: 'Then the buffer hides how each stack cuts.',
      experiment: 'lfnlab campaign run experiments/buffer.yaml',
      answer: 'Yes: at 0.2 BDP FAST comes first.',
    };
    mockApi({
      ...routes,
      'GET /api/presets/seed000-table4/findings': {
        body: {
          ...findings,
          findings: findings.findings.map((f) => ({ ...f, tested: [...f.tested, second] })),
        },
      },
    });
    renderInApp(<PresetCard preset={preset} />);
    const first = await screen.findByRole('region', { name: 'Targeted experiment 1 of 2' });
    expect(first.textContent).toContain(
      'What targeted experiment 1 of 2 found (on the published results): No: FAST',
    );
    const next = screen.getByRole('region', { name: 'Targeted experiment 2 of 2' });
    expect(next.textContent).toContain('Yes: at 0.2 BDP FAST comes first.');
    expect(next.textContent).toContain('Experiment: lfnlab campaign run experiments/buffer.yaml');
    expect(screen.queryByRole('region', { name: 'Targeted experiment' })).toBeNull();
  });

  it('says when nothing has been decided yet', async () => {
    mockApi({
      ...routes,
      'GET /api/presets/seed000-table4/findings': {
        body: { ...findings, source: null, findings: [], message: 'No results yet: none of your runs…' },
      },
    });
    renderInApp(<PresetCard preset={preset} />);
    expect(await screen.findByText('No results yet: none of your runs…')).toBeTruthy();
    expect(screen.queryByTestId('finding-order.with')).toBeNull();
  });

  it('marks findings judged on a reproduction still under way as provisional, with how far it is', async () => {
    mockApi({
      ...routes,
      'GET /api/presets/seed000-table4/findings': {
        body: {
          ...findings,
          source: { kind: 'provisional', runs: 50, of: 216, wallLeftS: 20_520 },
          findings: findings.findings.map((f) => ({ ...f, verdict: 'inconclusive', tested: [] })),
        },
      },
    });
    renderInApp(<PresetCard preset={preset} />);
    const f = await screen.findByTestId('finding-order.with');
    expect(within(f).getByText('inconclusive')).toBeTruthy();
    const section = screen.getByRole('region', { name: 'Findings so far, provisional' });
    expect(section.textContent).toContain(
      'Provisional: its reproduction is under way, judged on the 50 runs kept so far of its 216 (about 5 h 42 min of lab wall time left).',
    );
    expect(screen.queryByText(/Decided on the published results/)).toBeNull();
  });

  it('prices "Run it", marks what is over quota and why, and takes the pick that fits', async () => {
    const { calls } = mockApi({
      ...routes,
      'POST /api/runs': { status: 202, body: { id: 'r1', queuedRuns: ['r1'] } },
    });
    renderInApp(<PresetCard preset={preset} />);
    expect((await screen.findByTestId('run-cost')).textContent).toBe(
      '2 runs · 20 s of traffic · about 1 min 00 s on the lab',
    );
    const over = await screen.findByTestId('quota-over');
    expect(within(over).getByText('concurrentRuns')).toBeTruthy();
    expect(over.textContent).toContain('the student quota is 1 at a time');
    expect(over.textContent).toContain('1 of 2 variants are over the per-run limits');
    fireEvent.click(within(over).getByRole('button', { name: 'Use this' }));
    await waitFor(() =>
      expect(screen.getByTestId('quota-fits').textContent).toBe('Fits your student quota.'),
    );
    expect(screen.getByTestId('run-cost').textContent).toBe(
      '1 run · 10 s of traffic · about 30 s on the lab',
    );
    fireEvent.click(screen.getByRole('button', { name: `Run preset ${preset.title}` }));
    await waitFor(() => expect(window.location.hash).toBe('#/runs/r1/live'));
    expect(calls.filter((c) => c.path === '/api/runs')).toEqual([
      { method: 'POST', path: '/api/runs', body: { preset: preset.id, variant: '001-fast-r1', shorten: 10 } },
    ]);
  });

  it('lists the variants in the picker, marking those over quota', async () => {
    mockApi(routes);
    renderInApp(<PresetCard preset={preset} />);
    await screen.findByTestId('run-cost');
    fireEvent.click(screen.getByLabelText('Variant', { selector: 'input' }));
    expect(
      await screen.findByRole('option', { name: 'bic · 8 flows · rep 1 — over quota', hidden: true }),
    ).toBeTruthy();
    expect(screen.getByRole('option', { name: 'fast · rep 1', hidden: true })).toBeTruthy();
    expect(screen.getByRole('option', { name: 'All variants (2)', hidden: true })).toBeTruthy();
  });

  it('refuses a length outside 2 to 3600 s before asking the service', async () => {
    const { calls } = mockApi(routes);
    renderInApp(<PresetCard preset={preset} />);
    await screen.findByTestId('run-cost');
    const before = calls.length;
    fireEvent.change(screen.getByLabelText(/Shorten to/), { target: { value: '1' } });
    expect(await screen.findByText('2 to 3600 s')).toBeTruthy();
    expect(
      (screen.getByRole('button', { name: `Run preset ${preset.title}` }) as HTMLButtonElement).disabled,
    ).toBe(true);
    expect(calls.slice(before).some((c) => (c.body as { shorten?: number } | undefined)?.shorten === 1)).toBe(
      false,
    );
  });

  it('offers the preset’s CI length first when 10 s is too short for its staggered flows', async () => {
    const { calls } = mockApi(routes);
    renderInApp(<PresetCard preset={{ ...preset, ci: { seconds: 13 } }} />);
    await screen.findByTestId('run-cost');
    expect((screen.getByLabelText(/Shorten to/) as HTMLInputElement).value).toBe('13');
    expect(calls.some((c) => (c.body as { shorten?: number } | undefined)?.shorten === 13)).toBe(true);
    expect(calls.some((c) => (c.body as { shorten?: number } | undefined)?.shorten === 10)).toBe(false);
  });
});
