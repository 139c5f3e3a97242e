import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { mockApi } from '../../test/support/api';
import { replay, spec } from '../../test/support/fixtures';
import { must } from '../../test/support/must';
import { renderInApp } from '../../test/support/render';
import type { FlowSummary, Run, RunSummary } from '../api/types';
import { ResultsPage } from './ResultsPage';
import { RunActions } from './RunActions';

const run: Run = {
  id: 'r42',
  name: 'reno-vs-cubic',
  owner: 'ada',
  ownerId: 'u-ada',
  status: 'completed',
  verdict: 'suspect',
  preset: null,
  campaign: null,
  lab: 'default',
  stacks: ['reno', 'cubic'],
  createdAt: '2025-03-01T10:00:00Z',
  startedAt: '2025-03-01T10:00:05Z',
  finishedAt: '2025-03-01T10:00:40Z',
  progress: { elapsedS: 30, totalS: 30 },
  error: null,
  partial: false,
  queue: null,
  spec: spec('reno-vs-cubic'),
};

const flow = (over: Partial<FlowSummary>): FlowSummary => ({
  name: 'f',
  stack: 'reno',
  observedStacks: ['reno'],
  path: 'main',
  direction: 'forward',
  streams: 1,
  startS: 0,
  durationS: 30,
  status: 'ok',
  error: null,
  goodputMbps: { mean: null, sd: null, wholeRun: null },
  stability: null,
  retransmits: null,
  rttMs: { mean: null, min: null, max: null },
  maxCwndBytes: null,
  cpuPercent: { sender: null, receiver: null },
  metrics: [],
  ...over,
});

const summary: RunSummary = {
  name: 'reno-vs-cubic',
  status: 'completed',
  error: null,
  seed: 7,
  verdict: 'suspect',
  fidelity: {
    verdict: 'suspect',
    reasons: ['rate: measured bottleneck 91.2 Mbit/s is 8.8 % under the configured 100 Mbit/s'],
    checks: [
      { id: 'rtt', status: 'pass', measured: 70.4, expected: '70 ms ± 5 %', message: '70.4 ms' },
      { id: 'rate', status: 'warn', measured: 91.2, expected: '100 Mbit/s ± 5 %', message: '91.2 Mbit/s' },
    ],
  },
  flows: [
    flow({
      name: 'reno',
      stack: 'reno',
      goodputMbps: { mean: 41.23, sd: 3.172, wholeRun: 41 },
      stability: 0.0769,
      retransmits: 120,
      rttMs: { mean: 82.46, min: 70.1, max: 96 },
    }),
    flow({
      name: 'cubic',
      stack: 'cubic',
      observedStacks: ['cubic'],
      goodputMbps: { mean: 49.96, sd: 0.5, wholeRun: 50 },
      stability: 0.01,
      retransmits: 88,
      rttMs: { mean: 84, min: 70.2, max: 101.5 },
      limitedBy: {
        limitedBy: 'network',
        shares: { network: 0.97, 'receiver-window': 0.03, 'send-buffer': 0, sender: 0 },
        busyS: 30,
      },
    }),
  ],
  paths: [
    {
      name: 'main',
      loadedRtt: { meanMs: 83, maxMs: 101.5, samples: 300 },
      configured: {
        rttMs: 70,
        rateMbps: 100,
        reverseRateMbps: 100,
        bufferPackets: { forward: 583, reverse: 583 },
        ber: 0,
      },
      idleRtt: null,
      utilisation: { forward: 0.912, reverse: null },
      jain: { forward: 0.99, reverse: null },
    },
  ],
  metrics: { flows: [], groups: [], theory: [] },
};

/** The cells of a flow's row in the Flows table, by the flow's name in its first cell. */
const flowCells = (table: HTMLElement, name: string) =>
  within(
    must(
      within(table)
        .getAllByRole('row')
        .find((r) => r.querySelector('td')?.textContent === name),
      `row for flow ${name}`,
    ),
  )
    .getAllByRole('cell')
    .map((c) => c.textContent);

describe('ResultsPage', () => {
  it('says which clock the lab ran on and how lab time compared with wall time', async () => {
    mockApi({
      'GET /api/runs/r42': { body: run },
      'GET /api/runs/r42/summary': {
        body: { ...summary, clock: { mode: 'dilated', dilation: 0.59, guestS: 60.8, wallS: 103.4 } },
      },
    });
    renderInApp(<ResultsPage runId="r42" />);
    const clock = await screen.findByTestId('lab-clock');
    expect(clock.textContent).toContain('dilated');
    expect(clock.textContent).toContain('60.8 s of lab time in 103.4 s of wall time');
    expect(clock.textContent).toContain('0.59 lab s per wall s');
  });

  it('says where the run ran: the lfnlab commit that ran and judged it, the lab, kernel, image and tools', async () => {
    mockApi({
      'GET /api/runs/r42': { body: run },
      'GET /api/runs/r42/summary': { body: summary },
      'GET /api/runs/r42/record': {
        body: {
          environment: {
            seed: 7,
            lab: { accel: 'tcg', cpus: 1, memMb: 2048, qemuVersion: 'QEMU emulator version 7.2.22 (Debian)' },
            image: {
              id: 'a8edffc1e83cc924',
              kernel: {
                abi: '6.1.0-56-amd64',
                package: 'linux-image-6.1.0-56-amd64',
                version: '6.1.192-2',
                hz: 250,
              },
            },
            toolVersions: { iperf3: 'iperf 3.12 (cJSON 1.7.15)' },
            lfnlab: { version: '0.1.0', commit: '05c13796ec3b', modified: true },
          },
        },
      },
    });
    renderInApp(<ResultsPage runId="r42" />);
    const card = await screen.findByTestId('provenance');
    const row = (k: string) =>
      must(
        within(card)
          .getAllByRole('row')
          .find((r) => r.querySelector('th')?.textContent === k),
        `row ${k}`,
      ).querySelector('td')?.textContent;
    expect(row('lfnlab')).toBe('0.1.0 · commit 05c13796ec3b (with uncommitted changes)');
    expect(row('Lab')).toBe('TCG (software emulation, no KVM) · 1 vCPU · 2048 MiB · QEMU 7.2.22 (Debian)');
    expect(row('Kernel')).toBe('6.1.0-56-amd64 (linux-image-6.1.0-56-amd64 6.1.192-2, HZ=250)');
    expect(row('Image')).toBe('a8edffc1e83cc924');
    expect(row('Seed')).toBe('7');
    expect(row('Tools')).toBe('iperf3: iperf 3.12 (cJSON 1.7.15)');
  });

  it('says so when an older record did not note the lfnlab that ran it', async () => {
    mockApi({
      'GET /api/runs/r42': { body: run },
      'GET /api/runs/r42/summary': { body: summary },
      'GET /api/runs/r42/record': { body: { environment: { seed: 7, lab: { accel: 'kvm' } } } },
    });
    renderInApp(<ResultsPage runId="r42" />);
    const card = await screen.findByTestId('provenance');
    expect(card.textContent).toContain('not recorded (the run predates lfnlab noting its version)');
    expect(card.textContent).toContain('KVM');
  });

  it('says when a run was judged again with corrected checks, and what it was before', async () => {
    mockApi({
      'GET /api/runs/r42': { body: run },
      'GET /api/runs/r42/summary': {
        body: {
          ...summary,
          rejudged: [
            {
              at: '2026-11-28T08:00:00.000Z',
              by: 'lfnlab 0.1.0 (2e48dc73e0be)',
              previousVerdict: 'invalid',
              changed: [{ id: 'rate', before: 'fail', after: 'warn' }],
            },
          ],
        },
      },
    });
    renderInApp(<ResultsPage runId="r42" />);
    const note = await screen.findByTestId('rejudged');
    expect(note.textContent).toContain(
      'Judged again on 2026-11-28 by lfnlab 0.1.0 (2e48dc73e0be): it was invalid',
    );
    expect(note.textContent).toContain('rate fail → warn');
  });

  it('names what held each flow back: its own congestion control, the network or the lab', async () => {
    const held = (limitedBy: 'congestion-control' | 'sender', share: number) => ({
      limitedBy,
      shares: {
        network: 1 - share,
        'congestion-control': 0,
        'receiver-window': 0,
        'send-buffer': 0,
        sender: 0,
        [limitedBy]: share,
      },
      busyS: 30,
    });
    mockApi({
      'GET /api/runs/r42': { body: run },
      'GET /api/runs/r42/summary': {
        body: {
          ...summary,
          flows: [
            ...summary.flows,
            flow({ name: 'lp', stack: 'hstcplp', limitedBy: held('congestion-control', 0.974) }),
            flow({ name: 'bbr', stack: 'bbr', limitedBy: held('sender', 0.64) }),
          ],
        },
      },
    });
    renderInApp(<ResultsPage runId="r42" />);
    const table = await screen.findByTestId('flow-summary');
    const limitOf = (name: string) => flowCells(table, name)[7];
    expect(limitOf('cubic')).toBe('network 97 %');
    expect(limitOf('lp')).toBe('congestion control 97 %');
    expect(limitOf('bbr')).toBe('sender (lab) 64 %');
  });

  it('shows each flow as mean ± σ with units, and the verdict with its reasons', async () => {
    mockApi({
      'GET /api/runs/r42': { body: run },
      'GET /api/runs/r42/summary': { body: summary },
    });
    renderInApp(<ResultsPage runId="r42" />);

    const table = await screen.findByTestId('flow-summary');
    const cells = (name: string) => flowCells(table, name);

    // Flow, stack, path / dir., goodput mean ± σ, stability, retransmits, RTT mean (min-max), limited by.
    expect(cells('reno')).toEqual([
      'reno',
      'reno',
      'main / forward',
      '41.2 ± 3.17 Mbit/s',
      '0.0769',
      '120',
      '82.5 ms (70.1-96)',
      '-',
    ]);
    expect(cells('cubic')?.[7]).toBe('network 97 %');
    expect(cells('cubic')?.[3]).toBe('50 ± 0.5 Mbit/s');
    expect(cells('cubic')?.[6]).toBe('84 ms (70.2-102)');

    const verdict = screen.getByTestId('verdict');
    expect(within(verdict).getByRole('heading', { level: 3 }).textContent).toBe('Fidelity verdict suspect');
    expect(within(verdict).getByText(/read the reasons before trusting/)).toBeTruthy();
    expect(
      within(verdict)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(summary.fidelity?.reasons);
    const rateCheck = must(
      within(verdict)
        .getAllByRole('row')
        .find((r) => r.textContent?.startsWith('rate')),
    );
    expect(
      within(rateCheck)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['rate', 'warn', '100 Mbit/s ± 5 %', '91.2 Mbit/s']);
  });

  it("says the run is still running and asks for no summary until it's done", async () => {
    const { calls } = mockApi({
      'GET /api/runs/r42': { body: { ...run, status: 'running', verdict: null } },
    });
    renderInApp(<ResultsPage runId="r42" />);
    expect(await screen.findByText(/The run is still running/)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Watch it live' }).getAttribute('href')).toBe('#/runs/r42/live');
    expect(screen.queryByTestId('flow-summary')).toBeNull();
    expect(calls.map((c) => c.path)).not.toContain('/api/runs/r42/summary');
  });

  it("draws a finished run's four charts from its recorded samples, with capacity and buffer lines", async () => {
    const { calls } = mockApi({
      'GET /api/runs/r42': { body: run },
      'GET /api/runs/r42/summary': { body: summary },
      'GET /api/runs/r42/samples': { body: replay },
    });
    renderInApp(<ResultsPage runId="r42" />);
    const charts = await screen.findByTestId('run-charts');
    await waitFor(() => expect(within(charts).getAllByRole('img')).toHaveLength(4));
    const labels = within(charts)
      .getAllByRole('img')
      .map((c) => c.getAttribute('aria-label') ?? '');
    expect(labels[0]).toContain('reference lines: capacity main 100 Mbit/s');
    expect(labels[3]).toContain('reference lines: buffer main');
    // Each chart's legend names its series: the flows by the names the samples carry.
    await waitFor(() => expect(within(charts).getAllByText('reno-1').length).toBeGreaterThanOrEqual(3));
    expect(within(charts).getByText(/6 of 24 drawn|18 of 24 drawn/)).toBeTruthy();
    expect(calls.filter((c) => c.path === '/api/runs/r42/samples')).toHaveLength(1);
  });

  it('shows a not-found page for an unknown run: no spinner, no retries', async () => {
    const { calls } = mockApi({ 'GET /api/runs/nope': { status: 404, body: { error: 'no run nope' } } });
    renderInApp(<ResultsPage runId="nope" />);
    expect(await screen.findByTestId('not-found')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'No such run' })).toBeTruthy();
    expect(screen.queryByLabelText('Loading run')).toBeNull();
    expect(calls.filter((c) => c.path === '/api/runs/nope')).toHaveLength(1);
  });
});

describe('Open in Grafana', () => {
  it('is not offered when the service runs without InfluxDB', async () => {
    const { calls } = mockApi({ 'GET /api/health': { body: { influx: 'off', queue: 0 } } });
    renderInApp(<RunActions run={run} />);
    await waitFor(() => expect(calls.map((c) => c.path)).toContain('/api/health'));
    await screen.findByRole('button', { name: 'Re-run' });
    expect(screen.queryByText('Open in Grafana')).toBeNull();
    expect(calls.map((c) => c.path)).not.toContain('/api/runs/r42/grafana');
  });

  it('is a link to a new tab at the address the service gives; this tab stays', async () => {
    mockApi({
      'GET /api/health': { body: { influx: 'up', queue: 0 } },
      'GET /api/runs/r42/grafana': { body: { url: 'http://lab.example:3000/d/lfnlab-run/x?var-run=r42' } },
    });
    renderInApp(<RunActions run={run} />);
    const link = await screen.findByRole('link', { name: 'Open in Grafana' });
    expect(link.getAttribute('href')).toBe('http://lab.example:3000/d/lfnlab-run/x?var-run=r42');
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toContain('noopener');
    // A link, not a button running window.open: nothing can send this tab to Grafana instead.
    expect(link.tagName).toBe('A');
  });
});
