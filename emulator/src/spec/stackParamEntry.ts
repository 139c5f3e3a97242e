// What the catalog records about one stack constant, and the builders its tables are written with.
// Dimensions and sysfs kinds are explained in stackParamCatalog.ts.

/** `unknown`: an added stack's parameter, whose meaning only its author knows. */
export type ParamDimension = 'window' | 'rate' | 'time' | 'ratio' | 'unknown';
export type ParamUnit =
  | 'packets'
  | 'bytes'
  | 'ms'
  | 's'
  | 'us'
  | 'RTTs'
  | 'Mbit/s'
  | 'ratio'
  | "the module's units";

export interface StackParam {
  name: string;
  /** The value the module starts with, in `unit` (ratios in the source's own fixed point, see `scale`). */
  default: number;
  unit: ParamUnit;
  dimension: ParamDimension;
  sysfs: 'live' | 'load' | 'hidden' | 'none';
  /** The range the spec accepts for a live parameter (whole numbers); for the others, what the type allows. */
  min: number;
  max: number;
  /** Fixed-point ratios: the value means default/scale (BIC's beta 819/1024 ≈ 0.8). */
  scale?: number;
  /** A constant another (live) parameter scales, in percent: its value in force is default × that/100. */
  scaledBy?: string;
  /**
   * A 'load' parameter of a built-in module that the spec may set: the lab kernel boots with it on
   * its command line (a lab booted with another value is restarted), and the run reads it back.
   */
  boot?: true;
  meaning: string;
}

export interface StackParams {
  /** The sysfs directory: the module's name, also for a built-in (cubic's tcp_cubic). */
  module: string | null;
  params: StackParam[];
}

export const live = (
  name: string,
  def: number,
  unit: ParamUnit,
  dimension: ParamDimension,
  [min, max]: [number, number],
  meaning: string,
  scale?: number,
): StackParam => ({
  name,
  default: def,
  unit,
  dimension,
  sysfs: 'live',
  min,
  max,
  meaning,
  ...(scale ? { scale } : {}),
});

export const fixed = (
  name: string,
  def: number,
  unit: ParamUnit,
  dimension: ParamDimension,
  meaning: string,
  sysfs: 'load' | 'hidden' | 'none' = 'none',
  scale?: number,
  scaledBy?: string,
): StackParam => ({
  name,
  default: def,
  unit,
  dimension,
  sysfs,
  min: def,
  max: def,
  meaning,
  ...(scale ? { scale } : {}),
  ...(scaledBy ? { scaledBy } : {}),
});

/** A load-time parameter a run sets through the lab kernel's command line (see `boot`). */
export const atBoot = (...args: Parameters<typeof live>): StackParam => ({
  ...live(...args),
  sysfs: 'load',
  boot: true,
});

export const I31 = 2 ** 31 - 1;

/**
 * A switch of one of our own modules (0 off, 1 on; a bool reads back as N or Y): settable so an
 * experiment can turn a mechanism off (TCP-LP's inference, FAST's start-up); no scaling touches it.
 * Mainline's flags (HyStart, BBR's modes) are left out.
 */
export const flag = (name: string, def: 0 | 1, meaning: string): StackParam =>
  live(name, def, 'ratio', 'ratio', [0, 1], meaning);
