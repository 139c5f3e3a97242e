// Running a suite: its condition campaigns one after another under DIR/conditions/NAME (each
// resumable by the campaign machinery), one progress line per run with the whole suite's ETA, then
// every run measured and judged, and the JUnit XML, HTML report and JSON result written.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type RunOne, runCampaign } from '../campaign/runCampaign.js';
import { formatWallS } from '../presets/cost.js';
import { qualifyHtml } from './html.js';
import { type CaseResult, judgeSuite, type SuiteResult } from './judge.js';
import { junitXml } from './junit.js';
import { labFacts, measureRun, type RunMeasurement } from './measure.js';
import type { ConditionPlan } from './plan.js';
import { boundsFor, type Suite } from './suite.js';

export interface SuiteRunOptions {
  suite: Suite;
  plans: ConditionPlan[];
  dir: string;
  /** 'fake' or the lab's name (shown in the report and the JUnit properties). */
  lab: string;
  /** A fresh runner per condition campaign (the campaign releases its runner when it ends). */
  runner: () => RunOne;
  seconds: number | null;
  repetitions: number;
  junitFile?: string;
  htmlFile?: string;
  log?: (line: string) => void;
  signal?: AbortSignal;
  /** Start no new run once aborted (SIGUSR2); the run in progress finishes. */
  drain?: AbortSignal;
}

/**
 * What decides a condition's runs: each variant's id and resolved spec. Bounds are not in it, so a
 * suite whose bounds changed is judged again on the runs it has; a changed spec or length is not
 * (runCampaign alone compares ids, which a changed rate or --seconds would keep).
 */
const runsFingerprint = (p: ConditionPlan) =>
  JSON.stringify(p.variants.map((v) => ({ id: v.id, spec: v.resolved })));

/** Refuses a directory whose runs of some condition were made from other specs. */
function checkFingerprints(dir: string, plans: ConditionPlan[]): void {
  for (const p of plans) {
    const f = join(conditionDir(dir, p.condition), 'qualify-runs.json');
    if (existsSync(f) && readFileSync(f, 'utf8') !== runsFingerprint(p))
      throw new SuiteDirectoryError(
        `${dir} holds runs of condition ${p.condition} made with other specs, length or repetitions; use another --out`,
      );
  }
  for (const p of plans) {
    mkdirSync(conditionDir(dir, p.condition), { recursive: true });
    writeFileSync(join(conditionDir(dir, p.condition), 'qualify-runs.json'), runsFingerprint(p));
  }
}

export class SuiteDirectoryError extends Error {}

const conditionDir = (dir: string, condition: string) => join(dir, 'conditions', condition);

export function measurePlans(dir: string, plans: ConditionPlan[]): RunMeasurement[] {
  return plans.flatMap((p) =>
    p.variants.map((v) =>
      measureRun(join(conditionDir(dir, p.condition), 'runs', v.id), {
        id: v.id,
        condition: p.condition,
        stack: v.stack,
        repetition: v.repetition,
        subjectIndex: p.subjectIndex,
      }),
    ),
  );
}

export function suiteResult(o: {
  suite: Suite;
  plans: ConditionPlan[];
  dir: string;
  lab: string;
  seconds: number | null;
  repetitions: number;
}): SuiteResult {
  const runs = measurePlans(o.dir, o.plans);
  const { cases, counts } = judgeSuite({
    conditions: o.suite.conditions.map((c) => c.name),
    stacks: o.suite.stacks,
    runs,
    bounds: (c) => boundsFor(o.suite, c),
  });
  const facts = labFacts(
    o.plans.flatMap((p) => p.variants.map((v) => join(conditionDir(o.dir, p.condition), 'runs', v.id))),
  );
  return {
    suite: o.suite.name,
    ...(o.suite.description ? { description: o.suite.description } : {}),
    lab: o.lab,
    ...facts,
    seed: o.suite.seed,
    repetitions: o.repetitions,
    seconds: o.seconds,
    conditions: o.suite.conditions.map((c) => c.name),
    stacks: o.suite.stacks,
    cases,
    counts,
  };
}

export function writeOutputs(dir: string, r: SuiteResult, o: { junitFile?: string; htmlFile?: string } = {}) {
  const files = {
    junit: o.junitFile ?? join(dir, 'junit.xml'),
    html: o.htmlFile ?? join(dir, 'report.html'),
    json: join(dir, 'result.json'),
  };
  for (const f of Object.values(files)) mkdirSync(dirname(f), { recursive: true });
  writeFileSync(files.junit, junitXml(r));
  writeFileSync(files.html, qualifyHtml(r));
  writeFileSync(files.json, `${JSON.stringify(r, null, 2)}\n`);
  return files;
}

export const caseLine = (c: CaseResult) =>
  `${c.outcome === 'pass' ? 'PASS ' : c.outcome === 'failure' ? 'FAIL ' : 'ERROR'} ${c.condition} × ${c.stack}${c.message ? `: ${c.message}` : ''}`;

export async function runSuite(
  o: SuiteRunOptions,
): Promise<{ result: SuiteResult; files: ReturnType<typeof writeOutputs>; aborted: boolean }> {
  const log = o.log ?? ((l: string) => console.log(l));
  mkdirSync(o.dir, { recursive: true });
  checkFingerprints(o.dir, o.plans);
  const total = o.plans.reduce((a, p) => a + p.variants.length, 0);
  const pending = measurePlans(o.dir, o.plans).filter((m) => m.status !== 'completed').length;
  if (pending < total) log(`resuming: ${total - pending} of ${total} runs already finished`);
  let timed = 0;
  let spentMs = 0;
  for (const [k, p] of o.plans.entries()) {
    if (o.signal?.aborted || o.drain?.aborted) break;
    log(`condition ${k + 1}/${o.plans.length} ${p.condition}: ${p.variants.length} runs`);
    let started = Date.now();
    await runCampaign({
      campaign: p.campaign,
      dir: conditionDir(o.dir, p.condition),
      runOne: o.runner(),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.drain ? { drain: o.drain } : {}),
      log: (line) => {
        log(`  ${line}`);
        // A run's end line: time it and give the whole suite's ETA from the runs timed so far.
        if (/\): (completed|failed|aborted)/.test(line)) {
          timed++;
          spentMs += Date.now() - started;
          const left = Math.max(0, pending - timed);
          log(
            `  suite: ${total - left}/${total} runs done, ${left} left, ETA ${formatWallS(((spentMs / timed) * left) / 1000)}`,
          );
        } else if (line.startsWith('[')) started = Date.now();
      },
    });
  }
  const result = suiteResult({ ...o, seconds: o.seconds, repetitions: o.repetitions });
  return {
    result,
    files: writeOutputs(o.dir, result, o),
    aborted: (o.signal?.aborted || o.drain?.aborted) ?? false,
  };
}
