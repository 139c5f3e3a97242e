import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Check } from '../run/fidelity.js';
import type { FlowLimit } from '../run/limitedBy.js';
import type { Rejudged } from '../run/rejudge.js';
import { rejudgeDirs, storeRejudged, tallyText } from './rejudgeRuns.js';
import type { CampaignRow } from './runCampaign.js';

const check = (id: string, status: Check['status']): Check => ({
  id,
  status,
  measured: null,
  expected: '',
  message: `${id} ${status}`,
});
const limit = (sender: number): FlowLimit => ({
  limitedBy: sender >= 0.5 ? 'sender' : 'network',
  shares: { network: 1 - sender, 'receiver-window': 0, 'send-buffer': 0, sender },
  busyS: 10,
});

describe('storing a run judged again', () => {
  it("writes the new verdict and flow limits into summary.json, notes the old verdict, and updates the campaign's results", () => {
    const campaign = mkdtempSync(join(tmpdir(), 'lfnlab-rejudge-store-'));
    const dir = join(campaign, 'runs', '003-highspeed-r1');
    mkdirSync(dir, { recursive: true });
    const before = {
      verdict: 'invalid' as const,
      checks: [check('lab-limited:fwd', 'fail')],
      reasons: ['held'],
    };
    const summary = {
      name: 'x',
      status: 'completed',
      verdict: 'invalid',
      fidelity: before,
      flows: [{ name: 'fwd', limitedBy: limit(0.58) }],
      paths: [],
    };
    writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary));
    const row: CampaignRow = {
      id: '003-highspeed-r1',
      repetition: 1,
      params: {},
      status: 'completed',
      verdict: 'invalid',
      goodputMbps: { fwd: 18.2 },
      jainForward: null,
      utilisationForward: null,
    };
    writeFileSync(join(campaign, 'results.json'), JSON.stringify([row]));
    const after = { verdict: 'suspect' as const, checks: [check('lab-limited:fwd', 'pass')], reasons: [] };
    const r: Rejudged = {
      dir,
      summary: summary as unknown as Rejudged['summary'],
      before,
      after,
      limits: { fwd: limit(0) },
      why: null,
      changed: [{ id: 'lab-limited:fwd', before: before.checks[0] ?? null, after: after.checks[0] ?? null }],
    };
    storeRejudged(r, 'lfnlab 0.1.0 (abc)');
    const stored = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(stored.verdict).toBe('suspect');
    expect(stored.fidelity).toEqual(after);
    expect(stored.flows[0].limitedBy.shares.sender).toBe(0);
    expect(stored.rejudged).toEqual([
      {
        at: expect.any(String),
        by: 'lfnlab 0.1.0 (abc)',
        previousVerdict: 'invalid',
        changed: [{ id: 'lab-limited:fwd', before: 'fail', after: 'pass' }],
      },
    ]);
    expect(JSON.parse(readFileSync(join(campaign, 'results.json'), 'utf8'))[0].verdict).toBe('suspect');
    expect(readFileSync(join(campaign, 'results.csv'), 'utf8')).toContain('003-highspeed-r1');
  });

  it('stores metrics computed again, repeats them in the flow fields, and notes which moved', () => {
    const campaign = mkdtempSync(join(tmpdir(), 'lfnlab-rejudge-metrics-'));
    const dir = join(campaign, 'runs', '008-bic-r1');
    mkdirSync(dir, { recursive: true });
    const verdict = { verdict: 'valid' as const, checks: [check('idle-rtt:main', 'pass')], reasons: [] };
    const old = { flows: [{ flow: 'test', metrics: [], recoveries: 0 }], groups: [], theory: [] };
    const summary = {
      name: 'x',
      status: 'completed',
      verdict: 'valid',
      fidelity: verdict,
      flows: [{ name: 'test', goodputMbps: { mean: 60, sd: 4, wholeRun: 60 }, stability: 0.2 }],
      paths: [],
      metrics: old,
    };
    writeFileSync(join(dir, 'summary.json'), JSON.stringify(summary));
    const metrics = {
      flows: [
        {
          flow: 'test',
          recoveries: 0,
          metrics: [
            { id: 'throughput.mean', value: 62e6, unit: 'bit/s' },
            { id: 'throughput.sd', value: 3.8e6, unit: 'bit/s' },
            { id: 'stability.sigma_over_mu', value: 0.0613, unit: 'ratio' },
          ],
        },
      ],
      groups: [
        {
          path: 'main',
          direction: 'forward' as const,
          flows: ['test'],
          metrics: [{ id: 'stability.aggregate', value: 0.002, unit: 'ratio' }],
        },
      ],
      theory: [],
    } as unknown as NonNullable<Rejudged['metrics']>;
    const moved = ['flow:test stability.sigma_over_mu', 'main.forward stability.aggregate'];
    storeRejudged(
      {
        dir,
        summary: summary as unknown as Rejudged['summary'],
        before: verdict,
        after: verdict,
        why: null,
        changed: [],
        metrics,
        metricsChanged: moved,
      },
      'lfnlab 0.1.0 (abc)',
    );
    const stored = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(stored.metrics).toEqual(metrics);
    expect(stored.flows[0].stability).toBe(0.0613);
    expect(stored.flows[0].goodputMbps).toEqual({ mean: 62, sd: 3.8, wholeRun: 60 });
    expect(stored.rejudged[0].metricsChanged).toEqual(moved);
  });

  it('counts runs it could not judge, and says why, without touching them', () => {
    const unfinished = mkdtempSync(join(tmpdir(), 'lfnlab-rejudge-unfinished-'));
    const { outcomes, tally } = rejudgeDirs([unfinished], { write: true, by: 'lfnlab 0.1.0' });
    expect(outcomes[0]?.why).toBe('the run has not finished (no summary.json)');
    expect(tally).toEqual({ verdict: 0, checks: 0, same: 0, unjudged: 1, metrics: 0 });
    expect(tallyText(tally)).toBe(
      '0 changed verdict, 0 changed checks only, 0 unchanged, 1 could not be judged',
    );
  });
});
