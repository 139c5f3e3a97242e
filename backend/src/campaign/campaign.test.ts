import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_YAML_ALIASES, validateSpec } from '@lfnlab/emulator';
import { describe, expect, it, vi } from 'vitest';
import type { RunSummary } from '../run/summary.js';
import { CampaignError, expandCampaign, parseCampaignText, setPath } from './expand.js';
import { toCsv } from './resultsCsv.js';
import { type CampaignRow, etaText, type RunOne, runCampaign } from './runCampaign.js';

const text = `
name: sst
base:
  name: sst
  duration: 10s
  paths: { main: { rtt: 100ms, rate: 100Mbit, buffer: 0.2bdp } }
  flows: [{ stack: reno, count: 2 }]
vary:
  flows[0].stack: [highspeed, htcp, scalable]
  flows[0].count: [2, 4]
repeat: 2
seed: 7
`;

function fakeSummary(stack: string, status: RunSummary['status'] = 'completed'): RunSummary {
  return {
    name: 'sst',
    status,
    error: null,
    seed: 1,
    verdict: 'valid',
    fidelity: null,
    metrics: { flows: [], groups: [], theory: [] },
    paths: [
      {
        name: 'main',
        loadedRtt: null,
        idleRtt: null,
        configured: {
          rttMs: 100,
          rateMbps: 100,
          reverseRateMbps: 100,
          bufferPackets: { forward: 1, reverse: 1 },
          ber: 0,
        },
        utilisation: { forward: 0.95, reverse: null },
        jain: { forward: 0.99, reverse: null },
      },
    ],
    flows: [
      { name: `${stack}-1`, goodputMbps: { mean: 40, sd: 1, wholeRun: 41.5 } } as RunSummary['flows'][number],
    ],
  };
}

describe('campaign expansion', () => {
  it('takes the cross product × repetitions in a seeded random order', () => {
    const c = parseCampaignText(text);
    const a = expandCampaign(c);
    expect(a).toHaveLength(12);
    expect(new Set(a.map((v) => v.id)).size).toBe(12);
    expect(expandCampaign(c).map((v) => v.id)).toEqual(a.map((v) => v.id)); // same seed, same order
    expect(expandCampaign({ ...c, seed: 8 }).map((v) => v.id)).not.toEqual(a.map((v) => v.id));
    expect(expandCampaign({ ...c, order: 'sequential' })[0]?.id).toBe('001-highspeed-2-r1');
    const v = a.find((x) => x.id === '004-htcp-4-r2');
    expect(v?.spec.flows?.[0]).toMatchObject({ stack: 'htcp', count: 4 });
    // Validated once at expansion: the variant carries its resolved spec (units as numbers).
    expect(validateSpec(v?.spec)).toEqual({ ok: true, spec: v?.resolved });
    expect(v?.resolved.paths.main?.rtt).toBe(100);
  });
  it('leaves out the combinations exclude names, keeping every other id where it was', () => {
    const all = expandCampaign(parseCampaignText(text)).map((v) => v.id);
    const c = parseCampaignText(
      `${text}exclude:\n  - { 'flows[0].stack': htcp, 'flows[0].count': 4 }\n  - { 'flows[0].stack': { $any: [scalable] }, 'flows[0].count': { $not: 4 } }\n`,
    );
    const ids = expandCampaign({ ...c, order: 'sequential' }).map((v) => v.id);
    expect(ids).toHaveLength(8);
    expect(ids.filter((id) => id.startsWith('004-htcp-4') || id.startsWith('005-scalable-2'))).toEqual([]);
    for (const id of ids) expect(all).toContain(id);
    // A key that is not varied, or a value no vary list has, is refused with its path.
    for (const [entry, message] of [
      [
        "{ 'flows[1].stack': reno }",
        /exclude\.0\.flows\[1\]\.stack: is not a vary key; exclude names keys of vary/,
      ],
      [
        "{ 'flows[0].stack': vegas }",
        /exclude\.0\.flows\[0\]\.stack: fits none of the values vary lists for flows\[0\]\.stack/,
      ],
      ['{}', /exclude\.0: names no vary key/],
    ] as const)
      expect(() => parseCampaignText(`${text}exclude: [${entry}]\n`)).toThrowError(message);
    const none = parseCampaignText(`${text}exclude: [{ 'flows[0].count': { $any: [2, 4] } }]\n`);
    expect(() => expandCampaign(none)).toThrowError(/exclude: leaves none of the 6 combinations to run/);
  });
  it('refuses a campaign text with too many aliases before expanding anything', () => {
    const many = Array.from({ length: MAX_YAML_ALIASES + 1 }, () => '    - *v').join('\n');
    const bomb = `${text}description: &v [1, 2]\nextra:\n${many}\n`;
    expect(() => parseCampaignText(bomb)).toThrowError(/\(campaign\): not valid YAML\/JSON/);
  });
  it('names the parameter combination that makes a spec invalid', () => {
    const bad = parseCampaignText(text.replace('[2, 4]', '[2, 100]'));
    expect(() => expandCampaign(bad)).toThrowError(CampaignError);
    try {
      expandCampaign(bad);
    } catch (err) {
      expect((err as CampaignError).problems[0]?.path).toBe('base.flows.0.count');
      expect((err as CampaignError).problems[0]?.message).toMatch(
        /with flows\[0\]\.stack="highspeed", flows\[0\]\.count=100/,
      );
    }
  });
  it('sets values at spec paths without touching the original', () => {
    const base = { flows: [{ stack: 'reno' }], paths: { main: { rate: '1Mbit' } } };
    expect(setPath(base, 'paths.main.rate', '2Mbit')).toEqual({
      flows: [{ stack: 'reno' }],
      paths: { main: { rate: '2Mbit' } },
    });
    expect(base.paths.main.rate).toBe('1Mbit');
    expect(() => setPath(base, 'paths.other.rate', 1)).toThrow(/nothing at paths.other/);
  });
});

describe('repetitions', () => {
  const text = (extra: string) => `
name: reps
base:
  name: reps
  duration: 20s
  seed: 7
  paths: { main: { rtt: 50ms, rate: 20Mbit, cross: [{ pattern: selfsimilar, mean: 30%, hurst: 0.9, sources: 4 }] } }
  flows: [{ stack: reno }]
vary:
  flows[0].stack: [reno, cubic]
${extra}
repeat: 3
order: sequential
`;

  it('draw from seed + r - 1, written into the spec, so cross traffic differs and each reruns alike', () => {
    const vs = expandCampaign(parseCampaignText(text('')));
    expect(vs.filter((v) => v.params['flows[0].stack'] === 'reno').map((v) => v.resolved.seed)).toEqual([
      7, 8, 9,
    ]);
    const [r1, r2] = vs;
    expect((r2?.spec as { seed?: number } | undefined)?.seed).toBe(8);
    expect(JSON.stringify(r1?.resolved.paths.main?.cross)).not.toBe(
      JSON.stringify(r2?.resolved.paths.main?.cross),
    );
    // The same file gives the same seeds again.
    expect(expandCampaign(parseCampaignText(text(''))).map((v) => v.resolved.seed)).toEqual(
      vs.map((v) => v.resolved.seed),
    );
  });

  it('run more often where repeatWhere asks, each extra repetition with its own seed and label', () => {
    const c = parseCampaignText(
      `${text('')}repeatWhere:\n  - { where: { 'flows[0].stack': cubic }, repeat: 5 }\n  - { where: { 'flows[0].stack': { $any: [reno, cubic] } }, repeat: 2 }\n`,
    );
    const vs = expandCampaign(c);
    // Reno keeps the campaign's 3 (an entry asking for fewer changes nothing); CUBIC runs 5 times.
    expect(vs.map((v) => v.id)).toEqual([
      '001-reno-r1',
      '001-reno-r2',
      '001-reno-r3',
      '002-cubic-r1',
      '002-cubic-r2',
      '002-cubic-r3',
      '002-cubic-r4',
      '002-cubic-r5',
    ]);
    expect(vs.filter((v) => v.params['flows[0].stack'] === 'cubic').map((v) => v.resolved.seed)).toEqual([
      7, 8, 9, 10, 11,
    ]);
    // The first three are the runs a campaign without the entry has: a resume keeps them.
    const plain = expandCampaign(parseCampaignText(text('')));
    expect(vs.slice(0, 6).map((v) => [v.id, v.resolved.seed])).toEqual(
      plain.map((v) => [v.id, v.resolved.seed]),
    );
    expect(vs.at(-1)?.label).toBe('cubic · rep 5');
    // One repetition everywhere but where asked: the labels still tell the repetitions apart.
    const once = expandCampaign(
      parseCampaignText(
        `${text('').replace('repeat: 3', 'repeat: 1')}repeatWhere: [{ where: { 'flows[0].stack': reno }, repeat: 2 }]\n`,
      ),
    );
    expect(once.map((v) => v.label)).toEqual(['reno · rep 1', 'reno · rep 2', 'cubic · rep 1']);
  });

  it('refuse a repeatWhere entry that names no vary key, no value, or an impossible count', () => {
    for (const [entry, message] of [
      [
        "{ where: { 'flows[1].stack': reno }, repeat: 4 }",
        /repeatWhere\.0\.where\.flows\[1\]\.stack: is not a vary key; repeatWhere names keys of vary/,
      ],
      [
        "{ where: { 'flows[0].stack': vegas }, repeat: 4 }",
        /repeatWhere\.0\.where\.flows\[0\]\.stack: fits none of the values/,
      ],
      ['{ where: {}, repeat: 4 }', /repeatWhere\.0\.where: names no vary key: it would repeat everything/],
      ["{ where: { 'flows[0].stack': reno }, repeat: 101 }", /repeatWhere\.0\.repeat: must be 1 to 100/],
    ] as const)
      expect(() => parseCampaignText(`${text('')}repeatWhere: [${entry}]\n`)).toThrowError(message);
  });

  it('keep the seed a campaign varies itself', () => {
    const vs = expandCampaign(parseCampaignText(text('  seed: [3, 40]')));
    expect(vs.map((v) => v.resolved.seed)).toEqual([3, 3, 3, 40, 40, 40, 3, 3, 3, 40, 40, 40]);
  });
});

describe('running a campaign', () => {
  it('releases what its runs shared once it stops: after the last run, an abort, or a run that throws', async () => {
    const c = parseCampaignText(text);
    for (const end of ['done', 'abort', 'throw'] as const) {
      const dir = mkdtempSync(join(tmpdir(), 'lfnlab-campaign-close-'));
      const abort = new AbortController();
      let runs = 0;
      const runOne: RunOne = async (spec) => {
        runs++;
        if (end === 'throw' && runs === 2) throw new Error('the lab went away');
        if (end === 'abort' && runs === 3) abort.abort();
        return fakeSummary((spec as { flows: { stack: string }[] }).flows[0]?.stack ?? '?');
      };
      runOne.close = vi.fn(async () => undefined);
      const done = runCampaign({ campaign: c, dir, log: () => undefined, signal: abort.signal, runOne });
      if (end === 'throw') await expect(done).rejects.toThrow('the lab went away');
      else await done;
      expect(runs).toBe(end === 'done' ? 12 : end === 'abort' ? 3 : 2);
      expect(runOne.close).toHaveBeenCalledTimes(1);
    }
  });

  it('spreads runs over a pool of labs: each run once, both labs busy at once, a failure stops new runs', async () => {
    const c = parseCampaignText(text);
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-campaign-pool-'));
    const byLab: string[][] = [[], []];
    let inFlight = 0;
    let most = 0;
    const lab = (k: number): RunOne => {
      const run: RunOne = async (spec, runDir) => {
        inFlight++;
        most = Math.max(most, inFlight);
        byLab[k]?.push(runDir);
        // Let the other lab take its next run before this one ends.
        await new Promise((r) => setImmediate(r));
        inFlight--;
        return fakeSummary((spec as { flows: { stack: string }[] }).flows[0]?.stack ?? '?');
      };
      run.close = vi.fn(async () => undefined);
      return run;
    };
    const pool = [lab(0), lab(1)];
    const out = await runCampaign({ campaign: c, dir, log: () => undefined, runOne: pool });
    expect(out.ran).toBe(12);
    const all = [...(byLab[0] ?? []), ...(byLab[1] ?? [])];
    expect(new Set(all).size).toBe(12);
    expect(byLab[0]?.length).toBeGreaterThan(0);
    expect(byLab[1]?.length).toBeGreaterThan(0);
    expect(most).toBe(2);
    for (const l of pool) expect(l.close).toHaveBeenCalledTimes(1);

    // One lab throws: the other finishes the run it has, takes no new one, and the error surfaces.
    const dir2 = mkdtempSync(join(tmpdir(), 'lfnlab-campaign-pool-'));
    let calls = 0;
    const bad: RunOne = async () => {
      calls++;
      throw new Error('lab 2 went away');
    };
    bad.close = vi.fn(async () => undefined);
    const good = lab(0);
    const before = byLab[0]?.length ?? 0;
    await expect(
      runCampaign({ campaign: c, dir: dir2, log: () => undefined, runOne: [good, bad] }),
    ).rejects.toThrow('lab 2 went away');
    expect(calls).toBe(1);
    expect((byLab[0]?.length ?? 0) - before).toBe(1);
    expect(bad.close).toHaveBeenCalledTimes(1);
    expect(good.close).toHaveBeenCalledTimes(1);
  });

  it('hands each run the spec as the campaign writes it (units kept), which parses back to the resolved spec', async () => {
    const { parseDocument } = await import('@lfnlab/emulator');
    const c = parseCampaignText(text);
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-campaign-text-'));
    const seen: { spec: unknown; text: string | undefined }[] = [];
    const runOne: RunOne = async (spec, _d, _s, specText) => {
      seen.push({ spec, text: specText });
      return fakeSummary('reno');
    };
    await runCampaign({ campaign: c, dir, log: () => undefined, runOne });
    expect(seen).toHaveLength(12);
    for (const { spec, text: t } of seen) {
      expect(t).toMatch(/rtt: 100ms/);
      const doc = parseDocument(t as string);
      expect(doc.ok && validateSpec(doc.value)).toEqual({ ok: true, spec });
    }
  });

  it('drains on request: the runs in flight on every lab finish and are kept, no new one starts, a resume takes the rest', async () => {
    const c = parseCampaignText(text);
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-campaign-drain-'));
    const { writeFileSync, mkdirSync } = await import('node:fs');
    const drain = new AbortController();
    const signal = new AbortController().signal;
    const seen: { dir: string; signal: AbortSignal | undefined; aborted: boolean }[] = [];
    let started = 0;
    const lab = (): RunOne => {
      const run: RunOne = async (spec, runDir, s) => {
        started++;
        // The third run to start asks for the drain while the other lab's run is still going.
        if (started === 3) drain.abort();
        await new Promise((r) => setImmediate(r));
        const summary = fakeSummary((spec as { flows: { stack: string }[] }).flows[0]?.stack ?? '?');
        mkdirSync(runDir, { recursive: true });
        writeFileSync(join(runDir, 'summary.json'), JSON.stringify(summary));
        seen.push({ dir: runDir, signal: s, aborted: s?.aborted ?? false });
        return summary;
      };
      return run;
    };
    const out = await runCampaign({
      campaign: c,
      dir,
      log: () => undefined,
      signal,
      drain: drain.signal,
      runOne: [lab(), lab()],
    });
    // Both runs in flight when the drain came ran to their end, completed; none started after.
    expect(out.ran).toBe(3);
    expect(started).toBe(3);
    expect(seen.every((x) => x.signal === signal && !x.aborted)).toBe(true);
    expect(out.rows.filter((r) => r.status === 'completed')).toHaveLength(3);
    const again = await runCampaign({ campaign: c, dir, log: () => undefined, runOne: lab() });
    expect(again.skipped).toBe(3);
    expect(again.ran).toBe(9);
  });

  it('resumes a campaign grown by repeatWhere, running only the added repetitions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-campaign-'));
    const { writeFileSync, mkdirSync } = await import('node:fs');
    const ran: string[] = [];
    const runOne = async (spec: unknown, runDir: string) => {
      ran.push(runDir.split('/').at(-1) as string);
      const s = fakeSummary((spec as { flows: { stack: string }[] }).flows[0]?.stack ?? '?');
      mkdirSync(runDir, { recursive: true });
      writeFileSync(join(runDir, 'summary.json'), JSON.stringify(s));
      return s;
    };
    const first = await runCampaign({ campaign: parseCampaignText(text), dir, log: () => undefined, runOne });
    expect(first.ran).toBe(12);
    const grown = parseCampaignText(
      `${text}repeatWhere: [{ where: { 'flows[0].stack': htcp }, repeat: 4 }]\n`,
    );
    const lines: string[] = [];
    ran.length = 0;
    const second = await runCampaign({ campaign: grown, dir, log: (l) => lines.push(l), runOne });
    expect(second.skipped).toBe(12);
    expect(ran.sort()).toEqual(['003-htcp-2-r3', '003-htcp-2-r4', '004-htcp-4-r3', '004-htcp-4-r4']);
    expect(lines).toContain('the campaign grew by 4 runs; the 12 planned before stay');
    expect(second.rows).toHaveLength(16);
    // A campaign that changes a planned run's spec is refused, grown or not, naming what changed.
    const changed = parseCampaignText(
      `${text.replace('duration: 10s', 'duration: 11s')}repeatWhere: [{ where: { 'flows[0].stack': htcp }, repeat: 5 }]\n`,
    );
    await expect(runCampaign({ campaign: changed, dir, log: () => undefined, runOne })).rejects.toThrow(
      /holds runs made to another plan: the campaign file gives 16 of its variants another spec \(first .*: duration: 10s → 11s\); run again with --rerun-changed/,
    );
  });

  it('resumes without redoing finished runs, retries failed ones, and collects one table', async () => {
    const c = parseCampaignText(text);
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-campaign-'));
    const { writeFileSync, mkdirSync } = await import('node:fs');
    const calls: string[] = [];
    let n = 0;
    const runOne = async (spec: { flows: { stack: string }[] }, runDir: string) => {
      calls.push(runDir);
      n++;
      // The fifth run "fails" (e.g. the lab was lost): it must be tried again on resume.
      const s = fakeSummary(spec.flows[0]?.stack ?? '?', n === 5 ? 'failed' : 'completed');
      mkdirSync(runDir, { recursive: true });
      writeFileSync(join(runDir, 'summary.json'), JSON.stringify(s));
      return s;
    };
    const abort = new AbortController();
    let started = 0;
    const first = await runCampaign({
      campaign: c,
      dir,
      log: () => undefined,
      signal: abort.signal,
      runOne: async (spec, d) => {
        if (++started === 6) abort.abort(); // "killed" after six runs
        return runOne(spec as never, d);
      },
    });
    expect(first.ran).toBe(6);
    const lines: string[] = [];
    const second = await runCampaign({
      campaign: c,
      dir,
      log: (l) => lines.push(l),
      runOne: (spec, d) => runOne(spec as never, d),
    });
    expect(second.skipped).toBe(5); // the failed one is not counted as finished
    expect(second.ran).toBe(7);
    // Progress names each run by its label, with the id (its directory) beside it.
    const progress = lines.filter((l) => l.startsWith('['));
    expect(progress).toHaveLength(14);
    for (const l of progress)
      expect(l).toMatch(
        /^\[\d+\/12\] [a-z]+ · [24] flows · rep [12] \(\d{3}-[a-z]+-[24]-r[12]\)(: completed|$)/,
      );
    expect(new Set(calls).size).toBe(12);
    expect(second.rows.every((r) => r.status === 'completed')).toBe(true);
    const csv = readFileSync(join(dir, 'results.csv'), 'utf8').split('\n');
    expect(csv[0]).toMatch(
      /^id,label,repetition,flows\[0\]\.stack,flows\[0\]\.count,status,verdict,jain_forward,utilisation_forward,goodput_mbps_/,
    );
    expect(csv).toHaveLength(14);
    // The plan file keeps the variants as written, not their resolved specs.
    const planned = JSON.parse(readFileSync(join(dir, 'campaign.json'), 'utf8')) as { variants: object[] };
    expect(planned.variants[0]).not.toHaveProperty('resolved');
    expect(planned.variants[0]).toHaveProperty('spec');
    expect(toCsv([])).toBe('id,label,repetition,status,verdict,jain_forward,utilisation_forward\n');
    const cross = {
      ...(second.rows[0] as CampaignRow),
      params: { 'paths.main.cross': [{ pattern: 'cbr', rate: '10%' }] },
    };
    expect(toCsv([cross]).split('\n')[1]).toContain(',"[{""pattern"":""cbr"",""rate"":""10%""}]",');
    expect(csv.slice(1).some((l) => l.startsWith('004-htcp-4-r2,htcp · 4 flows · rep 2,2,htcp,4,'))).toBe(
      true,
    );
    expect(second.rows.find((r) => r.id === '004-htcp-4-r2')?.label).toBe('htcp · 4 flows · rep 2');
    // Results written before labels: the CSV's label column falls back to the id.
    expect(toCsv([{ ...(second.rows[0] as CampaignRow), label: undefined }]).split('\n')[1]).toMatch(
      /^([^,]+),\1,/,
    );
  });
});

describe('the campaign ETA', () => {
  it('comes from the runs that ran to their end, per lab, and is not guessed after a stop', () => {
    expect(etaText([600_000, 660_000], 3, 1, false)).toBe(', ETA 32 min');
    expect(etaText([600_000, 660_000], 3, 2, false)).toBe(', ETA 16 min');
    expect(etaText([], 3, 1, false)).toBe(', ETA unknown');
    expect(etaText([600_000], 0, 1, false)).toBe('');
    expect(etaText([600_000], 3, 1, true)).toBe(', stopped');
  });
});

describe('lfnlab campaign plan', () => {
  it('lists each variant by its label, with the run directory (the id) beside it', async () => {
    const { campaignCommand } = await import('../cli/campaignCommand.js');
    const { writeFileSync } = await import('node:fs');
    const file = join(mkdtempSync(join(tmpdir(), 'lfnlab-plan-')), 'resp.yaml');
    writeFileSync(
      file,
      `name: resp
base:
  name: resp
  duration: 10s
  paths: { main: { rtt: 120ms, rate: 100Mbit, buffer: 0.05bdp } }
  flows: [{ stack: reno }]
vary:
  paths.main:
    - { rtt: 120ms, rate: 100Mbit, buffer: 0.05bdp }
    - { rtt: 120ms, rate: 50Mbit, buffer: 0.05bdp }
repeat: 2
order: sequential
`,
    );
    const out: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((m: unknown) => {
      out.push(String(m));
    });
    try {
      expect(await campaignCommand.run({}, ['plan', file])).toBe(0);
    } finally {
      log.mockRestore();
    }
    const lines = out.join('\n').split('\n');
    expect(lines[0]).toMatch(/^#\s+variant\s+run directory\s*$/);
    expect(lines.slice(2).map((l) => l.replace(/\s{2,}/g, ' | ').trim())).toEqual([
      '1 | 100 Mbit/s · rep 1 | 001-_rtt_120ms_rate_100Mbit_-r1',
      '2 | 100 Mbit/s · rep 2 | 001-_rtt_120ms_rate_100Mbit_-r2',
      '3 | 50 Mbit/s · rep 1 | 002-_rtt_120ms_rate_50Mbit_b-r1',
      '4 | 50 Mbit/s · rep 2 | 002-_rtt_120ms_rate_50Mbit_b-r2',
    ]);
  });
});
