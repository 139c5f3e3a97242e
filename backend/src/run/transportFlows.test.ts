// The run's integrity check on a transport flow: its own comparison of the two sides' digests, and
// a flow that fails visibly when they differ.
import { describe, expect, it } from 'vitest';
import { type FlowResult, summariseFlow } from './summary.js';
import {
  describeTransfer,
  parseTransportOutput,
  transferIntervals,
  transferResult,
  transportExitError,
} from './transportFlows.js';

const SHA = '12c4ad4096a573c38320419ae1e1769955ad31c4c3e38a59fecdd2fab59f7bff';
const OTHER = 'f'.repeat(64);
const COLUMNS =
  '#tick\tmono_ns\telapsed_ns\tbytes\tinterval_bps\tavg_bps\tin_order\tstreams_active\tmin_stream_bytes\tmax_stream_bytes';

/** lfn-psockets output as it prints it (taken from a loopback run), with the digest and byte count swappable. */
function output(role: 'send' | 'recv', sha: string, bytes = 3_000_000): string {
  return [
    `# lfn-psockets v1 role=${role} bind=0.0.0.0 port=5201 sockbuf=0 cc=default report_hz=1`,
    COLUMNS,
    '0\t1000000000\t0\t0\t0\t0\t0\t2\t0\t0',
    '1\t2000000000\t1000000000\t1500000\t12000000\t12000000\t1500000\t2\t750000\t750000',
    '2\t3000000000\t2000000000\t3000000\t12000000\t12000000\t3000000\t0\t1500000\t1500000',
    `#end\treason=done\trole=${role}\tbytes=${bytes}\telapsed_ns=2000000000\tavg_bps=12000000\tsha256=${sha}\tpeer_sha256=${SHA}\tpeer_bytes=3000000\tmatch=1\tstreams=2\tblock=131072\twindow=16\trows=3\tskipped_rows=0\thash_ns=2573012\tsha256_impl=shani\tuser_ns=4882000\tsys_ns=0`,
    '',
  ].join('\n');
}

const flow = {
  name: 'ps',
  transport: 'psockets',
  stack: 'cubic',
  path: 'main',
  direction: 'forward',
  streams: 2,
  port: 5201,
  rttMs: 20,
  clientNs: 'lfn-p0-snd',
  serverNs: 'lfn-p0-rcv',
  serverAddr: '10.1.2.2',
  startMs: 0,
  durationMs: 20_000,
  bytes: 3_000_000,
  windowBytes: null,
  rateBps: null,
  payloadSeed: 1001,
} as const;

function result(senderSha: string, receivedBytes = 3_000_000): FlowResult {
  const sender = parseTransportOutput('psockets', output('send', senderSha));
  const receiver = parseTransportOutput('psockets', output('recv', SHA, receivedBytes));
  return {
    flow: { ...flow },
    client: null,
    server: null,
    intervals: transferIntervals('ps', 1, receiver),
    observedStacks: [],
    startedAtS: 1,
    error: null,
    transfer: transferResult('psockets', 3_000_000, sender, receiver),
  };
}

describe('transport flows', () => {
  it('parses both sides, and equal digests with every byte through are integrity ok', () => {
    const r = result(SHA);
    expect(r.transfer).toMatchObject({
      integrity: 'ok',
      sha256: { sender: SHA, receiver: SHA },
      bytes: { planned: 3_000_000, sent: 3_000_000, received: 3_000_000 },
      seconds: 2,
      goodputBps: 12e6,
      unparsed: { sender: 0, receiver: 0 },
    });
    expect(r.intervals.map((s) => [s.t, s.seconds, s.goodputBps])).toEqual([
      [2, 1, 12e6],
      [3, 1, 12e6],
    ]);
    const s = summariseFlow(r);
    expect(s).toMatchObject({ status: 'ok', error: null, integrity: 'ok', transport: 'psockets' });
    expect(s.goodputMbps.wholeRun).toBe(12);
    expect(describeTransfer('ps', r.transfer as never)).toMatch(
      /3000000 of 3000000 B in 2\.0 s, 12\.00 Mbit\/s, integrity ok/,
    );
  });

  it('fails the flow visibly when the digests differ, whatever the programs said', () => {
    const s = summariseFlow(result(OTHER));
    expect(s.status).toBe('failed');
    expect(s.integrity).toBe('mismatch');
    expect(s.error).toMatch(new RegExp(`^integrity mismatch: receiver sha256 ${SHA} .*sender ${OTHER}`));
  });

  it('counts a short transfer as a mismatch even with equal digests of what did arrive', () => {
    expect(summariseFlow(result(SHA, 2_000_000)).integrity).toBe('mismatch');
  });

  it('has no verdict without both digests, and the flow fails', () => {
    const receiver = parseTransportOutput('psockets', 'garbage\n');
    const t = transferResult(
      'psockets',
      3_000_000,
      parseTransportOutput('psockets', output('send', SHA)),
      receiver,
    );
    expect(t.integrity).toBeNull();
    expect(t.unparsed.receiver).toBe(1);
    expect(summariseFlow({ ...result(SHA), transfer: t }).status).toBe('failed');
  });

  it('says why a side exited', () => {
    const exit = (code: number, stdout = '', stderr = '') => ({
      name: 'x',
      code,
      signal: null,
      stdout,
      stderr,
    });
    expect(transportExitError('client', exit(0) as never)).toBeNull();
    expect(transportExitError('server', exit(3) as never)).toMatch(/^receiver: .*SHA-256 differs/);
    expect(transportExitError('client', exit(1, '#end\treason=timeout\n') as never)).toBe(
      'sender: ended: timeout',
    );
  });
});
