// Shared set-up for tests against the real lab: the image built, the lab booted (KVM where it
// works, TCG otherwise), and a helper to run a spec into a temporary run directory.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SpecInput, validateSpec } from '@lfnlab/emulator';
import { ensureImage, type LabRecord, labUp } from '@lfnlab/lab-images';
import type { QdiscStat } from '../../src/run/fidelity.js';
import { type RunOptions, runExperiment } from '../../src/run/runExperiment.js';
import type { Sample } from '../../src/run/samples.js';
import { testLabName } from './testLab.mjs';

export type { QdiscStat };

/** This worker's lab (see testLab.mjs: the lab project runs a lab per worker). */
export const TEST_LAB = testLabName();

/**
 * `LFNLAB_LAB_TIER=full` (`npm run test:lab:full`) adds the long cases that CI leaves out: CI's 90
 * minutes hold the decisive short case of each capability on a slow TCG host, not every stack.
 */
export const FULL_LAB_TIER = process.env.LFNLAB_LAB_TIER === 'full';

export async function bootTestLab(): Promise<LabRecord> {
  const image = await ensureImage({ log: () => undefined });
  return labUp({ name: TEST_LAB, image, log: (s) => console.log(s) });
}

export async function runSpec(
  input: SpecInput,
  extra: Pick<RunOptions, 'alterPlan' | 'onSample' | 'onProgress' | 'clock' | 'labName'> = {},
) {
  const v = validateSpec(input);
  if (!v.ok) throw new Error(`test spec invalid: ${JSON.stringify(v.problems)}`);
  const dir = mkdtempSync(join(tmpdir(), `lfnlab-${v.spec.name}-`));
  const lines: string[] = [];
  const outcome = await runExperiment({
    spec: v.spec,
    outDir: dir,
    labName: TEST_LAB,
    ...extra,
    log: (l) => {
      lines.push(l);
      console.log(l);
    },
  });
  const jsonl = (f: string) =>
    existsSync(join(dir, f))
      ? readFileSync(join(dir, f), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  return {
    ...outcome,
    log: lines,
    read: (f: string) => JSON.parse(readFileSync(join(dir, f), 'utf8')),
    /** Every typed sample the run recorded, all kinds. */
    samples: readdirSync(join(dir, 'samples')).flatMap((f) => jsonl(join('samples', f))) as Sample[],
    /** The run's events as recorded: { type, t?, ... }. */
    events: jsonl('events.jsonl') as ({ type: string } & Record<string, unknown>)[],
  };
}

/** The root qdisc of a router device from a `tc -s -j qdisc show` snapshot. */
export const rootQdisc = (stats: QdiscStat[], dev: string) => stats.find((q) => q.dev === dev && q.root);
