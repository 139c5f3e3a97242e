import { join, resolve } from 'node:path';
import { knownStackNames, STACK_FAMILIES, type StackFamily, stackInfo } from '@lfnlab/emulator';
import { runOrRecord } from '../run/runOrRecord.js';
import {
  IDLE_S,
  KNOWN_DEFECTS,
  LOSS_BER,
  LOSS_S,
  runSelftest,
  SAWTOOTH_IDLE_S,
  type SelftestRow,
} from '../selftest/selftest.js';
import { type Command, table, UsageError } from './args.js';
import { parseRunLabName } from './labsOption.js';

const mark = (p: boolean | null) => (p === null ? '' : p ? ' ✓' : ' ✗');

export function formatSelftest(rows: SelftestRow[]): string {
  return table(
    ['stack', 'reads back', 'rate after ramp-up', 'loss: cut and regrow', 'standing queue', 'result'],
    rows.map((r) => [
      r.stack,
      `${r.readBack.measured}${mark(r.readBack.pass)}`,
      `${r.rate.measured}${mark(r.rate.pass)}`,
      `${r.recovery.measured}${mark(r.recovery.pass)}`,
      `${r.queue.measured}${mark(r.queue.pass)}`,
      r.error ? `FAIL (${r.error})` : r.pass ? 'pass' : r.knownDefect ? 'known defect' : 'FAIL',
    ]),
  );
}

/**
 * The notes under the table: one per stack reported as a known defect, one per run the lab ran
 * again because it could not carry the first.
 */
export function formatSelftestNotes(rows: SelftestRow[]): string {
  return [
    ...rows.filter((r) => r.knownDefect).map((r) => `known defect, ${r.stack}: ${r.knownDefect}`),
    ...rows.flatMap((r) => r.rerun.map((note) => `ran again, ${r.stack} ${note}`)),
  ].join('\n');
}

/** --family for the added stacks of --stacks; the lab's own stacks have their own predictions. */
export function selftestFamilies(family: unknown, stacks: string[]): Record<string, StackFamily> | undefined {
  if (family === undefined) return undefined;
  if (typeof family !== 'string' || !(STACK_FAMILIES as readonly string[]).includes(family))
    throw new UsageError(`--family must be one of ${STACK_FAMILIES.join(', ')}`);
  const builtIn = stacks.filter((s) => stackInfo(s)?.origin !== 'added');
  if (builtIn.length)
    throw new UsageError(
      `--family applies to added stacks only; ${builtIn.join(', ')} ${builtIn.length > 1 ? 'are' : 'is'} the lab's own (give --stacks with added ones)`,
    );
  return Object.fromEntries(stacks.map((s) => [s, family as StackFamily]));
}

export const selftestCommand: Command = {
  name: 'selftest',
  summary: 'check every stack alone on an idle path: its name, its rate, its loss recovery, its queue',
  usage: `usage: lfnlab selftest [--stacks a,b,…] [--out DIR] [--lab NAME]

Runs each stack alone over 50 Mbit/s, 40 ms: ${IDLE_S} s with a 1-BDP buffer (${SAWTOOTH_IDLE_S} s for
lp, hstcplp and cdg, whose rate saws) and ${LOSS_S} s with a 0.1-BDP buffer, and checks that
  (a) the socket reports the stack's own name,
  (b) its goodput over the second half reaches >= 90 % of the bottleneck,
  (c) in the small buffer it cuts its window on loss and grows it back,
  (d) delay-based stacks keep the standing queue their default parameters predict
      (vegas 2-4 packets, fast 100, lp and hstcplp at most 15 % of the buffer).
The rate is judged against the TCP payload a saturated link carries (1448 of every
1514 bytes at MTU 1500), and for lp, hstcplp and cdg against the share their back-off
predicts (LP halves at 15 % of the buffer: 84 % of the link; CDG backs off by 0.7 once
a queue builds: 85 %), at >= 75 % of that first-order prediction. The small-buffer
run adds random loss (BER ${LOSS_BER}) so that delay-based stacks, which never fill the
buffer, meet losses too. A run the lab could not emulate (verdict invalid) runs
once more and is noted under the table; a second invalid run fails the stack with
the lab's reasons.
Prints a table with the measured numbers; exits 1 when any stack fails. A failure
that is a measured defect of the stack's own code (${Object.keys(KNOWN_DEFECTS).join(', ')}) is
reported as "known defect" with its explanation and counts as a failure only with --strict.

  --stacks LIST  comma-separated stacks (default: all ${knownStackNames().length}, added ones included)
  --family F     how to judge the added stacks in --stacks: loss (default: the family they were
                 added with, else loss), delay (also: the standing queue stays under half the
                 buffer), hybrid or model
  --strict       known defects fail too
  --out DIR      run directories go here (default: runs/selftest-DATE)
  --lab NAME     which lab (default: default)`,
  options: {
    stacks: { type: 'string' },
    out: { type: 'string' },
    lab: { type: 'string' },
    strict: { type: 'boolean' },
    family: { type: 'string' },
  },
  async run(values) {
    const stacks =
      typeof values.stacks === 'string'
        ? values.stacks
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : knownStackNames();
    const allowed = knownStackNames();
    const unknown = stacks.filter((s) => !allowed.includes(s));
    if (unknown.length)
      throw new UsageError(`--stacks: unknown ${unknown.join(', ')}; known: ${allowed.join(', ')}`);
    const families = selftestFamilies(values.family, stacks);
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
    const outDir = resolve(typeof values.out === 'string' ? values.out : join('runs', `selftest-${stamp}`));
    const labName = parseRunLabName(typeof values.lab === 'string' ? values.lab : undefined, 'selftest');
    console.log(`lfnlab selftest: ${stacks.length} stacks → ${outDir}`);
    const t0 = Date.now();
    const rows = await runSelftest({
      stacks,
      families,
      outDir,
      log: (l) => console.log(`  ${l}`),
      runOne: async (spec, dir) =>
        (await runOrRecord({ spec, outDir: dir, labName, log: () => undefined })).summary,
    });
    const known = formatSelftestNotes(rows);
    console.log(`\n${formatSelftest(rows)}\n${known ? `\n${known}\n` : ''}`);
    const strict = values.strict === true;
    const failed = rows.filter((r) => !r.pass && (strict || !r.knownDefect));
    const knownOnly = rows.filter((r) => !r.pass && r.knownDefect);
    console.log(
      `${rows.filter((r) => r.pass).length} of ${rows.length} stacks pass in ${((Date.now() - t0) / 1000).toFixed(0)} s` +
        (knownOnly.length ? `; known defects: ${knownOnly.map((r) => r.stack).join(', ')}` : '') +
        (failed.length ? `; failing: ${failed.map((r) => r.stack).join(', ')}` : ''),
    );
    return failed.length ? 1 : 0;
  },
};
