// Issue 8 in the real lab: FAST TCP, HSTCP-LP and the TCP-Grid rule, built against the lab
// kernel's headers and loaded at boot, each carrying flows and behaving as its paper says.
import { readFileSync } from 'node:fs';
import { connectLab } from '@lfnlab/lab-images';
import { beforeAll, describe, expect, it } from 'vitest';
import { bootTestLab, runSpec, TEST_LAB } from '../../test/support/lab.js';
import type { QueueSample, TcpFlowSample } from './samples.js';

beforeAll(async () => {
  await bootTestLab();
});

const samples = <T>(dir: string, kind: string): T[] =>
  readFileSync(`${dir}/samples/${kind}.jsonl`, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('out-of-tree stacks', () => {
  it('each module loaded at boot, carries a flow, and its socket reports its name', async () => {
    const r = await runSpec({
      name: 'oot-names',
      duration: '6s',
      paths: { main: { rtt: '20ms', rate: '20Mbit' } },
      flows: [{ stack: 'fast' }, { stack: 'hstcplp' }, { stack: 'grid' }],
    });
    const env = r.read('environment.json');
    for (const m of ['tcp_fast', 'tcp_hstcplp', 'tcp_grid']) {
      expect(env.agent.boot.modules.find((x: { name: string }) => x.name === m)).toMatchObject({ ok: true });
      expect(env.agent.modules.find((x: { name: string }) => x.name === m)?.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(Object.fromEntries(r.summary.flows.map((f) => [f.stack, f.observedStacks]))).toEqual({
      fast: ['fast'],
      hstcplp: ['hstcplp'],
      grid: ['grid'],
    });
  });

  it('FAST keeps the bottleneck queue much shorter than CUBIC on the same path', async () => {
    const queueOf = async (stack: string) => {
      const r = await runSpec({
        name: `queue-${stack}`,
        // 25 Mbit/s × 40 ms: 83 packets in flight and a 500-packet fifo, which CUBIC keeps above
        // 0.7 × 583 − 83 ≈ 325 packets after each cut, and FAST's target (alpha, 100 packets) does not.
        duration: '12s',
        paths: { main: { rtt: '40ms', rate: '25Mbit', buffer: '6bdp' } },
        flows: [{ stack }],
      });
      const q = samples<QueueSample>(r.dir, 'queue').filter((s) => s.dev === 'p0-fwd' && s.t >= 5);
      return {
        backlog: mean(q.map((s) => s.backlogPackets)),
        goodput: r.summary.flows[0]?.goodputMbps.wholeRun ?? 0,
      };
    };
    const fast = await queueOf('fast');
    const cubic = await queueOf('cubic');
    console.log(
      `mean bottleneck backlog: fast ${fast.backlog.toFixed(1)} packets at ${fast.goodput.toFixed(1)} Mbit/s, cubic ${cubic.backlog.toFixed(1)} packets at ${cubic.goodput.toFixed(1)} Mbit/s`,
    );
    expect(fast.backlog).toBeLessThan(0.5 * cubic.backlog);
    expect(fast.goodput).toBeGreaterThan(0.8 * cubic.goodput); // short queue, not an idle link
  });

  it('HSTCP-LP gives way to a competing Reno flow (clearly negative asymmetry)', async () => {
    const r = await runSpec({
      name: 'lp-vs-reno',
      duration: '30s',
      paths: { main: { rtt: '40ms', rate: '15Mbit', buffer: '1bdp' } },
      flows: [{ stack: 'hstcplp' }, { stack: 'reno' }],
    });
    const a = r.summary.metrics.groups[0]?.metrics.find((m) => m.id === 'asymmetry')?.value;
    console.log(
      `asymmetry hstcplp vs reno: ${a}; ${r.summary.flows.map((f) => `${f.stack} ${f.goodputMbps.wholeRun?.toFixed(1)}`).join(', ')} Mbit/s`,
    );
    expect(a).toBeLessThan(-0.3);
  });

  it('under isolated random losses the grid rule keeps a larger window than Reno', async () => {
    const cwndOf = async (stack: string) => {
      const r = await runSpec({
        name: `ber-${stack}`,
        // 25 Mbit/s: Reno's window stays near 22 packets at this BER whatever the rate (a 50
        // Mbit/s run gave 22.6), well under the 83-packet BDP that the grid rule can reach.
        duration: '15s',
        paths: { main: { rtt: '40ms', rate: '25Mbit', buffer: '1bdp', ber: 2e-7 } },
        flows: [{ stack }],
      });
      const tcp = samples<TcpFlowSample>(r.dir, 'tcp').filter((s) => s.t >= 5);
      return {
        cwnd: mean(tcp.map((s) => s.cwndPackets)),
        goodput: r.summary.flows[0]?.goodputMbps.wholeRun ?? 0,
      };
    };
    const grid = await cwndOf('grid');
    const reno = await cwndOf('reno');
    console.log(
      `mean cwnd under BER 2e-7: grid ${grid.cwnd.toFixed(1)} (${grid.goodput.toFixed(1)} Mbit/s), reno ${reno.cwnd.toFixed(1)} (${reno.goodput.toFixed(1)} Mbit/s)`,
    );
    expect(grid.cwnd).toBeGreaterThan(1.3 * reno.cwnd);
  });

  it('loading and unloading the modules five times leaves no warning in the kernel log', async () => {
    const ch = await connectLab(TEST_LAB, { timeoutMs: 10_000 });
    try {
      const mods = ['tcp_fast', 'tcp_hstcplp', 'tcp_grid'];
      const steps = [{ argv: ['dmesg', '-c'] }];
      for (let i = 0; i < 5; i++)
        steps.push({ argv: ['rmmod', ...mods] }, ...mods.map((m) => ({ argv: ['modprobe', m] })));
      steps.push({ argv: ['dmesg'] });
      const res = await ch.call<{
        ok: boolean;
        results: { argv: string[]; code: number; stdout: string; stderr: string }[];
      }>('exec', { steps, stopOnError: true });
      expect(res.ok, JSON.stringify(res.results.filter((r) => r.code !== 0))).toBe(true);
      const log = res.results[res.results.length - 1]?.stdout ?? '';
      expect(log).not.toMatch(/WARNING:|BUG:|Oops|Call Trace|general protection/);
      const available = await ch.call<{ stacksAvailable: string[] }>('info');
      expect(available.stacksAvailable).toEqual(expect.arrayContaining(['fast', 'hstcplp', 'grid']));
    } finally {
      ch.close();
    }
  });
});
