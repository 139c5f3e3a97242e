// argv builders for lfn-udpgen and lfn-udpsink: values are checked against the limits the programs
// enforce, so a bad plan fails on the host rather than inside the lab.

import { checkInt, checkIpAddress, checkNumber, checkPort, checkSeed } from '../native/argv.js';
import { UDP_DEFAULT_SIZE_BYTES, UDP_GEN_BINARY, UDP_SINK_BINARY, type UdpPattern } from './udp.js';

const MAX_RATE_BPS = 1e11;
const MAX_FLIPS_PER_S = 1e5;

export interface UdpGenOptions {
  /** Destination: numeric IPv4 or IPv6 address (the lab has no resolver). */
  host: string;
  port: number;
  pattern: UdpPattern;
  /** UDP payload per datagram, 16..65507; default 1472 (a 1500-byte IPv4 packet). */
  sizeBytes?: number;
  /** Seconds to run; 0 = until SIGTERM/SIGINT. */
  durationS: number;
  /** Report intervals per second, integer 1..100; default 10. */
  reportHz?: number;
  /** Most datagrams sent back to back when behind schedule, 1..64; default 4. */
  burst?: number;
  /** Datagrams overdue by more than this are skipped, 0..1 s; default 0.01. */
  maxLagS?: number;
  /** Print the schedule's reports at once without sending (needs durationS > 0). */
  dryRun?: boolean;
  /** Program path or name, argv[0]; defaults to `lfn-udpgen` (looked up in PATH). */
  binary?: string;
}

export interface UdpSinkOptions {
  port: number;
  /** Local numeric address to bind; the sink's default is 0.0.0.0 (all IPv4 addresses). */
  bind?: string;
  /** Seconds to run; 0 = until SIGTERM/SIGINT. */
  durationS: number;
  /** Report intervals per second, integer 1..100; default 10. */
  reportHz?: number;
  /** Program path or name, argv[0]; defaults to `lfn-udpsink`. */
  binary?: string;
}

function patternArgs(p: UdpPattern): string[] {
  switch (p.kind) {
    case 'cbr':
      return ['--pattern', 'cbr', '--rate', checkNumber(p.rateBps, 1, MAX_RATE_BPS, 'rateBps')];
    case 'sine': {
      const mean = checkNumber(p.meanBps, 1, MAX_RATE_BPS, 'meanBps');
      const amplitude = checkNumber(p.amplitudeBps, 0, p.meanBps, 'amplitudeBps (at most meanBps)');
      const period = checkNumber(p.periodS, 1e-3, 1e7, 'periodS');
      return ['--pattern', 'sine', '--mean', mean, '--amplitude', amplitude, '--period', period];
    }
    case 'selfsimilar': {
      const argv = [
        '--pattern',
        'selfsimilar',
        '--mean',
        checkNumber(p.meanBps, 1, MAX_RATE_BPS, 'meanBps'),
        '--hurst',
        checkNumber(p.hurst, 0.5, 0.99, 'hurst'),
      ];
      if (p.sources !== undefined) argv.push('--sources', checkInt(p.sources, 1, 1024, 'sources'));
      if (p.onOffMeanS !== undefined)
        argv.push('--onoff-mean', checkNumber(p.onOffMeanS, 1e-3, 1e4, 'onOffMeanS'));
      // Each source changes state once per mean period on average; the generator bounds the total.
      if ((p.sources ?? 16) / (p.onOffMeanS ?? 0.1) > MAX_FLIPS_PER_S) {
        throw new RangeError(
          `sources / onOffMeanS must be at most ${MAX_FLIPS_PER_S} on/off changes per second`,
        );
      }
      if (p.seed !== undefined) argv.push('--seed', checkSeed(p.seed, 'seed'));
      return argv;
    }
    default:
      throw new RangeError(`unknown pattern kind '${(p as { kind: unknown }).kind}'`);
  }
}

/**
 * argv (argv[0] = program) for the generator, to hand to spawn/execFile or to append to
 * `['ip', 'netns', 'exec', ns]`. Never joined into a shell string. Values are checked against the same
 * limits the program enforces, so a bad plan fails here rather than inside the lab.
 */
export function udpGenArgv(opts: UdpGenOptions): string[] {
  const argv = [
    opts.binary ?? UDP_GEN_BINARY,
    '--host',
    checkIpAddress(opts.host, 'host'),
    '--port',
    checkPort(opts.port, 'port'),
    ...patternArgs(opts.pattern),
  ];
  argv.push('--size', checkInt(opts.sizeBytes ?? UDP_DEFAULT_SIZE_BYTES, 16, 65507, 'sizeBytes'));
  argv.push('--duration', checkNumber(opts.durationS, 0, 1e7, 'durationS'));
  argv.push('--report', checkInt(opts.reportHz ?? 10, 1, 100, 'reportHz'));
  if (opts.burst !== undefined) argv.push('--burst', checkInt(opts.burst, 1, 64, 'burst'));
  if (opts.maxLagS !== undefined) argv.push('--max-lag', checkNumber(opts.maxLagS, 0, 1, 'maxLagS'));
  if (opts.dryRun) {
    if (opts.durationS <= 0) throw new RangeError('dryRun needs durationS > 0');
    argv.push('--dry-run');
  }
  return argv;
}

/** argv (argv[0] = program) for the sink; its header line on stdout means the port is bound. */
export function udpSinkArgv(opts: UdpSinkOptions): string[] {
  const argv = [opts.binary ?? UDP_SINK_BINARY, '--port', checkPort(opts.port, 'port')];
  if (opts.bind !== undefined) argv.push('--bind', checkIpAddress(opts.bind, 'bind'));
  argv.push('--duration', checkNumber(opts.durationS, 0, 1e7, 'durationS'));
  argv.push('--report', checkInt(opts.reportHz ?? 10, 1, 100, 'reportHz'));
  return argv;
}
