// Measuring runs the fake lab writes (its synthetic samples go through the same files and the same
// metric functions as a real run's), and the HTML matrix built from judged results.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateSpec } from '@lfnlab/emulator';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeLabDriver } from '../service/fakeLabDriver.js';
import { qualifyHtml } from './html.js';
import { judgeSuite, type SuiteResult } from './judge.js';
import { labFacts, measureRun } from './measure.js';

const dir = mkdtempSync(join(tmpdir(), 'lfnlab-qualify-measure-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function fakeRun(name: string, flows: object[]): Promise<string> {
  const v = validateSpec({
    name,
    duration: '10s',
    paths: { main: { rtt: '40ms', rate: '50Mbit', buffer: '1bdp' } },
    flows,
  });
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  const out = join(dir, name);
  await new FakeLabDriver({ timeScale: 1000 }).run({
    spec: v.spec,
    outDir: out,
    labName: 'fake',
    signal: new AbortController().signal,
    log: () => undefined,
    onSample: () => undefined,
    onEvent: () => undefined,
  });
  return out;
}

const meta = (id: string) => ({ id, condition: 'plain', stack: 'cubic', repetition: 1, subjectIndex: 0 });

describe('measureRun', () => {
  it('measures every qualification metric of the flow under test', async () => {
    const run = await fakeRun('alone', [{ name: 'test', stack: 'cubic' }]);
    const m = measureRun(run, meta('alone'));
    expect(m).toMatchObject({ status: 'completed', verdict: 'valid', seconds: 10 });
    // The fake lab gives a flow ~0.95 × a 0.75–1 saw-tooth of the link: ~0.83 of it.
    expect(m.metrics.goodput_share).toBeGreaterThan(0.7);
    expect(m.metrics.goodput_share).toBeLessThan(0.95);
    expect(m.metrics.rtt_inflation).toBeGreaterThanOrEqual(1);
    expect(m.metrics.time_to_90).toBeGreaterThanOrEqual(0);
    // Its saw-tooth cuts the window to about 3/4 twice a second.
    expect(m.metrics.loss_response).toBeGreaterThan(0.6);
    expect(m.metrics.loss_response).toBeLessThan(0.85);
    expect(m.metrics.recovery_time).toBeGreaterThan(0);
    // One flow has no Jain index.
    expect(m.metrics.jain).toBeUndefined();
    expect(labFacts([run])).toEqual({ imageId: 'fake', kernel: '6.1.0-fake-amd64' });
  });

  it('gives Jain against a competing flow, and no time to 90 % for a flow that never holds the link', async () => {
    const run = await fakeRun('shared', [
      { name: 'test', stack: 'bbr' },
      { name: 'competitor', stack: 'cubic' },
    ]);
    const m = measureRun(run, meta('shared'));
    expect(m.metrics.jain).toBeGreaterThan(0.95);
    expect(m.metrics.goodput_share).toBeLessThan(0.5);
    expect(m.metrics.time_to_90).toBeUndefined();
  });

  it('calls a summary without its spec an incomplete record, never measured', async () => {
    const run = await fakeRun('no-spec', [{ name: 'test', stack: 'cubic' }]);
    rmSync(join(run, 'spec.json'));
    const m = measureRun(run, meta('no-spec'));
    expect(m).toMatchObject({ status: 'failed', verdict: 'valid', metrics: {} });
    expect(m.reasons[0]).toBe('spec.json is missing');
  });

  it('calls a run without a summary missing, with a reason', () => {
    const m = measureRun(join(dir, 'never-ran'), meta('never-ran'));
    expect(m).toMatchObject({ status: 'missing', verdict: null, metrics: {} });
    expect(m.reasons[0]).toMatch(/no summary/);
  });
});

describe('qualifyHtml', () => {
  it('shows a matrix with outcome words, values, bounds and units, escaped', () => {
    const { cases, counts } = judgeSuite({
      conditions: ['plain<x>'],
      stacks: ['cubic', 'reno'],
      runs: [
        {
          ...meta('a'),
          condition: 'plain<x>',
          status: 'completed',
          verdict: 'valid',
          reasons: [],
          seconds: 10,
          metrics: { recovery_time: 4 },
        },
        {
          ...meta('b'),
          condition: 'plain<x>',
          stack: 'reno',
          status: 'completed',
          verdict: 'valid',
          reasons: [],
          seconds: 10,
          metrics: { recovery_time: 40 },
        },
      ],
      bounds: () => [{ metric: 'recovery_time', max: 30 }],
    });
    const r: SuiteResult = {
      suite: 's',
      lab: 'fake',
      imageId: null,
      kernel: null,
      seed: 1,
      repetitions: 1,
      seconds: 10,
      conditions: ['plain<x>'],
      stacks: ['cubic', 'reno'],
      cases,
      counts,
    };
    const html = qualifyHtml(r);
    expect(html).toContain('<th scope="row">plain&lt;x&gt;</th>');
    expect(html).toContain('✓ pass');
    expect(html).toContain('✗ fail');
    expect(html).toContain('Loss recovery time (s): 40.0 s, n=1; bound ≤ 30.0 s — <strong>missed</strong>');
    expect(html).toContain('1 of 2 passed</strong>, 1 failed, 0 errors');
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
  });
});
