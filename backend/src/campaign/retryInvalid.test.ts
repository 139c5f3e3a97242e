// A run the lab could not carry (verdict invalid) runs again when asked: the invalid try is kept
// under invalid/, the variant's directory holds the try that counts, and a resume honours both.
// A run cut short is kept under unfinished/ when the campaign resumes, never appended to.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunRecorder } from '../run/record.js';
import type { RunSummary } from '../run/summary.js';
import { parseCampaignText } from './expand.js';
import { INVALID_DIR, invalidTries, type RunOne, runCampaign, UNFINISHED_DIR } from './runCampaign.js';

/** Reno and CUBIC, each `repeat` times, in order. */
const campaignOf = (repeat: number) =>
  parseCampaignText(`
name: retry
base:
  name: retry
  duration: 10s
  paths: { main: { rtt: 40ms, rate: 20Mbit } }
  flows: [{ stack: reno }]
vary:
  flows[0].stack: [reno, cubic]
repeat: ${repeat}
order: sequential
`);
const campaign = campaignOf(1);

/** A lab that cannot carry the first `invalid[stack]` runs of a stack. */
function lab(invalid: Record<string, number>) {
  const tries: Record<string, number> = {};
  const runOne: RunOne = async (spec, dir) => {
    const stack = spec.flows[0]?.stack as string;
    tries[stack] = (tries[stack] ?? 0) + 1;
    const bad = tries[stack] <= (invalid[stack] ?? 0);
    const s = {
      name: spec.name,
      status: 'completed',
      error: null,
      verdict: bad ? 'invalid' : 'valid',
      fidelity: { reasons: bad ? [`main forward: try ${tries[stack]} came in bunches`] : [], checks: [] },
      paths: [],
      flows: [],
    } as unknown as RunSummary;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'summary.json'), JSON.stringify(s));
    return s;
  };
  return { runOne, tries };
}

const verdictIn = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as RunSummary).verdict;

describe('a campaign with --retry-invalid', () => {
  it('runs an invalid variant again, keeps the invalid try, and stops after its tries', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-retry-'));
    const { runOne, tries } = lab({ reno: 1, cubic: 5 });
    const lines: string[] = [];
    const out = await runCampaign({ campaign, dir, runOne, retryInvalid: 1, log: (l) => lines.push(l) });
    // reno: invalid, then valid; cubic: invalid twice, and the second stands.
    expect(tries).toEqual({ reno: 2, cubic: 2 });
    expect(out.ran).toBe(4);
    expect(out.rows.map((r) => [r.id, r.verdict])).toEqual([
      ['001-reno-r1', 'valid'],
      ['002-cubic-r1', 'invalid'],
    ]);
    expect(readdirSync(join(dir, INVALID_DIR)).sort()).toEqual(['001-reno-r1~1', '002-cubic-r1~1']);
    expect(verdictIn(join(dir, INVALID_DIR, '001-reno-r1~1'))).toBe('invalid');
    expect(lines).toContain(
      `  the lab could not carry it (main forward: try 1 came in bunches): kept in ${join(dir, INVALID_DIR, '001-reno-r1~1')}, running it again`,
    );
    expect(lines).toContain('[1/2] reno (001-reno-r1), try 2 of 2');

    // Resumed with the same budget: nothing is left to run.
    const again = await runCampaign({ campaign, dir, runOne, retryInvalid: 1, log: () => undefined });
    expect(again.ran).toBe(0);
    expect(again.skipped).toBe(2);
    // A larger budget on resume: the standing invalid run goes aside and cubic runs a third time.
    const more = await runCampaign({ campaign, dir, runOne, retryInvalid: 2, log: () => undefined });
    expect(more.ran).toBe(1);
    expect(invalidTries(dir, '002-cubic-r1')).toBe(2);
    expect(existsSync(join(dir, INVALID_DIR, '002-cubic-r1~2'))).toBe(true);
    expect(tries.cubic).toBe(3);
  });

  it('gives no second try to the other repetitions of a variant the lab could not carry', async () => {
    const repeated = campaignOf(3);
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-retry-'));
    // cubic is never carried; reno only its first run.
    const { runOne, tries } = lab({ reno: 1, cubic: 99 });
    const lines: string[] = [];
    const out = await runCampaign({
      campaign: repeated,
      dir,
      runOne,
      retryInvalid: 1,
      log: (l) => lines.push(l),
    });
    // reno: rep 1 invalid then valid, reps 2 and 3 valid. cubic: rep 1 twice, reps 2 and 3 once.
    expect(tries).toEqual({ reno: 4, cubic: 4 });
    expect(out.rows.filter((r) => r.verdict === 'invalid').map((r) => r.id)).toEqual([
      '002-cubic-r1',
      '002-cubic-r2',
      '002-cubic-r3',
    ]);
    expect(lines.filter((l) => l.includes('no further try'))).toHaveLength(2);
    // Resumed: the same rule keeps them settled.
    const again = await runCampaign({
      campaign: repeated,
      dir,
      runOne,
      retryInvalid: 1,
      log: () => undefined,
    });
    expect(again.ran).toBe(0);
  });

  it('leaves an invalid run standing without it (the default)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-retry-'));
    const { runOne, tries } = lab({ reno: 1 });
    const out = await runCampaign({ campaign, dir, runOne, log: () => undefined });
    expect(tries).toEqual({ reno: 1, cubic: 1 });
    expect(out.rows[0]?.verdict).toBe('invalid');
    expect(existsSync(join(dir, INVALID_DIR))).toBe(false);
  });
});

describe('a campaign resumed after a run was cut short', () => {
  it('keeps the cut-short record under unfinished/ and gives the new attempt a directory of its own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-unfinished-'));
    let attempt = 0;
    // Each attempt records as a real run does: an event and a sample appended to its directory.
    const runOne: RunOne = async (spec, runDir) => {
      attempt++;
      const rec = new RunRecorder(runDir);
      rec.event('created', { attempt });
      const sample = { kind: 'cpu', t: attempt };
      rec.sample(sample);
      const cut = attempt === 1;
      const s = {
        name: spec.name,
        status: cut ? 'aborted' : 'completed',
        error: cut ? 'aborted' : null,
        verdict: cut ? null : 'valid',
        fidelity: null,
        paths: [],
        flows: [],
      } as unknown as RunSummary;
      rec.json('summary.json', s);
      return s;
    };
    const first = await runCampaign({ campaign, dir, runOne, log: () => undefined });
    // The cut-short run stops the campaign: cubic never started.
    expect(first.rows.map((r) => r.status)).toEqual(['aborted', 'missing']);
    const again = await runCampaign({ campaign, dir, runOne, log: () => undefined });
    expect(again.ran).toBe(2);
    expect(again.rows.map((r) => r.status)).toEqual(['completed', 'completed']);
    const lines = (f: string) => readFileSync(f, 'utf8').trim().split('\n');
    const runDir = join(dir, 'runs', '001-reno-r1');
    expect(lines(join(runDir, 'events.jsonl'))).toHaveLength(1);
    expect(lines(join(runDir, 'samples', 'cpu.jsonl'))).toEqual(['{"kind":"cpu","t":2}']);
    const aside = join(dir, UNFINISHED_DIR, '001-reno-r1~1');
    expect(lines(join(aside, 'samples', 'cpu.jsonl'))).toEqual(['{"kind":"cpu","t":1}']);
    expect(verdictIn(aside)).toBeNull();
  });
});
