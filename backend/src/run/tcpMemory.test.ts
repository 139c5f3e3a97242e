import { describe, expect, it } from 'vitest';
import { checkTcpMemory, parseTcpExt, tcpCountersByNs } from './tcpMemory.js';

// The shape of a 6.1 kernel's /proc/net/netstat, cut to a few counters of each line pair.
const netstat = (pressures: number, chronoMs: number) =>
  [
    'TcpExt: SyncookiesSent TCPMemoryPressures TCPMemoryPressuresChrono PruneCalled',
    `TcpExt: 0 ${pressures} ${chronoMs} 3`,
    'IpExt: InNoRoutes InOctets',
    'IpExt: 0 123456',
    '',
  ].join('\n');

const step = (ns: string, stdout: string) => ({
  argv: ['ip', 'netns', 'exec', ns, 'cat', '/proc/net/netstat'],
  code: 0,
  stdout,
  stderr: '',
  ms: 1,
});

describe('TCP memory check', () => {
  it('reads TcpExt counters per namespace and leaves the other lines alone', () => {
    const c = tcpCountersByNs([step('lfn-p0-snd', netstat(2, 40)), step('lfn-p0-rcv', netstat(0, 0))]);
    expect(c['lfn-p0-snd']).toEqual({
      SyncookiesSent: 0,
      TCPMemoryPressures: 2,
      TCPMemoryPressuresChrono: 40,
      PruneCalled: 3,
    });
    expect(parseTcpExt('')).toEqual({});
  });

  it('passes when no end host entered memory pressure during the run', () => {
    const before = { snd: parseTcpExt(netstat(1, 5)), rcv: parseTcpExt(netstat(0, 0)) };
    const check = checkTcpMemory(before, before);
    expect(check).toMatchObject({ id: 'tcp-memory', status: 'pass', measured: 0 });
    expect(check?.message).toBe('no TCP memory pressure on 2 end hosts');
  });

  it('fails naming each host, how often and how long, and what to do', () => {
    const before = { snd: parseTcpExt(netstat(1, 5)), rcv: parseTcpExt(netstat(0, 0)) };
    const after = { snd: parseTcpExt(netstat(4, 905)), rcv: parseTcpExt(netstat(0, 0)) };
    const check = checkTcpMemory(before, after);
    expect(check).toMatchObject({ id: 'tcp-memory', status: 'fail', measured: 3 });
    expect(check?.message).toContain('TCP memory pressure 3 times (snd: 3, 900 ms)');
    expect(check?.message).toContain('lfnlab lab up --mem');
  });

  it('is not judged when a record lacks the counters', () => {
    expect(checkTcpMemory(undefined, { snd: {} })).toBeNull();
    expect(checkTcpMemory({ snd: {} }, undefined)).toBeNull();
  });
});
