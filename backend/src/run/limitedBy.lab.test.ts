// Issue 14, what limited each flow, in the real lab: a rate the lab cannot carry is not judged
// valid and names the sender (the lab); a flow held by a configured 64 KB window is valid and
// names the window.
import { beforeAll, describe, expect, it } from 'vitest';
import { bootTestLab, runSpec } from '../../test/support/lab.js';
import { formatLimit } from './limitedBy.js';

beforeAll(async () => {
  await bootTestLab();
});

describe('limited by', () => {
  it('one CUBIC flow at 800 Mbit/s, 20 ms, 10 s: the lab cannot carry it, so not valid, limited by the sender', async () => {
    const r = await runSpec({
      name: 'lab-limited',
      duration: '10s',
      paths: { main: { rtt: '20ms', rate: '800Mbit', buffer: '1bdp' } },
      flows: [{ stack: 'cubic' }],
    });
    const f = r.summary.flows[0];
    console.log(
      `800 Mbit/s: ${f?.goodputMbps.wholeRun?.toFixed(1)} Mbit/s, ${formatLimit(f?.limitedBy)}, shares ${JSON.stringify(f?.limitedBy?.shares)}, verdict ${r.summary.verdict}: ${r.summary.fidelity?.reasons.join(' | ')}`,
    );
    expect(f?.limitedBy?.limitedBy).toBe('sender');
    expect(r.summary.verdict).not.toBe('valid');
  });

  it('window 64 KB at 50 Mbit/s × 40 ms (a quarter of the BDP): valid, limited by the window', async () => {
    const r = await runSpec({
      name: 'window-limited',
      duration: '10s',
      paths: { main: { rtt: '40ms', rate: '50Mbit', buffer: '1bdp' } },
      flows: [{ stack: 'cubic', window: '64KB' }],
    });
    const f = r.summary.flows[0];
    console.log(
      `64 KB window: ${f?.goodputMbps.wholeRun?.toFixed(1)} Mbit/s, ${formatLimit(f?.limitedBy)}, shares ${JSON.stringify(f?.limitedBy?.shares)}, verdict ${r.summary.verdict}: ${r.summary.fidelity?.reasons.join(' | ')}`,
    );
    expect(formatLimit(f?.limitedBy)).toMatch(/window|send-buffer/);
    expect(f?.limitedBy?.shares.sender ?? 1).toBeLessThan(0.2);
    expect(r.summary.verdict).toBe('valid');
  });
});
