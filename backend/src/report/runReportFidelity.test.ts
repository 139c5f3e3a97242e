import { describe, expect, it } from 'vitest';
import type { RunData } from './load.js';
import { fidelitySection, measuredText } from './runReportFidelity.js';

describe('measuredText', () => {
  it("gives each check's measurement in its own unit", () => {
    expect(measuredText('flow-start', 7.1312)).toBe('7.13 s late');
    expect(measuredText('idle-rtt:main', 120.0012)).toBe('120.00 ms');
    expect(measuredText('lab-cpu', 96.44)).toBe('96.4 %');
    expect(measuredText('flow-start', null)).toBe('—');
    expect(measuredText('cross-traffic:main-udp1', 0.99864)).toBe('99.86 % of its pattern');
  });
});

describe('fidelitySection', () => {
  it('says when a run was judged again, what it was and which checks moved', () => {
    const fidelity = {
      verdict: 'valid' as const,
      reasons: [],
      checks: [
        {
          id: 'bottleneck-rate:main:forward',
          status: 'pass' as const,
          measured: 25e6,
          expected: '',
          message: 'ok',
        },
      ],
    };
    const run = {
      summary: {
        fidelity,
        rejudged: [
          {
            at: '2026-11-28T08:00:00.000Z',
            by: 'lfnlab 0.1.0 (abc)',
            previousVerdict: 'invalid' as const,
            changed: [{ id: 'bottleneck-rate:main:forward', before: 'fail', after: 'pass' }],
            metricsChanged: ['main.forward stability.aggregate'],
          },
        ],
      },
    } as unknown as RunData;
    const html = fidelitySection(run);
    expect(html).toContain('Judged again 2026-11-28 by lfnlab 0.1.0 (abc): it was invalid');
    expect(html).toContain('bottleneck-rate:main:forward fail → pass');
    expect(html).toContain(
      'metrics computed again from the samples, these moved or are new: stability.aggregate',
    );
    expect(fidelitySection({ summary: { fidelity } } as unknown as RunData)).not.toContain('Judged again');
  });
});
