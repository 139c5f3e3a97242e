// Issue 2's acceptance tests, in the real lab: the pinned kernel under qemu, real netem, real
// iperf3 and ping. Thresholds are the issue's; each could fail on a broken emulator. Runs are as
// short as their claim allows (10–20 s, 20 Mbit/s where the rate is not the claim): a dilated TCG
// lab carries ~0.3 lab s per wall s at 50 Mbit/s, ~0.5 at 20.

import { execFileSync } from 'node:child_process';
import { MAINLINE_STACKS } from '@lfnlab/emulator';
import { beforeAll, describe, expect, it } from 'vitest';
import { LFNLAB_BIN } from '../../test/support/cliProcess.js';
import { bootTestLab, type QdiscStat, rootQdisc, runSpec } from '../../test/support/lab.js';
import { flentData } from '../report/exports.js';
import { loadRun } from '../report/load.js';
import { renderRunReport } from '../report/runReport.js';
import { rejudgeRun } from './rejudge.js';

beforeAll(async () => {
  await bootTestLab();
});

describe('emulated link', () => {
  it('idle RTT: configured 50 ms → measured min within 50 ms + 1 % + 0.5 ms', async () => {
    const r = await runSpec({
      name: 'idle-rtt',
      duration: '2s',
      paths: { main: { rtt: '50ms', rate: '50Mbit' } },
      flows: [{ stack: 'reno' }],
    });
    const ping = r.summary.paths[0]?.idleRtt;
    console.log(`idle RTT min ${ping?.minMs} ms avg ${ping?.avgMs} ms`);
    expect(ping?.received).toBe(10);
    expect(ping?.minMs).toBeLessThanOrEqual(50 * 1.01 + 0.5);
    // Calibration must not overshoot: packets cannot arrive before the configured delay.
    expect(ping?.minMs).toBeGreaterThanOrEqual(49.5);
    // The router's softirq work must not wait behind the senders (emulator/agent/softirq.go), and
    // the run's record says so.
    const softirq: { comm: string; policy: string; priority: number }[] =
      r.read('environment.json').agent.softirq;
    expect(softirq.length).toBeGreaterThan(0);
    for (const t of softirq)
      expect(t).toMatchObject({ comm: expect.stringMatching(/^ksoftirqd\//), policy: 'fifo', priority: 10 });
  });

  it('one CUBIC flow over 50 Mbit/s, 20 ms, 1 BDP buffer, 10 s: goodput >= 90 % of the rate', async () => {
    const r = await runSpec({
      name: 'cubic-goodput',
      duration: '10s',
      paths: { main: { rtt: '20ms', rate: '50Mbit', buffer: '1bdp' } },
      flows: [{ stack: 'cubic' }],
    });
    const f = r.summary.flows[0];
    console.log(
      `cubic goodput ${f?.goodputMbps.wholeRun} Mbit/s whole run, ${f?.goodputMbps.mean} ± ${f?.goodputMbps.sd} per interval`,
    );
    expect(f?.status).toBe('ok');
    expect(f?.observedStacks).toEqual(['cubic']);
    expect(f?.goodputMbps.wholeRun).toBeGreaterThanOrEqual(45);
    // The bottleneck is what limited it: drops happened at the bottleneck stage only.
    const after: QdiscStat[] = r.read('qdisc-after.json');
    expect(rootQdisc(after, 'p0-rcv')?.drops).toBe(0);
    expect(rootQdisc(after, 'p0-snd')?.drops).toBe(0);
  });

  it("two flows of one stack started together, 20 s: Jain index >= 0.9, and the run's report draws every plot", async () => {
    const r = await runSpec({
      name: 'jain-two-cubic',
      duration: '20s',
      paths: { main: { rtt: '20ms', rate: '20Mbit', buffer: '1bdp' } },
      flows: [{ stack: 'cubic' }, { stack: 'cubic' }],
    });
    const jain = r.summary.paths[0]?.jain.forward;
    console.log(
      `Jain ${jain}; goodputs ${r.summary.flows.map((f) => f.goodputMbps.wholeRun?.toFixed(1)).join(' / ')} Mbit/s`,
    );
    expect(r.summary.flows.every((f) => f.status === 'ok')).toBe(true);
    expect(jain).toBeGreaterThanOrEqual(0.9);
    // The report of a real run: every plot drawn from the lab's samples, small enough to mail.
    const run = loadRun(r.dir);
    const html = renderRunReport(run);
    console.log(`report ${Buffer.byteLength(html)} B`);
    expect(Buffer.byteLength(html)).toBeLessThan(2_000_000);
    for (const f of run.summary.flows) expect(html).toContain(f.name);
    for (const id of ['plot-goodput', 'plot-cwnd', 'plot-rtt', 'plot-queue', 'plot-stability', 'plot-cpu']) {
      const at = html.indexOf(`id="${id}"`);
      const svg = html.slice(html.lastIndexOf('<svg', at), html.indexOf('</svg>', at));
      expect(at, id).toBeGreaterThan(0);
      expect(svg, id).toMatch(/<polyline|<circle|<rect[^>]*><title>/);
    }
    const d = flentData(run);
    for (const v of Object.values(d.results)) expect(v).toHaveLength(d.x_values.length);
  });

  it('8 streams that connect together send within a few round trips; iperf3 -P opens its 8 one by one', async () => {
    const r = await runSpec({
      name: 'streams-connect',
      duration: '10s',
      paths: { main: { rtt: '400ms', rate: '20Mbit', buffer: '1bdp' } },
      flows: [
        { name: 'serial', stack: 'reno', streams: 8 },
        { name: 'together', stack: 'reno', streams: 8, connect: 'together' },
      ],
    });
    const flow = (name: string) => r.summary.flows.find((f) => f.name === name);
    const serial = flow('serial');
    const together = flow('together');
    console.log(
      `data began: serial ${serial?.dataStartS?.toFixed(2)} s, together ${together?.dataStartS?.toFixed(2)} s; goodput ${serial?.goodputMbps.wholeRun?.toFixed(1)} / ${together?.goodputMbps.wholeRun?.toFixed(1)} Mbit/s`,
    );
    expect(together?.status).toBe('ok');
    // One iperf3 per stream: control connection, parameters, data connection — about 3 round
    // trips, plus the sampler's tick and the lab's process starts.
    expect(together?.dataStartS).toBeLessThan(6 * 0.4);
    // iperf3 -P: seven more blocking connects before any stream sends, each behind the other flow's queue.
    expect((serial?.dataStartS ?? 0) - (together?.dataStartS ?? 0)).toBeGreaterThan(4 * 0.4);
    // The eight reports are one flow: eight distinct streams, each with its own port, all sending.
    const client = r.read('flows/together.client.json');
    const ports = client.start.connected.map((c: { local_port: number }) => c.local_port);
    expect(new Set(client.start.connected.map((c: { socket: number }) => c.socket)).size).toBe(8);
    expect(new Set(ports).size).toBe(8);
    expect(client.end.streams.every((s: { sender: { bytes: number } }) => s.sender.bytes > 0)).toBe(true);
    // The tcp sampler saw the flow's eight data sockets as one flow.
    const streams = r.samples.flatMap((s) => (s.kind === 'tcp' && s.flow === 'together' ? [s.streams] : []));
    expect(Math.max(...streams)).toBe(8);
    // The verdict names the serial flow's one-by-one connects, and only that flow.
    const start = r.summary.fidelity?.checks.find((c) => c.id === 'flow-start');
    expect(start?.message).toContain('serial began');
    expect(start?.message).not.toContain('together began');
    // Nine clients due at t0 start in plan order, so the flow listed first is the first to start.
    const started = r.events.flatMap((e) => (e.type === 'flow-started' ? [e.flow] : []));
    expect(started).toEqual(['serial', 'together']);
  });

  it("reverse traffic: the forward flow's ACKs cross the reverse bottleneck with the reverse data", async () => {
    const r = await runSpec({
      name: 'reverse-acks',
      duration: '12s',
      paths: { main: { rtt: '40ms', rate: '15Mbit', buffer: '1bdp' } },
      flows: [
        { name: 'fwd', stack: 'reno' },
        { name: 'rev', stack: 'reno', streams: 4, direction: 'reverse' },
      ],
    });
    const before: QdiscStat[] = r.read('qdisc-before.json');
    const after: QdiscStat[] = r.read('qdisc-after.json');
    const delta = (dev: string) => {
      const a = rootQdisc(after, dev);
      const b = rootQdisc(before, dev);
      return { packets: (a?.packets ?? 0) - (b?.packets ?? 0), bytes: (a?.bytes ?? 0) - (b?.bytes ?? 0) };
    };
    const reverseBottleneck = delta('p0-rev');
    const fwd = r.summary.flows.find((f) => f.name === 'fwd');
    const rev = r.summary.flows.find((f) => f.name === 'rev');
    // Exact counts from iperf3: bytes the receivers got, in full-size segments.
    const received = (flow: string) => r.read(`flows/${flow}.client.json`).end.sum_received.bytes as number;
    const fwdSegments = received('fwd') / 1448;
    const revBytes = received('rev');
    console.log(
      `reverse bottleneck p0-rev: +${reverseBottleneck.packets} packets, +${reverseBottleneck.bytes} bytes; forward ~${Math.round(fwdSegments)} segments, reverse ${Math.round(revBytes)} bytes`,
    );
    expect(fwd?.status).toBe('ok');
    expect(rev?.status).toBe('ok');
    // Reverse data went through the reverse bottleneck...
    expect(reverseBottleneck.bytes).toBeGreaterThanOrEqual(revBytes * 0.95);
    // ...and so did the forward flow's ACKs (delayed ACKs: about one per two segments; at least one per three),
    // on top of one full frame per reverse segment.
    const revSegments = revBytes / 1448;
    expect(reverseBottleneck.packets).toBeGreaterThanOrEqual(revSegments + fwdSegments / 3);

    // The record holds all the verdict needs: judged again from the directory alone, with the same
    // checks, every check (two-way traffic exercises nearly all of them) comes out as the run gave it.
    const again = rejudgeRun(r.dir);
    expect(again.why).toBeNull();
    expect(again.after?.checks.length).toBe(r.summary.fidelity?.checks.length);
    expect(again.changed).toEqual([]);
    expect(again.after?.verdict).toBe(r.summary.verdict);
    const cli = execFileSync(process.execPath, [LFNLAB_BIN, 'rejudge', r.dir], { encoding: 'utf8' });
    expect(cli).toContain('1 run judged again');
    expect(cli).toContain('0 changed verdict, 0 changed checks only, 1 unchanged');
  });
});

describe('stacks', () => {
  it('every mainline stack carries a flow and the socket reports it', async () => {
    const r = await runSpec({
      name: 'all-stacks',
      duration: '6s',
      paths: { main: { rtt: '20ms', rate: '20Mbit' } },
      flows: MAINLINE_STACKS.map((stack) => ({ stack })),
    });
    const seen = Object.fromEntries(r.summary.flows.map((f) => [f.stack, f.observedStacks]));
    console.log(JSON.stringify(seen));
    // DCTCP runs its own Reno fallback ("dctcp-reno") on a connection that did not negotiate ECN,
    // most likely because Linux clears ECN from a retransmitted SYN, and 17 flows starting together
    // into one BDP of buffer can drop a SYN (seen once in CI). Either name is the dctcp module.
    const allowed = (stack: string) => (stack === 'dctcp' ? [['dctcp'], ['dctcp-reno']] : [[stack]]);
    for (const stack of MAINLINE_STACKS) expect(allowed(stack), stack).toContainEqual(seen[stack]);
    // 17 handshakes into one BDP can lose SYNs: each flow is dated by its data, and the verdict
    // says how late the latest one began.
    const starts = r.summary.flows.map((f) => f.dataStartS);
    console.log(`data starts ${JSON.stringify(starts)}`);
    const flowStart = r.summary.fidelity?.checks.find((c) => c.id === 'flow-start');
    console.log(`flow-start ${flowStart?.status}: ${flowStart?.message}`);
    expect(flowStart?.status).toMatch(/pass|warn|fail/);
    // Its control and SYN packets queue behind 16 slow starts: a flow may move under one data
    // stream's worth in 6 s (Vegas once in CI). The verdict must then name it as never begun.
    for (const f of r.summary.flows) {
      if (f.dataStartS !== null) expect(f.dataStartS, f.name).toBeGreaterThan(f.startS);
      else {
        expect(flowStart?.status, f.name).toBe('fail');
        expect(flowStart?.message, f.name).toMatch(new RegExp(`\\b${f.name}\\b[^:]*began no data stream`));
      }
    }
  });
});
