// A reproduction that spans sittings: each finished run's record goes to a progress directory as it
// ends, and a fresh campaign directory restored from it runs only what is left, invalid tries counted once.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../run/summary.js';
import { parseCampaignText } from './expand.js';
import {
  keptCompletedRuns,
  ranCode,
  restoredText,
  restoreProgress,
  saveProgress,
  syncedText,
  syncProgress,
} from './progress.js';
import { type RunOne, runCampaign } from './runCampaign.js';

const campaign = parseCampaignText(`
name: progress
base:
  name: progress
  duration: 10s
  paths: { main: { rtt: 40ms, rate: 20Mbit } }
  flows: [{ stack: reno }]
vary:
  flows[0].stack: [reno, cubic, bbr]
order: sequential
`);

/** A lab whose first run of `invalidFirst` is invalid, and that stops the campaign after `stopAfter` runs. */
function lab(o: { invalidFirst?: string; stopAfter?: number; abort?: AbortController }) {
  const ran: string[] = [];
  const runOne: RunOne = async (spec, dir) => {
    const stack = spec.flows[0]?.stack as string;
    ran.push(stack);
    const bad = stack === o.invalidFirst && ran.filter((s) => s === stack).length === 1;
    const s = {
      name: spec.name,
      status: 'completed',
      verdict: bad ? 'invalid' : 'valid',
      fidelity: { reasons: [], checks: [] },
      paths: [],
      flows: [],
    } as unknown as RunSummary;
    mkdirSync(join(dir, 'samples'), { recursive: true });
    writeFileSync(join(dir, 'summary.json'), JSON.stringify(s));
    writeFileSync(join(dir, 'spec.json'), JSON.stringify(spec));
    writeFileSync(join(dir, 'samples', 'big.jsonl'), 'x'.repeat(1000));
    if (o.stopAfter !== undefined && ran.length >= o.stopAfter) o.abort?.abort();
    return s;
  };
  return { runOne, ran };
}

const tmp = (p: string) => mkdtempSync(join(tmpdir(), `lfnlab-progress-${p}-`));

describe('a campaign kept in a progress directory', () => {
  it('keeps each finished run as it ends, and a fresh directory restored from it runs only the rest', async () => {
    const progress = tmp('kept');
    const first = tmp('first');
    const abort = new AbortController();
    const one = lab({ stopAfter: 2, abort });
    await runCampaign({
      campaign,
      dir: first,
      runOne: one.runOne,
      signal: abort.signal,
      log: () => {},
      afterRun: (id) => saveProgress(first, progress, id),
    });
    expect(one.ran).toEqual(['reno', 'cubic']);
    // Only the record a comparison reads is kept, not the samples.
    expect(readdirSync(join(progress, 'runs')).sort()).toEqual(['001-reno-r1', '002-cubic-r1']);
    expect(readdirSync(join(progress, 'runs', '001-reno-r1')).sort()).toEqual(['spec.json', 'summary.json']);
    expect(existsSync(join(progress, 'campaign.json'))).toBe(true);

    // Another machine: an empty campaign directory, the progress directory from the repository.
    rmSync(first, { recursive: true });
    const second = tmp('second');
    expect(restoreProgress(progress, second)).toEqual({ runs: 2, invalidTries: 0 });
    const two = lab({});
    const out = await runCampaign({ campaign, dir: second, runOne: two.runOne, log: () => {} });
    expect(two.ran).toEqual(['bbr']);
    expect(out.skipped).toBe(2);
    expect(out.rows.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
  });

  it('counts an invalid try once: a run set aside leaves the progress directory until its new try ends', async () => {
    const progress = tmp('invalid');
    const dir = tmp('run');
    const one = lab({ invalidFirst: 'cubic' });
    await runCampaign({
      campaign,
      dir,
      runOne: one.runOne,
      retryInvalid: 1,
      log: () => {},
      afterRun: (id) => {
        saveProgress(dir, progress, id);
        // Right after cubic's invalid try is set aside, the progress has the try and no counting run.
        if (id === '002-cubic-r1' && one.ran.length === 2) {
          expect(existsSync(join(progress, 'runs', id))).toBe(false);
          expect(readdirSync(join(progress, 'invalid'))).toEqual([`${id}~1`]);
        }
      },
    });
    expect(one.ran).toEqual(['reno', 'cubic', 'cubic', 'bbr']);
    const fresh = tmp('fresh');
    expect(restoreProgress(progress, fresh)).toEqual({ runs: 3, invalidTries: 1 });
    const verdict = (d: string) =>
      (JSON.parse(readFileSync(join(fresh, d, 'summary.json'), 'utf8')) as RunSummary).verdict;
    expect(verdict('runs/002-cubic-r1')).toBe('valid');
    expect(verdict('invalid/002-cubic-r1~1')).toBe('invalid');
    const again = lab({});
    await runCampaign({ campaign, dir: fresh, runOne: again.runOne, retryInvalid: 1, log: () => {} });
    expect(again.ran).toEqual([]);
  });

  it('leaves a run the campaign directory already has, and keeps no failed run', () => {
    const progress = tmp('keep');
    const dir = tmp('dir');
    const write = (base: string, id: string, status: string, verdict: string) => {
      mkdirSync(join(base, 'runs', id), { recursive: true });
      writeFileSync(join(base, 'runs', id, 'summary.json'), JSON.stringify({ status, verdict }));
    };
    write(dir, 'a', 'failed', 'invalid');
    saveProgress(dir, progress, 'a');
    expect(existsSync(join(progress, 'runs', 'a'))).toBe(false);
    write(progress, 'b', 'completed', 'suspect');
    write(dir, 'b', 'completed', 'valid');
    expect(restoreProgress(progress, dir)).toEqual({ runs: 0, invalidTries: 0 });
    expect(JSON.parse(readFileSync(join(dir, 'runs', 'b', 'summary.json'), 'utf8')).verdict).toBe('valid');
  });
});

describe('a campaign and its progress brought level before it resumes', () => {
  it('copies a run that ended before its record was kept: a resumed campaign never runs it again', () => {
    const progress = tmp('sync');
    const dir = tmp('killed');
    const write = (base: string, id: string, status: string) => {
      mkdirSync(join(base, 'runs', id), { recursive: true });
      writeFileSync(join(base, 'runs', id, 'summary.json'), JSON.stringify({ status, verdict: 'valid' }));
    };
    write(dir, '001-reno-r1', 'completed');
    write(dir, '002-cubic-r1', 'aborted');
    write(progress, '003-bbr-r1', 'completed');
    const s = syncProgress(progress, dir);
    expect(s).toEqual({ runs: 1, invalidTries: 0, kept: 1 });
    expect(readdirSync(join(progress, 'runs')).sort()).toEqual(['001-reno-r1', '003-bbr-r1']);
    expect(existsSync(join(dir, 'runs', '003-bbr-r1', 'summary.json'))).toBe(true);
    expect(syncedText(s, 'P')).toBe('progress: 1 finished run restored from P; 1 finished run copied to P');
    expect(syncedText(syncProgress(progress, dir), 'P')).toBeNull();
  });
});

describe('which code ran a run kept in a progress directory', () => {
  it("keeps the environment's code identity alone, and a restored run still says it", () => {
    const dir = tmp('code');
    const progress = tmp('code-kept');
    const id = '001-reno-r1';
    mkdirSync(join(dir, 'runs', id), { recursive: true });
    writeFileSync(join(dir, 'runs', id, 'summary.json'), JSON.stringify({ status: 'completed' }));
    const code = { version: '0.1.0', commit: '9d9654c9ec5f', modified: false };
    writeFileSync(
      join(dir, 'runs', id, 'environment.json'),
      JSON.stringify({ lfnlab: code, sysctls: 'x'.repeat(5000) }),
    );
    saveProgress(dir, progress, id);
    expect(readdirSync(join(progress, 'runs', id)).sort()).toEqual(['code.json', 'summary.json']);
    const fresh = tmp('code-fresh');
    restoreProgress(progress, fresh);
    expect(ranCode(join(fresh, 'runs', id))).toEqual(code);
    expect(ranCode(join(dir, 'runs', id))).toEqual(code);
    expect(ranCode(tmp('empty'))).toBeNull();
  });
});

describe('what a resumed campaign says it restored', () => {
  it('counts invalid tries apart from finished runs', () => {
    expect(restoredText(36, 1)).toBe('36 finished runs and 1 invalid try');
    expect(restoredText(1, 0)).toBe('1 finished run');
    expect(restoredText(0, 2)).toBe('0 finished runs and 2 invalid tries');
  });
});

describe('the completed runs among kept records', () => {
  it('gives each completed run with its spec, by id, and skips failed runs and runs without a spec', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kept-'));
    try {
      const put = (id: string, status: string, spec = true) => {
        mkdirSync(join(dir, id));
        writeFileSync(join(dir, id, 'summary.json'), JSON.stringify({ status, seed: 1 }));
        if (spec) writeFileSync(join(dir, id, 'spec.json'), JSON.stringify({ name: id, flows: [] }));
      };
      put('b-r1', 'completed');
      put('a-r1', 'completed');
      put('c-r1', 'failed');
      put('d-r1', 'completed', false);
      const kept = keptCompletedRuns(dir);
      expect(kept.map((r) => r.id)).toEqual(['a-r1', 'b-r1']);
      expect(kept[0]?.spec.name).toBe('a-r1');
      expect(kept[0]?.summary.status).toBe('completed');
      expect(keptCompletedRuns(join(dir, 'absent'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
