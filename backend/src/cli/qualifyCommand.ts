import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CampaignError } from '../campaign/expand.js';
import { type RunOne, runInLab } from '../campaign/runCampaign.js';
import { campaignsCost, formatCost, formatWallS } from '../presets/cost.js';
import { exitCodeOf } from '../qualify/judge.js';
import { planSuite } from '../qualify/plan.js';
import { caseLine, runSuite, SuiteDirectoryError } from '../qualify/runSuite.js';
import { MAX_REPETITIONS, MAX_SECONDS, parseSuiteText, type Suite, SuiteError } from '../qualify/suite.js';
import { FakeLabDriver } from '../service/fakeLabDriver.js';
import type { Command } from './args.js';
import { STOP_HELP, stopOnSignals } from './stopSignals.js';

const USAGE = `usage: lfnlab qualify SUITE.yaml [--out DIR] [--lab NAME|fake] [--seconds S]
                       [--repetitions N] [--junit FILE] [--html FILE] [--fake-speed X]

Runs a qualification suite: every condition × stack × repetition as one resumable
campaign per condition, then judges each condition × stack against the suite's
bounds (mean over repetitions, 95 % interval for n ≥ 2: the bootstrap, widened
to the t interval at a few runs). A run whose fidelity verdict is not valid, or
that lacks a bounded metric, is an error.
Writes DIR/junit.xml, DIR/report.html and DIR/result.json (default DIR:
qualify/SUITE-NAME/). Run the same command again to resume: finished runs are kept.

  --lab NAME|fake   the lab to run on (default: the default lab); 'fake' makes
                    synthetic runs without a lab, for trying a suite and for CI
  --seconds S       length of every run (default: the suite's 'seconds', else its
                    base spec's duration); times in the specs shrink with it
  --repetitions N   runs per condition × stack (default: the suite's, 3)
  --junit FILE      JUnit XML elsewhere than DIR/junit.xml
  --html FILE       the HTML report elsewhere than DIR/report.html
  --fake-speed X    with --lab fake: run time passes X times faster (default 20)

Exit status: 0 every case passed, 1 a failure or an error, 2 a problem with the
suite file or an argument's value, 64 an unknown option (as for every command),
130 interrupted (run again to resume).
${STOP_HELP}
Suite format: presets/suites/lfn-qualification.yaml and README.md (Qualification).`;

function wholeOption(v: unknown, name: string, low: number, high: number): number | undefined | string {
  if (typeof v !== 'string') return undefined;
  const n = Number(v);
  return Number.isInteger(n) && n >= low && n <= high
    ? n
    : `--${name} must be a whole number from ${low} to ${high} (got '${v}')`;
}

function fakeRunner(speed: number): RunOne {
  const driver = new FakeLabDriver({ timeScale: speed });
  return async (spec, outDir, signal) =>
    (
      await driver.run({
        spec,
        outDir,
        labName: 'fake',
        signal: signal ?? new AbortController().signal,
        log: () => undefined,
        onSample: () => undefined,
        onEvent: () => undefined,
      })
    ).summary;
}

export const qualifyCommand: Command = {
  name: 'qualify',
  summary: 'run a qualification suite: pass/fail per condition × stack, JUnit XML and HTML',
  usage: USAGE,
  options: {
    out: { type: 'string' },
    lab: { type: 'string' },
    seconds: { type: 'string' },
    repetitions: { type: 'string' },
    junit: { type: 'string' },
    html: { type: 'string' },
    'fake-speed': { type: 'string' },
  },
  async run(values, positionals) {
    const problem = (msg: string) => {
      console.error(`lfnlab qualify: ${msg}`);
      return 2;
    };
    const [file, ...extra] = positionals;
    if (!file || extra.length) return problem(`expected one suite file\n\n${USAGE}`);
    const seconds = wholeOption(values.seconds, 'seconds', 2, MAX_SECONDS);
    const repetitions = wholeOption(values.repetitions, 'repetitions', 1, MAX_REPETITIONS);
    const speed = typeof values['fake-speed'] === 'string' ? Number(values['fake-speed']) : 20;
    if (typeof seconds === 'string') return problem(seconds);
    if (typeof repetitions === 'string') return problem(repetitions);
    if (!(speed >= 1 && speed <= 1000)) return problem(`--fake-speed must be a number from 1 to 1000`);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      return problem(`cannot read ${file}: ${(err as Error).message}`);
    }
    let suite: Suite;
    let plans: ReturnType<typeof planSuite>;
    try {
      suite = parseSuiteText(text);
      plans = planSuite(suite, { ...(seconds ? { seconds } : {}), ...(repetitions ? { repetitions } : {}) });
    } catch (err) {
      if (err instanceof SuiteError || err instanceof CampaignError) {
        console.error(`${file}: ${err.message}`);
        return 2;
      }
      throw err;
    }
    const lab = typeof values.lab === 'string' ? values.lab : 'default';
    const dir = resolve(typeof values.out === 'string' ? values.out : join('qualify', suite.name));
    const runSeconds = seconds ?? suite.seconds ?? null;
    const reps = repetitions ?? suite.repetitions;
    const cost = campaignsCost(plans.map((p) => ({ campaign: p.campaign })));
    console.log(`lfnlab qualify ${suite.name} → ${dir} (lab: ${lab})`);
    const costText =
      lab === 'fake'
        ? `${cost.runs} runs, ${formatWallS(cost.labS)} of lab time, about ${formatWallS(cost.labS / speed)} wall on the fake lab at ${speed}x`
        : formatCost(cost);
    console.log(
      `${plans.length} conditions × ${suite.stacks.length} stacks × ${reps} repetitions: ${costText}`,
    );
    const stopping = stopOnSignals();
    try {
      const out = await runSuite({
        suite,
        plans,
        dir,
        lab,
        runner: () =>
          lab === 'fake'
            ? fakeRunner(speed)
            : runInLab(typeof values.lab === 'string' ? values.lab : undefined),
        seconds: runSeconds,
        repetitions: reps,
        ...(typeof values.junit === 'string' ? { junitFile: resolve(values.junit) } : {}),
        ...(typeof values.html === 'string' ? { htmlFile: resolve(values.html) } : {}),
        signal: stopping.signal,
        drain: stopping.drain,
      });
      console.log('');
      for (const c of out.result.cases) console.log(caseLine(c));
      const { tests, passed, failures, errors } = out.result.counts;
      console.log(
        `\n${passed} of ${tests} passed, ${failures} failed, ${errors} errors; JUnit ${out.files.junit}, report ${out.files.html}, result ${out.files.json}`,
      );
      return out.aborted ? 130 : exitCodeOf(out.result.counts);
    } catch (err) {
      if (err instanceof SuiteDirectoryError) return problem(err.message);
      throw err;
    } finally {
      stopping.release();
    }
  },
};
