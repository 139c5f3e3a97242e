// How a preset runs at its reproduction length (meta `reproduce`): the run length and repetitions
// that decide its findings, extra repetitions where they need them, and what it leaves out (whole
// parts, or some values of a varied parameter), each with why.
import { z } from 'zod';

/** A part of a preset, by the name its meta file's `parts` gives it. */
const PartName = z.string().regex(/^[\w-]+$/);

/**
 * The reproduction length: long enough that the findings are decided, short enough to run every
 * preset. Every value is kept but those `values` drops; each variant runs `repeat` times (seeded,
 * see expandCampaign). Every shipped preset has one (a test says so); a meta file under test may
 * leave it out.
 */
export const ReproduceSchema = z.strictObject({
  seconds: z.number().int().min(5).max(3600),
  repeat: z.number().int().min(3).max(10).default(3),
  /**
   * More repetitions of some variants, where the findings need them (a cell whose interval
   * straddled a bound at `repeat`): vary keys with a pattern each, as the part's campaign file
   * writes its values, in one part or (no `part`) in every part that varies those keys.
   */
  more: z
    .array(
      z.strictObject({
        part: PartName.optional(),
        where: z.record(z.string(), z.unknown()),
        repeat: z.number().int().min(4).max(30),
      }),
    )
    .default([]),
  /**
   * Some values of a varied parameter left out of the reproduction, where the findings read
   * only a range of them (a crossing the runs already done place well inside it): the values
   * kept, as the part's campaign file writes them, and why the others are not needed.
   */
  values: z
    .array(
      z.strictObject({
        part: PartName.optional(),
        key: z.string().min(1),
        keep: z.array(z.unknown()).min(1),
        why: z.string().min(20),
      }),
    )
    .default([]),
  /** Why this length decides the findings (what must fit in a run). */
  why: z.string().min(20),
  /**
   * Parts the reproduction does not run, each with why no length the lab can afford would
   * measure what the paper measured (their findings then say so instead of "not measured yet").
   */
  notReproduced: z.array(z.strictObject({ part: PartName, why: z.string().min(20) })).default([]),
});
