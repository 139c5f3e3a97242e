// --lab and --labs N for the commands that keep labs: checked, defaulted from the host, warned
// about when they ask for more labs than the host fits.
import { availableParallelism } from 'node:os';
import { expectedClock } from '@lfnlab/lab-images';
import { defaultLabCount, labsThatFit } from '../campaign/labPool.js';
import { LAB_NAME, poolLabNames } from '../service/labDriver.js';

export { poolLabNames };

import { UsageError } from './args.js';

/** --labs N: a whole number from 1 to 8 (more than the host's default is allowed, and warned of). */
export function parseLabCount(text: string | undefined, warn: (line: string) => void): number {
  if (text === undefined) return defaultLabCount();
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 8)
    throw new UsageError(`--labs must be a whole number from 1 to 8 (got ${text})`);
  const clock = expectedClock(undefined);
  const fit = labsThatFit(clock);
  if (n > fit)
    warn(
      clock === 'dilated'
        ? `--labs ${n}: this host fits ${fit} dilated labs (${availableParallelism()} cores, one lab per core); the labs will share cores and each run takes longer in wall time (its numbers do not change)`
        : `--labs ${n}: this host fits ${fit} (${availableParallelism()} cores, one lab per two); the labs will compete for CPU, and each run's verdict says when that held a flow back`,
    );
  return n;
}

/**
 * What a campaign leaves behind: the labs its `ran` runs used stay up so the next command starts
 * without a boot (a dilated lab pauses between uses and costs no CPU, but each keeps its memory),
 * which a user who never typed `lab up` would not expect unless told. Null when nothing ran.
 */
export function labsLeftUpNote(labCount: number, ran: number, base?: string): string | null {
  if (ran < 1) return null;
  const names = poolLabNames(Math.min(labCount, ran), base);
  const downs = names.map((n) => `lfnlab lab down --name ${n}`).join('; ');
  return `${names.length === 1 ? `lab ${names[0]} stays` : `labs ${names.join(', ')} stay`} up for the next run (paused between uses, holding memory); to free ${names.length === 1 ? 'it' : 'them'}: ${downs}`;
}

/** --retry-invalid N: how many more runs a variant gets after the lab could not carry it (0 to 3). */
export function parseRetryInvalid(text: string | undefined): number {
  if (text === undefined) return 0;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 3)
    throw new UsageError(`--retry-invalid must be a whole number from 0 to 3 (got ${text})`);
  return n;
}

export const RETRY_INVALID_HELP = `  --retry-invalid N  run a variant again, up to N more times, when the lab could not carry
                     it (verdict invalid); each invalid try is kept under DIR/invalid/
                     and counted when the results are published (default 0). Once a
                     repetition stays invalid through all its tries, the variant's other
                     repetitions run once each`;

const RERUN_CHANGED_HELP = `  --rerun-changed  when the file now gives a variant another spec than the one its run
                   in DIR was made to (same run id, e.g. a preset edited since), keep that
                   run under DIR/superseded/ and make it anew; without it such a resume
                   is refused, naming the first field that changed`;

/** The help of the options a resumable campaign run takes beside its labs: retries and edits. */
export const RESUME_OPTIONS_HELP = `${RETRY_INVALID_HELP}\n${RERUN_CHANGED_HELP}`;

/**
 * --lab NAME for the commands that run experiments in real labs (run, campaign run, preset run,
 * selftest): the lab's name, or undefined for the default. 'fake' means the service's stand-in lab
 * elsewhere (serve, worker, qualify), so here it is refused rather than booting a real lab so named
 * beside whatever else runs; 'real' is the default, as there.
 */
export function parseRunLabName(text: string | undefined, command: string): string | undefined {
  if (text === undefined || text === 'real') return undefined;
  if (text === 'fake')
    throw new UsageError(
      `--lab fake: ${command} runs experiments in real labs only (the stand-in lab is for lfnlab serve, worker and qualify); leave --lab out for the lab named default, or name one`,
    );
  if (!LAB_NAME.test(text) || text.length > 28)
    throw new UsageError(
      '--lab must be a lab name (1-28 letters, digits, "_" or "-", starting with a letter or digit)',
    );
  return text;
}

/**
 * --lab real|fake|NAME: fake runs no lab; real keeps labs named default, default-2 …; NAME keeps
 * labs NAME, NAME-2 … instead (a lab PC's name drives that PC: `lfnlab lab iso`).
 */
export function parseLabOption(text: string | undefined): { lab: 'real' | 'fake'; base: string } {
  const lab = text ?? 'real';
  if (lab === 'real' || lab === 'fake') return { lab, base: 'default' };
  if (!LAB_NAME.test(lab) || lab.length > 28)
    throw new UsageError(
      '--lab must be real, fake, or a lab name (1-28 letters, digits, "_" or "-", starting with a letter or digit)',
    );
  return { lab: 'real', base: lab };
}

/** The options every resumable campaign run takes (campaign run, preset run), parsed once. */
export interface CampaignRunOptions {
  labCount: number;
  labBase: string | undefined;
  retryInvalid: number;
  rerunChanged: boolean;
}

export function parseCampaignRunOptions(
  values: Record<string, string | boolean | undefined>,
  command: string,
): CampaignRunOptions {
  const text = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  return {
    labCount: parseLabCount(text('labs'), (l) => console.error(l)),
    labBase: parseRunLabName(text('lab'), command),
    retryInvalid: parseRetryInvalid(text('retry-invalid')),
    rerunChanged: values['rerun-changed'] === true,
  };
}
