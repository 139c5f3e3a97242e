// Scheduled path changes are built in one place (pathChangeCmds): the plan shows them on the
// configured delay, a run carries them out on the delay it calibrated. The expected commands are
// what the code before that refactor planned and ran for the same spec and the same measured idle
// RTT (1.3 ms more than configured on every pinged pair): the lab must get exactly the same.
import { buildPlan, type Cmd, type Spec, validateSpec } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import { setUpLinks } from './labSetup.js';
import type { RunRecorder } from './record.js';
import type { LabSession, StepResult } from './session.js';

const EMULATOR_EXCESS_MS = 1.3;

function spec(input: Record<string, unknown>): Spec {
  const v = validateSpec({ name: 't', duration: '20s', flows: [{ stack: 'cubic' }], ...input });
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return v.spec;
}

/** A lab that accepts every command and answers each idle-RTT ping with the configured RTT + the excess. */
function stubLab(rttOf: (argv: string[]) => number) {
  const step = (c: Cmd): StepResult => {
    const ms = rttOf(c.argv) + EMULATOR_EXCESS_MS;
    const stdout = c.argv.includes('ping')
      ? `10 packets transmitted, 10 received, 0% packet loss\nrtt min/avg/max/mdev = ${ms}/${ms + 0.2}/${ms + 0.5}/0.05 ms`
      : '';
    return { argv: c.argv, code: 0, stdout, stderr: '', ms: 1 };
  };
  const session = {
    exec: async (cmds: Cmd[]) => cmds.map(step),
    run: async (c: Cmd) => step(c),
  };
  return session as unknown as LabSession;
}

const nullRecorder = {
  json: () => undefined,
  text: () => undefined,
  event: () => undefined,
} as unknown as RunRecorder;
const lines = (cmds: Cmd[]) => cmds.map((c) => c.argv.join(' '));

const CASES: { what: string; spec: Record<string, unknown>; planned: string[][]; run: string[][] }[] = [
  {
    what: 'a rate change (fifo): the same commands planned and run, calibration or not',
    spec: { paths: { main: { rtt: '40ms', rate: '50Mbit', changes: [{ at: '5s', rate: '20Mbit' }] } } },
    planned: [['tc -n lfn-rtr qdisc change dev p0-fwd root handle 1: netem rate 20mbit limit 166']],
    run: [['tc -n lfn-rtr qdisc change dev p0-fwd root handle 1: netem rate 20mbit limit 166']],
  },
  {
    what: 'RTT changes: run on the calibrated delay, including a change back to the configured RTT (planned as nothing to do)',
    spec: {
      paths: {
        main: {
          rtt: '40ms',
          rate: '50Mbit',
          changes: [
            { at: '5s', rtt: '100ms' },
            { at: '10s', rtt: '40ms' },
          ],
        },
      },
    },
    planned: [
      [
        'tc -n lfn-rtr qdisc change dev p0-rcv root handle 1: netem delay 50ms limit 1248',
        'tc -n lfn-rtr qdisc change dev p0-snd root handle 1: netem delay 50ms limit 1248',
        'tc -n lfn-rtr qdisc change dev p0-prb root handle 1: netem delay 50ms limit 1248',
      ],
      [],
    ],
    run: [
      [
        'tc -n lfn-rtr qdisc change dev p0-rcv root handle 1: netem delay 49350us limit 1248',
        'tc -n lfn-rtr qdisc change dev p0-snd root handle 1: netem delay 49350us limit 1248',
        'tc -n lfn-rtr qdisc change dev p0-prb root handle 1: netem delay 49350us limit 1248',
      ],
      [
        'tc -n lfn-rtr qdisc change dev p0-rcv root handle 1: netem delay 19350us limit 1248',
        'tc -n lfn-rtr qdisc change dev p0-snd root handle 1: netem delay 19350us limit 1248',
        'tc -n lfn-rtr qdisc change dev p0-prb root handle 1: netem delay 19350us limit 1248',
      ],
    ],
  },
  {
    what: 'three paths (htb, cake, fifo), rate and RTT in one change, a jittered path that is not calibrated, a host group left alone',
    spec: {
      paths: {
        a: {
          rtt: '20ms',
          rate: '100Mbit',
          aqm: 'fq_codel',
          changes: [{ at: '3s', rate: '10Mbit', rtt: '60ms' }],
        },
        b: {
          rtt: '80ms',
          rate: '30Mbit',
          aqm: 'cake',
          jitter: '2ms',
          changes: [
            { at: '4s', rtt: '30ms' },
            { at: '6s', rate: '60Mbit' },
          ],
        },
        c: { rtt: '10ms', rate: '1Gbit', changes: [{ at: '2s', rtt: '20ms', rate: '500Mbit' }] },
      },
      flows: [
        { stack: 'cubic', path: 'a' },
        { stack: 'cubic', path: 'a', rtt: '50ms' },
        { stack: 'bbr', path: 'b' },
        { stack: 'reno', path: 'c' },
      ],
    },
    planned: [
      [
        'tc -n lfn-rtr class change dev p0-fwd parent 1: classid 1:1 htb rate 10mbit ceil 10mbit',
        'tc -n lfn-rtr qdisc change dev p0-rcv root handle 1: netem delay 30ms limit 1248',
        'tc -n lfn-rtr qdisc change dev p0-snd root handle 1: netem delay 30ms limit 1248',
        'tc -n lfn-rtr qdisc change dev p0-prb root handle 1: netem delay 30ms limit 1248',
      ],
      [
        'tc -n lfn-rtr qdisc change dev p1-rcv root handle 1: netem delay 15ms 2ms limit 1298',
        'tc -n lfn-rtr qdisc change dev p1-snd root handle 1: netem delay 15ms 2ms limit 1298',
        'tc -n lfn-rtr qdisc change dev p1-prb root handle 1: netem delay 15ms 2ms limit 1298',
      ],
      ['tc -n lfn-rtr qdisc change dev p1-fwd root handle 1: cake bandwidth 60mbit'],
      [
        'tc -n lfn-rtr qdisc change dev p2-fwd root handle 1: netem rate 500mbit limit 826',
        'tc -n lfn-rtr qdisc change dev p2-rcv root handle 1: netem delay 10ms limit 2239',
        'tc -n lfn-rtr qdisc change dev p2-snd root handle 1: netem delay 10ms limit 2239',
        'tc -n lfn-rtr qdisc change dev p2-prb root handle 1: netem delay 10ms limit 2239',
      ],
    ],
    run: [
      [
        'tc -n lfn-rtr class change dev p0-fwd parent 1: classid 1:1 htb rate 10mbit ceil 10mbit',
        'tc -n lfn-rtr qdisc change dev p0-rcv root handle 1: netem delay 29350us limit 1248',
        'tc -n lfn-rtr qdisc change dev p0-snd root handle 1: netem delay 29350us limit 1248',
        'tc -n lfn-rtr qdisc change dev p0-prb root handle 1: netem delay 29350us limit 1248',
      ],
      [
        'tc -n lfn-rtr qdisc change dev p1-rcv root handle 1: netem delay 15ms 2ms limit 1298',
        'tc -n lfn-rtr qdisc change dev p1-snd root handle 1: netem delay 15ms 2ms limit 1298',
        'tc -n lfn-rtr qdisc change dev p1-prb root handle 1: netem delay 15ms 2ms limit 1298',
      ],
      ['tc -n lfn-rtr qdisc change dev p1-fwd root handle 1: cake bandwidth 60mbit'],
      [
        'tc -n lfn-rtr qdisc change dev p2-fwd root handle 1: netem rate 500mbit limit 826',
        'tc -n lfn-rtr qdisc change dev p2-rcv root handle 1: netem delay 9350us limit 2239',
        'tc -n lfn-rtr qdisc change dev p2-snd root handle 1: netem delay 9350us limit 2239',
        'tc -n lfn-rtr qdisc change dev p2-prb root handle 1: netem delay 9350us limit 2239',
      ],
    ],
  },
];

describe('scheduled path changes, planned and run', () => {
  it.each(CASES)('$what', async (c) => {
    const s = spec(c.spec);
    const plan = buildPlan(s);
    expect(plan.changes.map((x) => lines(x.cmds))).toEqual(c.planned);
    const session = stubLab(
      (argv) => plan.idleRtt.find((r) => r.probe.argv === argv || r.warmup.argv === argv)?.rttMs ?? 0,
    );
    const links = await setUpLinks(session, plan, s, nullRecorder, () => undefined);
    expect(links.changes.map((x) => lines(x.cmds))).toEqual(c.run);
    // Only the commands change: each keeps its time, path and values.
    expect(links.changes.map(({ cmds: _, ...x }) => x)).toEqual(plan.changes.map(({ cmds: _, ...x }) => x));
  });

  it('runs the planned commands when nothing was calibrated (no reply to the idle-RTT ping)', async () => {
    const s = spec(CASES[2]?.spec ?? {});
    const plan = buildPlan(s);
    const session = {
      exec: async (cmds: Cmd[]) =>
        cmds.map((c) => ({ argv: c.argv, code: 0, stdout: '', stderr: '', ms: 1 })),
      run: async (c: Cmd) => ({ argv: c.argv, code: 1, stdout: '', stderr: '', ms: 1 }),
    } as unknown as LabSession;
    const links = await setUpLinks(session, plan, s, nullRecorder, () => undefined);
    expect(links.changes).toEqual(plan.changes);
  });
});
