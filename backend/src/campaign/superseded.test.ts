// A campaign file edited between sittings: a variant it now gives another spec under the same id
// is another experiment. The campaign is refused, naming the change; asked to (--rerun-changed),
// the old run goes aside (kept under superseded/) and the variant runs again, also when the campaign
// resumes from kept records on another machine; the others are not run again.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Spec } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../run/summary.js';
import { expandCampaign, parseCampaignText } from './expand.js';
import { restoreProgress, saveProgress } from './progress.js';
import { INVALID_DIR, type RunOne, runCampaign } from './runCampaign.js';
import { firstDifference, SUPERSEDED_DIR } from './superseded.js';

/** P-TCP's 16 streams and CUBIC; `connect` set on the streams when given. */
const campaignWith = (connect?: string) =>
  parseCampaignText(`
name: edited
base:
  name: edited
  duration: 10s
  paths: { main: { rtt: 40ms, rate: 20Mbit } }
  flows: [{ stack: reno, name: test }]
vary:
  flows[0]:
    - { stack: reno, streams: 16, name: test${connect ? `, connect: ${connect}` : ''} }
    - { stack: cubic, streams: 1, name: test }
order: sequential
`);

/** A lab that records the specs it ran; the first `invalid` runs it cannot carry. */
function lab(invalid = 0) {
  const ran: Spec[] = [];
  const runOne: RunOne = async (spec, dir) => {
    ran.push(spec);
    const s = {
      name: spec.name,
      status: 'completed',
      error: null,
      verdict: ran.length <= invalid ? 'invalid' : 'valid',
      fidelity: { reasons: [], checks: [] },
      paths: [],
      flows: [],
    } as unknown as RunSummary;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'summary.json'), JSON.stringify(s));
    writeFileSync(join(dir, 'spec.json'), JSON.stringify(spec));
    return s;
  };
  return { runOne, ran };
}

const connectIn = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, 'spec.json'), 'utf8')) as Spec).flows[0]?.connect;

describe('a campaign whose file gives a variant another spec since its run', () => {
  it('names the first field that moved', () => {
    expect(
      firstDifference({ flows: [{ stack: 'reno' }] }, { flows: [{ stack: 'reno', connect: 'together' }] }),
    ).toBe('flows[0].connect: absent → together');
    expect(firstDifference({ rate: '20Mbit' }, { rate: '30Mbit' })).toBe('rate: 20Mbit → 30Mbit');
    expect(firstDifference({ a: [1] }, { a: [1] })).toBeNull();
  });

  it('is refused, naming the change; asked to, keeps the old run under superseded/ and runs that variant again', async () => {
    const [ptcp, cubic] = expandCampaign(campaignWith()).map((v) => v.id);
    if (!ptcp || !cubic) throw new Error('two variants expected');
    // The edit keeps the id: the run directory alone cannot tell the two experiments apart.
    expect(expandCampaign(campaignWith('together')).map((v) => v.id)).toEqual([ptcp, cubic]);
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-edited-'));
    await runCampaign({ campaign: campaignWith(), dir, runOne: lab().runOne, log: () => {} });
    expect(connectIn(join(dir, 'runs', ptcp))).toBe('serial');

    const again = lab();
    await expect(
      runCampaign({ campaign: campaignWith('together'), dir, runOne: again.runOne, log: () => {} }),
    ).rejects.toThrow(
      `holds runs made to another plan: the campaign file gives 1 of its variants another spec (first ${ptcp}: flows[0].connect: absent → together)`,
    );
    expect(again.ran).toHaveLength(0);
    const lines: string[] = [];
    const out = await runCampaign({
      campaign: campaignWith('together'),
      dir,
      runOne: again.runOne,
      log: (l) => lines.push(l),
      rerunChanged: true,
    });
    expect(again.ran.map((s) => s.flows[0]?.connect)).toEqual(['together']);
    expect(out.ran).toBe(1);
    expect(connectIn(join(dir, 'runs', ptcp))).toBe('together');
    expect(connectIn(join(dir, SUPERSEDED_DIR, `${ptcp}~1`))).toBe('serial');
    expect(lines.join('\n')).toContain(
      `${ptcp} was made to another spec than the campaign file gives it now (flows[0].connect: absent → together)`,
    );
    // The plan now says what the runs were made to: a third sitting runs nothing.
    const third = lab();
    await runCampaign({ campaign: campaignWith('together'), dir, runOne: third.runOne, log: () => {} });
    expect(third.ran).toHaveLength(0);
  });

  it('does the same from kept records on a fresh machine, and the old run leaves them with its invalid tries', async () => {
    const first = mkdtempSync(join(tmpdir(), 'lfnlab-edited-a-'));
    const progress = mkdtempSync(join(tmpdir(), 'lfnlab-edited-progress-'));
    const [ptcp] = expandCampaign(campaignWith()).map((v) => v.id);
    if (!ptcp) throw new Error('variant expected');
    // The first run of P-TCP is invalid and tried once more: an invalid try is kept.
    await runCampaign({
      campaign: campaignWith(),
      dir: first,
      runOne: lab(1).runOne,
      retryInvalid: 1,
      log: () => {},
      afterRun: (id) => saveProgress(first, progress, id),
    });
    expect(readdirSync(join(progress, INVALID_DIR))).toEqual([`${ptcp}~1`]);

    const fresh = mkdtempSync(join(tmpdir(), 'lfnlab-edited-b-'));
    restoreProgress(progress, fresh);
    const again = lab();
    await runCampaign({
      campaign: campaignWith('together'),
      dir: fresh,
      runOne: again.runOne,
      retryInvalid: 1,
      log: () => {},
      afterRun: (id) => saveProgress(fresh, progress, id),
      rerunChanged: true,
    });
    expect(again.ran.map((s) => s.flows[0]?.connect)).toEqual(['together']);
    expect(connectIn(join(progress, 'runs', ptcp))).toBe('together');
    // Its invalid try was a try of the old spec: it left the kept records, and the new run had its own tries.
    expect(existsSync(join(progress, INVALID_DIR, `${ptcp}~1`))).toBe(false);
    expect(readdirSync(join(fresh, SUPERSEDED_DIR, INVALID_DIR))).toEqual([`${ptcp}~1~1`]);
  });
});
