import { describe, expect, it } from 'vitest';
import { TransportParseError } from './common.js';
import {
  PSOCKETS_COLUMNS,
  type PsocketsEnd,
  type PsocketsRow,
  parsePsocketsLine,
  psocketsDigestArgv,
  psocketsReceiverArgv,
  psocketsSenderArgv,
} from './psockets.js';
import {
  parseRbudpLine,
  RBUDP_COLUMNS,
  type RbudpEnd,
  type RbudpRound,
  type RbudpRow,
  rbudpDigestArgv,
  rbudpReceiverArgv,
  rbudpSenderArgv,
} from './rbudp.js';
import {
  parseUdtLine,
  UDT_COLUMNS,
  type UdtEnd,
  type UdtRow,
  udtDigestArgv,
  udtReceiverArgv,
  udtSenderArgv,
} from './udt.js';

// Lines as the programs printed them in real runs (veth between two namespaces, tbf at 50 Mbit/s for RBUDP).
const SHA = '1bb9a15194a199e79adac70ee5a8f1ab9db13cdfd0331f2080218170e16738f3';
const RBUDP_SEND = [
  '# lfn-rbudp v1 role=send connect=198.51.100.2 port=5310 bytes=20000000 source=seed:1 rate_bps=100000000 datagram=1472 chunk=67108864 sockbuf=8388608 report_hz=2',
  `#${RBUDP_COLUMNS.join('\t')}`,
  '0\t4207814429696\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0',
  '1\t4208314457154\t500027458\t5665296\t90639758\t90639758\t0\t1\t3891\t0\t0\t0',
  '#round\tchunk=0\tround=1\tdatagrams=13737\tbytes=20000000\tdups=0\tmissing=6959\tblast_ns=1665090795\tround_ns=1668140434\tmono_ns=4209482574367',
  `#end\treason=done\trole=send\tbytes=20000000\telapsed_ns=3362937778\tavg_bps=47577449\tsha256=${SHA}\tpeer_sha256=${SHA}\tpeer_bytes=20000000\tmatch=1\tchunks=1\trounds=10\tmax_rounds=10\tdatagrams=27741\tresent=14004\tdups=0\tstale=0\tbad=0\tpace_resets=28\tsend_drops=0\tsockbuf=16777216\trows=7\tskipped_rows=0\thash_ns=18514040\tsha256_impl=shani\tuser_ns=30949000\tsys_ns=173315000`,
];

describe('parseRbudpLine', () => {
  it('parses header, rows, rounds and the end record of a real run', () => {
    const recs = RBUDP_SEND.map(parseRbudpLine);
    expect(recs[0]).toEqual({
      type: 'header',
      program: 'lfn-rbudp',
      role: 'send',
      port: 5310,
      settings: {
        role: 'send',
        connect: '198.51.100.2',
        port: '5310',
        bytes: '20000000',
        source: 'seed:1',
        rate_bps: '100000000',
        datagram: '1472',
        chunk: '67108864',
        sockbuf: '8388608',
        report_hz: '2',
      },
    });
    expect(recs[1]).toBeNull();
    expect(recs[3]).toEqual<RbudpRow>({
      type: 'row',
      tick: 1,
      monoMs: 4208314.457154,
      elapsedMs: 500.027458,
      bytes: 5665296,
      intervalBitsPerS: 90639758,
      avgBitsPerS: 90639758,
      chunk: 0,
      round: 1,
      datagrams: 3891,
      resent: 0,
      dups: 0,
      doneBytes: 0,
    });
    expect(recs[4]).toEqual<RbudpRound>({
      type: 'round',
      chunk: 0,
      round: 1,
      datagrams: 13737,
      bytes: 20000000,
      dups: 0,
      missing: 6959,
      blastMs: 1665.090795,
      roundMs: 1668.140434,
      monoMs: 4209482.574367,
    });
    expect(recs[5]).toEqual<RbudpEnd>({
      type: 'end',
      reason: 'done',
      role: 'send',
      bytes: 20000000,
      elapsedMs: 3362.937778,
      avgBitsPerS: 47577449,
      sha256: SHA,
      peerSha256: SHA,
      peerBytes: 20000000,
      match: true,
      rows: 7,
      skippedRows: 0,
      hashMs: 18.51404,
      sha256Impl: 'shani',
      userMs: 30.949,
      sysMs: 173.315,
      chunks: 1,
      rounds: 10,
      maxRounds: 10,
      datagrams: 27741,
      resent: 14004,
      dups: 0,
      stale: 0,
      bad: 0,
      paceResets: 28,
      sendDrops: 0,
      sockbufBytes: 16777216,
    });
  });

  it('maps a failed run: unknown digests are null, match is null', () => {
    const end = parseRbudpLine(
      '#end\treason=timeout\trole=recv\tbytes=0\telapsed_ns=0\tavg_bps=0\tsha256=-\tpeer_sha256=-\tpeer_bytes=0\tmatch=-\tchunks=0\trounds=0\tmax_rounds=0\tdatagrams=0\tresent=0\tdups=0\tstale=0\tbad=0\tpace_resets=0\tsend_drops=0\tsockbuf=16777216\trows=0\tskipped_rows=0\thash_ns=0\tsha256_impl=c\tuser_ns=0\tsys_ns=1000\r\n',
    );
    expect(end).toMatchObject({
      reason: 'timeout',
      role: 'recv',
      sha256: null,
      peerSha256: null,
      match: null,
    });
  });

  it('returns null for blank lines and parses digest lines', () => {
    expect(parseRbudpLine('')).toBeNull();
    expect(parseRbudpLine('\n')).toBeNull();
    expect(parseRbudpLine(`#digest\tsha256=${SHA}\tbytes=3\tsha256_impl=c`)).toEqual({
      type: 'digest',
      sha256: SHA,
      bytes: 3,
      sha256Impl: 'c',
    });
  });

  it('throws on malformed lines, other versions and other programs instead of dropping them', () => {
    expect(() => parseRbudpLine('# lfn-rbudp v2 role=send port=1')).toThrow(/version/);
    expect(() => parseRbudpLine('# lfn-psockets v1 role=send port=1')).toThrow(TransportParseError);
    expect(() => parseRbudpLine('# lfn-rbudp v1 port=1')).toThrow(/role/);
    expect(() => parseRbudpLine(`#${RBUDP_COLUMNS.slice(0, -1).join('\t')}`)).toThrow(/column/);
    expect(() => parseRbudpLine('1\t2\t3')).toThrow(/fields/);
    expect(() => parseRbudpLine(RBUDP_SEND[3]?.replace('\t3891\t', '\t-1\t') ?? '')).toThrow(/datagrams/);
    expect(() => parseRbudpLine('#round\tchunk=0\tround=1')).toThrow(/datagrams/);
    expect(() => parseRbudpLine('#end\treason=done\trole=send')).toThrow(TransportParseError);
    expect(() => parseRbudpLine(RBUDP_SEND[5]?.replace('reason=done', 'reason=crashed') ?? '')).toThrow(
      /reason/,
    );
    expect(() => parseRbudpLine(RBUDP_SEND[5]?.replace(`sha256=${SHA}`, 'sha256=abc') ?? '')).toThrow(
      /sha256/,
    );
    expect(() => parseRbudpLine(RBUDP_SEND[5]?.replace('match=1', 'match=yes') ?? '')).toThrow(/match/);
    expect(() => parseRbudpLine('#bogus\tx=1')).toThrow(/unknown record/);
    expect(() => parseRbudpLine('# comment')).toThrow(TransportParseError);
  });
});

describe('parsePsocketsLine', () => {
  it('parses header, row and end record', () => {
    expect(
      parsePsocketsLine(
        '# lfn-psockets v1 role=recv bind=0.0.0.0 port=41017 sockbuf=0 cc=default report_hz=10',
      ),
    ).toMatchObject({ type: 'header', role: 'recv', port: 41017, settings: { cc: 'default' } });
    expect(parsePsocketsLine(`#${PSOCKETS_COLUMNS.join('\t')}`)).toBeNull();
    expect(
      parsePsocketsLine(
        '1\t4068493228122\t525036336\t150994944\t2378552866\t2300716101\t150994944\t16\t9437184\t9437184',
      ),
    ).toEqual<PsocketsRow>({
      type: 'row',
      tick: 1,
      monoMs: 4068493.228122,
      elapsedMs: 525.036336,
      bytes: 150994944,
      intervalBitsPerS: 2378552866,
      avgBitsPerS: 2300716101,
      inOrderBytes: 150994944,
      streamsActive: 16,
      minStreamBytes: 9437184,
      maxStreamBytes: 9437184,
    });
    const end = parsePsocketsLine(
      `#end\treason=done\trole=send\tbytes=500000000\telapsed_ns=1482066714\tavg_bps=2698933835\tsha256=${SHA}\tpeer_sha256=${SHA.replace('1', '2')}\tpeer_bytes=500000000\tmatch=0\tstreams=16\tblock=131072\twindow=64\trows=3\tskipped_rows=0\thash_ns=531937839\tsha256_impl=shani\tuser_ns=662261000\tsys_ns=127570000`,
    );
    expect(end).toMatchObject<Partial<PsocketsEnd>>({
      match: false,
      streams: 16,
      blockBytes: 131072,
      windowBlocks: 64,
      hashMs: 531.937839,
    });
  });

  it('rejects rows of another program', () => {
    expect(() => parsePsocketsLine(RBUDP_SEND[3] ?? '')).toThrow(/fields/);
    expect(() => parsePsocketsLine('#round\tchunk=0')).toThrow(/unknown record/);
  });
});

describe('parseUdtLine', () => {
  it('parses a row with perfmon columns and the end record', () => {
    expect(parseUdtLine(`#${UDT_COLUMNS.join('\t')}`)).toBeNull();
    expect(
      parseUdtLine(
        '1\t4190052440885\t307670679\t11985696\t311650003\t311650003\t98438\t2725632\t6928128\t0\t183\t0\t0\t0\t0\t69\t8029\t5\t1000\t0\t12286500',
      ),
    ).toEqual<UdtRow>({
      type: 'row',
      tick: 1,
      monoMs: 4190052.440885,
      elapsedMs: 307.670679,
      bytes: 11985696,
      intervalBitsPerS: 311650003,
      avgBitsPerS: 311650003,
      rttUs: 98438,
      bandwidthBitsPerS: 2725632,
      sendRateBitsPerS: 6928128,
      recvRateBitsPerS: 0,
      pktsSent: 183,
      pktsRecv: 0,
      sndLoss: 0,
      rcvLoss: 0,
      retrans: 0,
      cwndPackets: 69,
      flowWindowPackets: 8029,
      flightPackets: 5,
      sndPeriodMs: 0.001,
      sndBufAvailBytes: 0,
      rcvBufAvailBytes: 12286500,
    });
    expect(
      parseUdtLine(
        `#end\treason=done\trole=send\tbytes=200000000\telapsed_ns=2864779593\tavg_bps=558507190\tsha256=${SHA}\tpeer_sha256=${SHA}\tpeer_bytes=200000000\tmatch=1\tpkts_sent=137522\tpkts_recv=1\tsnd_loss=0\trcv_loss=0\tretrans=0\tacks_sent=1\tacks_recv=283\tnaks_sent=0\tnaks_recv=0\trtt_us=2618\tsockbuf=16777216\trows=12\tskipped_rows=0\thash_ns=230978960\tsha256_impl=shani\tuser_ns=302073000\tsys_ns=461196000`,
      ),
    ).toMatchObject<Partial<UdtEnd>>({ match: true, pktsSent: 137522, acksRecv: 283, rttUs: 2618 });
  });

  it('keeps large nanosecond values exact to the nanosecond in ms', () => {
    const row = parseUdtLine(`7\t1795277572709673682\t1000000001${'\t0'.repeat(UDT_COLUMNS.length - 3)}`);
    if (row?.type !== 'row') throw new Error('expected a row');
    expect(row.monoMs).toBeCloseTo(1795277572709.6736, 3);
    expect(row.elapsedMs).toBe(1000.000001);
  });
});

describe('argv builders', () => {
  it('build argv arrays with the program first and only the options given', () => {
    expect(rbudpReceiverArgv()).toEqual(['lfn-rbudp', '--recv']);
    expect(
      rbudpReceiverArgv({ port: 0, bind: '::', reportHz: 20, timeoutS: 0.5, sockbufBytes: 1 << 24 }),
    ).toEqual([
      'lfn-rbudp',
      '--recv',
      '--bind',
      '::',
      '--port',
      '0',
      '--report',
      '20',
      '--timeout',
      '0.5',
      '--sockbuf',
      '16777216',
    ]);
    expect(
      rbudpSenderArgv({
        connect: '198.51.100.2',
        port: 5310,
        payload: { bytes: 50e6, seed: 7 },
        rateBitsPerS: 100e6,
        datagramBytes: 8972,
        chunkBytes: 16 << 20,
        binary: '/opt/lfn/bin/lfn-rbudp',
      }),
    ).toEqual([
      '/opt/lfn/bin/lfn-rbudp',
      '--send',
      '--connect',
      '198.51.100.2',
      '--port',
      '5310',
      '--bytes',
      '50000000',
      '--seed',
      '7',
      '--rate',
      '100000000',
      '--datagram',
      '8972',
      '--chunk',
      '16777216',
    ]);
    expect(
      psocketsSenderArgv({
        connect: '2001:db8::2',
        payload: { file: '/tmp/x', bytes: 10 },
        streams: 256,
        blockBytes: 65536,
        windowBlocks: 1024,
        sockbufBytes: 65536,
        cc: 'reno',
      }),
    ).toEqual([
      'lfn-psockets',
      '--send',
      '--connect',
      '2001:db8::2',
      '--file',
      '/tmp/x',
      '--bytes',
      '10',
      '--streams',
      '256',
      '--block',
      '65536',
      '--window',
      '1024',
      '--sockbuf',
      '65536',
      '--cc',
      'reno',
    ]);
    expect(psocketsReceiverArgv({ cc: 'bbr' })).toEqual(['lfn-psockets', '--recv', '--cc', 'bbr']);
    expect(
      udtSenderArgv({
        connect: '10.0.0.2',
        payload: { bytes: 1, seed: 2n ** 64n - 1n },
        mssBytes: 9000,
        flowWindowPackets: 100000,
        udtBufBytes: 64 << 20,
        sockbufBytes: 0,
        maxRateBitsPerS: 1e9,
      }),
    ).toEqual([
      'lfn-udt',
      '--send',
      '--connect',
      '10.0.0.2',
      '--bytes',
      '1',
      '--seed',
      '18446744073709551615',
      '--mss',
      '9000',
      '--fc',
      '100000',
      '--udt-buf',
      '67108864',
      '--sockbuf',
      '0',
      '--max-rate',
      '1000000000',
    ]);
    expect(udtReceiverArgv({ reportHz: 0 })).toEqual(['lfn-udt', '--recv', '--report', '0']);
    expect(rbudpDigestArgv({ bytes: 3 })).toEqual(['lfn-rbudp', '--digest', '--bytes', '3']);
    expect(psocketsDigestArgv({ file: '-' }, './lfn-psockets')).toEqual([
      './lfn-psockets',
      '--digest',
      '--file',
      '-',
    ]);
    expect(udtDigestArgv({ bytes: 5, seed: 0 })).toEqual([
      'lfn-udt',
      '--digest',
      '--bytes',
      '5',
      '--seed',
      '0',
    ]);
  });

  it('rejects values the programs would refuse', () => {
    const base = { connect: '198.51.100.2', payload: { bytes: 1 } };
    expect(() => rbudpSenderArgv({ ...base, rateBitsPerS: 999 })).toThrow(/rateBitsPerS/);
    expect(() => rbudpSenderArgv({ ...base, rateBitsPerS: 1e6, datagramBytes: 65508 })).toThrow(/datagram/);
    expect(() => rbudpSenderArgv({ ...base, connect: 'receiver.lab', rateBitsPerS: 1e6 })).toThrow(/numeric/);
    expect(() => rbudpSenderArgv({ ...base, port: 0, rateBitsPerS: 1e6 })).toThrow(/port/);
    expect(() => rbudpSenderArgv({ ...base, payload: { bytes: 0 }, rateBitsPerS: 1e6 })).toThrow(/bytes/);
    expect(() => rbudpSenderArgv({ ...base, payload: { bytes: 1.5 }, rateBitsPerS: 1e6 })).toThrow(/bytes/);
    expect(() => rbudpSenderArgv({ ...base, payload: { bytes: 1, seed: -1 }, rateBitsPerS: 1e6 })).toThrow(
      /seed/,
    );
    expect(() =>
      rbudpSenderArgv({ ...base, payload: { bytes: 1, seed: 2n ** 64n }, rateBitsPerS: 1e6 }),
    ).toThrow(/seed/);
    expect(() => rbudpReceiverArgv({ port: 65536 })).toThrow(/port/);
    expect(() => rbudpReceiverArgv({ reportHz: 1001 })).toThrow(/reportHz/);
    expect(() => rbudpReceiverArgv({ timeoutS: -1 })).toThrow(/timeoutS/);
    expect(() => rbudpReceiverArgv({ bind: 'localhost' })).toThrow(/numeric/);
    expect(() => psocketsSenderArgv({ ...base, streams: 0 })).toThrow(/streams/);
    expect(() => psocketsSenderArgv({ ...base, streams: 1025 })).toThrow(/streams/);
    expect(() => psocketsSenderArgv({ ...base, streams: 2, blockBytes: 100 })).toThrow(/blockBytes/);
    expect(() => psocketsReceiverArgv({ cc: 'bbr; reboot' })).toThrow(/cc/);
    expect(() => psocketsSenderArgv({ ...base, streams: 1, payload: { file: '' } })).toThrow(/file/);
    expect(() => udtSenderArgv({ ...base, mssBytes: 40 })).toThrow(/mssBytes/);
    expect(() => udtReceiverArgv({ flowWindowPackets: 1 })).toThrow(/flowWindowPackets/);
  });
});
