// Builds emulator/transports and checks the real programs: SHA-256 test vectors and the generated payload
// through --digest (needs only the compilers), then real transfers between two network namespaces joined by a
// veth pair (needs root), including an RBUDP run through a tbf bottleneck that drops half of the blast.
// Every command is an argv array run without a shell.

import { type ChildProcess, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addTbf,
  inNs,
  isRoot,
  LineProcess,
  make,
  runs,
  sh,
  VethPair,
} from '../../test/support/testFixtures.js';
import type { TransportDigest, TransportEndBase, TransportHeader, TransportRowBase } from './common.js';
import {
  PSOCKETS_COLUMNS,
  type PsocketsEnd,
  type PsocketsRecord,
  parsePsocketsLine,
  psocketsDigestArgv,
  psocketsReceiverArgv,
  psocketsSenderArgv,
} from './psockets.js';
import {
  parseRbudpLine,
  RBUDP_COLUMNS,
  type RbudpEnd,
  type RbudpRecord,
  type RbudpRound,
  rbudpDigestArgv,
  rbudpReceiverArgv,
  rbudpSenderArgv,
} from './rbudp.js';
import {
  parseUdtLine,
  UDT_COLUMNS,
  type UdtEnd,
  type UdtRecord,
  type UdtRow,
  udtDigestArgv,
  udtReceiverArgv,
  udtSenderArgv,
} from './udt.js';

const DIR = fileURLToPath(new URL('../../transports/', import.meta.url));
const BIN = {
  rbudp: path.join(DIR, 'lfn-rbudp'),
  psockets: path.join(DIR, 'lfn-psockets'),
  udt: path.join(DIR, 'lfn-udt'),
};

const hasGcc = runs('gcc', ['--version']);
const hasGxx = runs('g++', ['--version']);
const hasLibudt = existsSync('/usr/lib/libudt.a') && existsSync('/usr/include/udt/udt.h');
const NO_GCC = 'gcc not found on PATH: cannot build emulator/transports';
const udtSkip = !hasGcc
  ? NO_GCC
  : !hasGxx
    ? 'g++ not found on PATH: cannot build lfn-udt'
    : !hasLibudt
      ? 'libudt-dev is not installed (/usr/lib/libudt.a, /usr/include/udt/udt.h): apt-get install libudt-dev'
      : null;
const netSkip = !isRoot ? 'needs root: creates network namespaces, a veth pair and a tbf qdisc' : null;

let built = false;
let udtBuilt = false;

/** Builds once per file; the Makefile links to a private name and renames, so parallel builds are safe. */
async function build(): Promise<void> {
  if (built || !hasGcc) return;
  await make(DIR, ['lfn-rbudp', 'lfn-psockets'], 180_000);
  if (udtSkip === null) {
    await make(DIR, ['lfn-udt'], 180_000);
    udtBuilt = true;
  }
  built = true;
}

// ---- digests ----

function digest(argv: string[], input?: Buffer | string, env?: NodeJS.ProcessEnv): TransportDigest {
  const [program, ...args] = argv;
  if (program === undefined) throw new Error('empty argv');
  const r = spawnSync(program, args, { input, env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.error) throw r.error;
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  const rec = parseRbudpLine(r.stdout.trim());
  if (rec?.type !== 'digest') throw new Error(`not a digest line: ${r.stdout}`);
  return rec;
}

/** TypeScript twin of payload_fill() in xfer.c: word i (LE) = splitmix64 output for seed + (i + 1) * golden. */
function generatedPayload(seed: bigint, length: number): Buffer {
  const mask = (1n << 64n) - 1n;
  const words = Math.ceil(length / 8);
  const out = Buffer.alloc(words * 8);
  for (let i = 0; i < words; i++) {
    let z = (seed + BigInt(i + 1) * 0x9e3779b97f4a7c15n) & mask;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
    out.writeBigUInt64LE(z ^ (z >> 31n), 8 * i);
  }
  return out.subarray(0, length);
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

// FIPS 180-4 / NIST example vectors.
const VECTORS: [string, string][] = [
  ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
  ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
  [
    'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
    '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
  ],
  [
    'abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu',
    'cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1',
  ],
  ['a'.repeat(1_000_000), 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0'],
];

describe('SHA-256 and the generated payload through --digest', () => {
  beforeAll(build, 200_000);

  it('matches the FIPS 180-4 vectors with both compression functions, in every program', (ctx) => {
    ctx.skip(!hasGcc, NO_GCC);
    const programs: [string, (p: { file: string }, b: string) => string[]][] = [
      [BIN.rbudp, rbudpDigestArgv],
      [BIN.psockets, psocketsDigestArgv],
    ];
    if (udtBuilt) programs.push([BIN.udt, udtDigestArgv]);
    const impls = new Set<string>();
    for (const [bin, argv] of programs) {
      for (const env of [{}, { LFN_SHA256: 'c' }]) {
        for (const [input, want] of VECTORS) {
          const d = digest(argv({ file: '-' }, bin), input, env);
          expect(d).toMatchObject({ sha256: want, bytes: Buffer.byteLength(input) });
          impls.add(d.sha256Impl);
        }
      }
    }
    expect(impls.has('c')).toBe(true);
  });

  it('pads every message length around the block boundaries like node:crypto', (ctx) => {
    ctx.skip(!hasGcc, NO_GCC);
    const data = randomBytes(200);
    for (const env of [{}, { LFN_SHA256: 'c' }]) {
      for (const len of [1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 191, 192, 200]) {
        const part = data.subarray(0, len);
        expect(digest(rbudpDigestArgv({ file: '-' }, BIN.rbudp), part, env).sha256).toBe(sha256(part));
      }
    }
  });

  it('generates the payload the TypeScript twin predicts, from any seed, in every program', (ctx) => {
    ctx.skip(!hasGcc, NO_GCC);
    for (const [seed, len] of [
      [1n, 1_000_003],
      [(1n << 64n) - 1n, 777],
      [0n, 8],
    ] as const) {
      const want = sha256(generatedPayload(seed, len));
      const payload = { bytes: len, seed };
      expect(digest(rbudpDigestArgv(payload, BIN.rbudp))).toMatchObject({ sha256: want, bytes: len });
      expect(digest(psocketsDigestArgv(payload, BIN.psockets)).sha256).toBe(want);
      if (udtBuilt) expect(digest(udtDigestArgv(payload, BIN.udt)).sha256).toBe(want);
    }
  });

  it('rejects bad usage with exit status 2 and documents every column in --help', (ctx) => {
    ctx.skip(!hasGcc, NO_GCC);
    const bad = (bin: string, args: string[], re: RegExp) => {
      const r = spawnSync(bin, args, { encoding: 'utf8' });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(re);
    };
    bad(BIN.rbudp, [], /--send or --recv/);
    bad(BIN.rbudp, ['--send', '--connect', '198.51.100.2', '--bytes', '1M'], /--rate/);
    bad(BIN.rbudp, ['--send', '--connect', 'example.org', '--bytes', '1', '--rate', '1M'], /numeric/);
    bad(BIN.rbudp, ['--recv', '--bytes', '5'], /for --send/);
    bad(BIN.psockets, ['--send', '--connect', '198.51.100.2', '--bytes', '1', '--streams', '0'], /--streams/);
    bad(BIN.psockets, ['--recv', '--send'], /only one/);
    const helps: [string, readonly string[]][] = [
      [BIN.rbudp, RBUDP_COLUMNS],
      [BIN.psockets, PSOCKETS_COLUMNS],
    ];
    if (udtBuilt) helps.push([BIN.udt, UDT_COLUMNS]);
    for (const [bin, columns] of helps) {
      const help = spawnSync(bin, ['--help'], { encoding: 'utf8' });
      expect(help.status).toBe(0);
      for (const c of columns) expect(help.stdout).toContain(`  ${c} `);
    }
  });
});

// ---- transfers between two namespaces ----

const NET = new VethPair({
  prefix: 'lfnt-',
  devA: 'lfnt-a',
  devB: 'lfnt-b',
  addrA: '198.51.100.1',
  addrB: '198.51.100.2',
});
const { nsA: NS_A, nsB: NS_B, devA: DEV_A, addrB: ADDR_B } = NET; // A sends, B receives
const MB = 1_000_000;

type Parse<R> = (line: string) => R | null;

interface Proc<R> {
  child: ChildProcess;
  records: R[];
  stderr: () => string;
  /** The header line, which each program prints once it is ready (the receiver: listening). */
  header: Promise<TransportHeader>;
  done: Promise<number | null>;
}

const children = new Set<ChildProcess>();

function start<R extends { type: string }>(argv: string[], parse: Parse<R>): Proc<R> {
  const records: R[] = [];
  let onHeader: (h: TransportHeader) => void = () => {};
  let onFail: (e: Error) => void = () => {};
  const header = new Promise<TransportHeader>((resolve, reject) => {
    onHeader = resolve;
    onFail = reject;
  });
  // Unhandled if the caller never waits for the header (a sender's): keep node quiet about it.
  header.catch(() => {});
  const proc = new LineProcess(argv, (line) => {
    const rec = parse(line);
    if (rec === null) return;
    if (rec.type === 'header') onHeader(rec as unknown as TransportHeader);
    records.push(rec);
  });
  const { child } = proc;
  children.add(child);
  const done = proc.done.then(({ code, stderr }) => {
    children.delete(child);
    onFail(new Error(`${argv.join(' ')} exited (${String(code)}) before its header: ${stderr}`));
    return code;
  });
  return { child, records, stderr: () => proc.stderr, header, done };
}

interface Transfer<R> {
  send: R[];
  recv: R[];
  sendCode: number | null;
  recvCode: number | null;
  sendErr: string;
  recvErr: string;
}

/** Starts the receiver in NS_B on a free port, waits for its header, then runs the sender in NS_A. */
async function transfer<R extends { type: string }>(
  parse: Parse<R>,
  receiver: string[],
  sender: (port: number) => string[],
): Promise<Transfer<R>> {
  const recv = start(inNs(NS_B, receiver), parse);
  const { port } = await recv.header;
  const send = start(inNs(NS_A, sender(port)), parse);
  const [sendCode, recvCode] = await Promise.all([send.done, recv.done]);
  return {
    send: send.records,
    recv: recv.records,
    sendCode,
    recvCode,
    sendErr: send.stderr(),
    recvErr: recv.stderr(),
  };
}

function endOf<E extends TransportEndBase>(records: { type: string }[]): E {
  const ends = records.filter((r) => r.type === 'end');
  expect(ends).toHaveLength(1);
  expect(records.at(-1)?.type).toBe('end');
  return ends[0] as E;
}

function rowsOf<T extends TransportRowBase>(records: { type: string }[]): T[] {
  return records.filter((r): r is T => r.type === 'row');
}

/** The checks every verified transfer must pass; returns both end records. */
function expectVerified<E extends TransportEndBase>(
  t: Transfer<{ type: string }>,
  bytes: number,
  sha: string,
) {
  expect(t.sendErr).toBe('');
  expect(t.recvErr).toBe('');
  expect(t.sendCode).toBe(0);
  expect(t.recvCode).toBe(0);
  const s = endOf<E>(t.send);
  const r = endOf<E>(t.recv);
  expect(s).toMatchObject({ reason: 'done', role: 'send', bytes, sha256: sha, match: true });
  expect(r).toMatchObject({ reason: 'done', role: 'recv', bytes, sha256: sha, match: true });
  expect(s.peerSha256).toBe(r.sha256);
  expect(r.peerSha256).toBe(s.sha256);
  expect(s.peerBytes).toBe(bytes);
  expect(r.peerBytes).toBe(bytes);
  for (const e of [s, r]) {
    expect(e.elapsedMs).toBeGreaterThan(0);
    expect(e.avgBitsPerS).toBeGreaterThan(0);
    expect(e.hashMs).toBeGreaterThan(0);
    expect(e.userMs + e.sysMs).toBeGreaterThan(0);
  }
  // Rows start at the transfer's start and never go backwards.
  for (const records of [t.send, t.recv]) {
    const rows = rowsOf(records);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]).toMatchObject({ tick: 0, bytes: 0 });
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1], rows[i]] as [TransportRowBase, TransportRowBase];
      expect(b.tick).toBeGreaterThan(a.tick);
      expect(b.bytes).toBeGreaterThanOrEqual(a.bytes);
      expect(b.bytes).toBeLessThanOrEqual(bytes);
    }
  }
  return { s, r };
}

const measured: string[] = [];
function note(what: string, end: TransportEndBase): void {
  measured.push(
    `${what}: ${(end.avgBitsPerS / 1e6).toFixed(0)} Mbit/s over ${(end.bytes / MB).toFixed(0)} MB, ` +
      `receiver CPU ${(end.userMs + end.sysMs).toFixed(0)} ms (SHA-256 ${end.hashMs.toFixed(0)} ms)`,
  );
}

describe('transfers over a veth pair between two namespaces', () => {
  let tmp = '';
  const shaOf = new Map<string, string>();

  /** SHA-256 of the generated payload, from --digest (checked against node:crypto above). */
  function payloadSha(bytes: number, seed: number): string {
    const key = `${bytes}/${seed}`;
    let sha = shaOf.get(key);
    if (sha === undefined) {
      sha = digest(rbudpDigestArgv({ bytes, seed }, BIN.rbudp)).sha256;
      shaOf.set(key, sha);
    }
    return sha;
  }

  beforeAll(async () => {
    if (netSkip !== null || !hasGcc) return;
    await build();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'lfnt-'));
    NET.create();
  }, 200_000);

  afterAll(() => {
    for (const c of children) c.kill('SIGKILL');
    if (netSkip === null && hasGcc) NET.delete();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
    if (measured.length) console.info(`measured over the veth:\n  ${measured.join('\n  ')}`);
  });

  const skipReason = () => netSkip ?? (hasGcc ? null : NO_GCC);

  it('RBUDP moves 50 MB intact', async (ctx) => {
    const skip = skipReason();
    if (skip) ctx.skip(skip);
    const bytes = 50 * MB;
    const t = await transfer<RbudpRecord>(
      parseRbudpLine,
      rbudpReceiverArgv({ port: 0, timeoutS: 30, reportHz: 20, binary: BIN.rbudp }),
      (port) =>
        rbudpSenderArgv({
          connect: ADDR_B,
          port,
          payload: { bytes, seed: 4 },
          rateBitsPerS: 1e9,
          chunkBytes: 16 << 20,
          timeoutS: 30,
          reportHz: 20,
          binary: BIN.rbudp,
        }),
    );
    const { s, r } = expectVerified<RbudpEnd>(t, bytes, payloadSha(bytes, 4));
    expect(s.chunks).toBe(Math.ceil(bytes / (16 << 20)));
    expect(r.chunks).toBe(s.chunks);
    expect(r.rounds).toBe(s.rounds);
    note('RBUDP at --rate 1G', r);
  }, 120_000);

  it('RBUDP recovers what a 50 Mbit/s tbf drops from a 100 Mbit/s blast, in several rounds', async (ctx) => {
    const skip = skipReason();
    if (skip) ctx.skip(skip);
    const bytes = 20 * MB;
    addTbf(NS_A, DEV_A, { rate: '50mbit', burst: '3000', limit: '20000' });
    let t: Transfer<RbudpRecord>;
    try {
      t = await transfer<RbudpRecord>(
        parseRbudpLine,
        rbudpReceiverArgv({ port: 0, timeoutS: 30, binary: BIN.rbudp }),
        (port) =>
          rbudpSenderArgv({
            connect: ADDR_B,
            port,
            payload: { bytes, seed: 5 },
            rateBitsPerS: 100e6,
            timeoutS: 30,
            binary: BIN.rbudp,
          }),
      );
    } finally {
      sh(inNs(NS_A, ['tc', 'qdisc', 'del', 'dev', DEV_A, 'root']));
    }
    const { s, r } = expectVerified<RbudpEnd>(t, bytes, payloadSha(bytes, 5));
    expect(s.rounds).toBeGreaterThanOrEqual(2);
    expect(s.maxRounds).toBe(s.rounds); // one chunk
    expect(r.rounds).toBe(s.rounds);
    expect(s.resent).toBeGreaterThan(0);
    expect(r.resent).toBeGreaterThan(0);
    // The sender's rounds chain up: each re-blasts exactly what the previous one left missing.
    const rounds = t.send.filter((x): x is RbudpRound => x.type === 'round');
    expect(rounds).toHaveLength(s.rounds);
    expect(rounds[0]?.datagrams).toBe(Math.ceil(bytes / 1456));
    for (let i = 1; i < rounds.length; i++) expect(rounds[i]?.datagrams).toBe(rounds[i - 1]?.missing);
    expect(rounds.at(-1)?.missing).toBe(0);
    expect(rounds[0]?.missing).toBeGreaterThan(0);
    // The receiver saw the same losses.
    const recvRounds = t.recv.filter((x): x is RbudpRound => x.type === 'round');
    expect(recvRounds.map((x) => x.missing)).toEqual(rounds.map((x) => x.missing));
    // Goodput cannot beat the bottleneck.
    expect(r.avgBitsPerS).toBeLessThan(52e6);
    note(`RBUDP 100 Mbit/s blast into a 50 Mbit/s tbf (${s.rounds} rounds)`, r);
  }, 120_000);

  it('PSockets striping moves 50 MB over 8 streams intact', async (ctx) => {
    const skip = skipReason();
    if (skip) ctx.skip(skip);
    const bytes = 50 * MB;
    const t = await transfer<PsocketsRecord>(
      parsePsocketsLine,
      psocketsReceiverArgv({ port: 0, timeoutS: 30, reportHz: 20, binary: BIN.psockets }),
      (port) =>
        psocketsSenderArgv({
          connect: ADDR_B,
          port,
          payload: { bytes, seed: 6 },
          streams: 8,
          blockBytes: 64 * 1024,
          timeoutS: 30,
          reportHz: 20,
          binary: BIN.psockets,
        }),
    );
    const { s, r } = expectVerified<PsocketsEnd>(t, bytes, payloadSha(bytes, 6));
    expect(s).toMatchObject({ streams: 8, blockBytes: 65536 });
    expect(r).toMatchObject({ streams: 8, blockBytes: 65536 });
    note('PSockets, 8 streams', r);
  }, 120_000);

  it('PSockets sends a file with an odd size and the digest matches node:crypto', async (ctx) => {
    const skip = skipReason();
    if (skip) ctx.skip(skip);
    const data = randomBytes(3 * MB + 17);
    const file = path.join(tmp, 'payload.bin');
    writeFileSync(file, data);
    const t = await transfer<PsocketsRecord>(
      parsePsocketsLine,
      psocketsReceiverArgv({ port: 0, timeoutS: 30, binary: BIN.psockets }),
      (port) =>
        psocketsSenderArgv({
          connect: ADDR_B,
          port,
          payload: { file },
          streams: 3,
          blockBytes: 4096,
          timeoutS: 30,
          binary: BIN.psockets,
        }),
    );
    expectVerified<PsocketsEnd>(t, data.length, sha256(data));
  }, 120_000);

  it('UDT moves 50 MB intact and reports perfmon counters', async (ctx) => {
    const skip = skipReason() ?? udtSkip;
    if (skip) ctx.skip(skip);
    const bytes = 50 * MB;
    const t = await transfer<UdtRecord>(
      parseUdtLine,
      udtReceiverArgv({ port: 0, timeoutS: 30, reportHz: 20, binary: BIN.udt }),
      (port) =>
        udtSenderArgv({
          connect: ADDR_B,
          port,
          payload: { bytes, seed: 7 },
          timeoutS: 30,
          reportHz: 20,
          binary: BIN.udt,
        }),
    );
    const { s, r } = expectVerified<UdtEnd>(t, bytes, payloadSha(bytes, 7));
    // At 1500-byte packets 50 MB is at least 50e6 / 1500 data packets.
    expect(s.pktsSent).toBeGreaterThanOrEqual(Math.floor(bytes / 1500));
    expect(r.pktsRecv).toBeGreaterThanOrEqual(Math.floor(bytes / 1500));
    expect(s.acksRecv).toBeGreaterThan(0);
    const rows = rowsOf<UdtRow>(t.send);
    expect(rows.some((x) => x.rttUs > 0 && x.pktsSent > 0 && x.sendRateBitsPerS > 0)).toBe(true);
    note('UDT', r);
  }, 120_000);

  it('a receiver that nobody connects to gives up after --timeout with reason=timeout', async (ctx) => {
    const skip = skipReason();
    if (skip) ctx.skip(skip);
    const cases: [string[], Parse<{ type: string }>][] = [
      [rbudpReceiverArgv({ port: 0, timeoutS: 0.3, binary: BIN.rbudp }), parseRbudpLine],
      [psocketsReceiverArgv({ port: 0, timeoutS: 0.3, binary: BIN.psockets }), parsePsocketsLine],
    ];
    if (udtBuilt) cases.push([udtReceiverArgv({ port: 0, timeoutS: 0.3, binary: BIN.udt }), parseUdtLine]);
    for (const [argv, parse] of cases) {
      const p = start(inNs(NS_B, argv), parse);
      expect(await p.done).toBe(1);
      expect(p.stderr()).toMatch(/within 0\.3 s|in time/);
      expect(endOf(p.records)).toMatchObject({ reason: 'timeout', role: 'recv', sha256: null, match: null });
    }
  }, 60_000);
});
