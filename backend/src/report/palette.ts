// One palette for every chart, in the web app and in the HTML report: a colour per congestion-
// control stack (so reno is the same blue in every run and on every page), dashes to tell apart
// flows of one stack within a run, or runs in a comparison. The first eight are Okabe & Ito's
// colour-blind-safe set (yellow left out, orange darkened); the four most compared stacks get
// colours at least ΔE 20 apart under simulated deuteranopia and protanopia (palette.test.ts).
// Browser-safe: no Node imports (the web app imports it from source).

export interface SeriesStyle {
  color: string;
  /** Canvas/SVG dash pattern in px; empty = solid. */
  dash: number[];
}

/** Okabe-Ito minus the pale yellow, then darker distinct tones. */
export const PALETTE = [
  '#0072B2', // blue
  '#D55E00', // vermillion
  '#009E73', // bluish green
  '#56B4E9', // sky blue
  '#CC79A7', // reddish purple
  '#B07800', // dark orange (Okabe-Ito orange, darkened for contrast)
  '#5E3C99', // purple
  '#8C564B', // brown
  '#1B7837', // dark green
  '#B2182B', // dark red
] as const;

/** Stacks the seed papers compare most, each on a colour of its own. */
const STACK_ORDER = [
  'reno',
  'cubic',
  'bbr',
  'htcp',
  'scalable',
  'vegas',
  'highspeed',
  'bic',
  'westwood',
  'illinois',
] as const;

/** Not a flow: probes, queues, reference lines. Greys and black, never a stack's colour. */
export const NEUTRAL = { probe: '#4D4D4D', queue: '#000000', reference: '#767676' } as const;

/**
 * A finding's verdict: always written out as a word, the colour only repeats it. Blue and
 * vermillion (Okabe-Ito) stay apart under the common colour-vision deficiencies; grey is "no answer".
 */
export const VERDICT_COLORS = { holds: '#0072B2', fails: '#D55E00', inconclusive: '#767676' } as const;

export const DASHES: readonly number[][] = [[], [6, 3], [2, 2], [8, 3, 2, 3], [12, 4]];

const hash = (s: string) => [...s].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);

/** The colour of a stack: fixed for the common ones, a stable pick from the palette for the rest. */
export function stackColor(stack: string): string {
  const i = (STACK_ORDER as readonly string[]).indexOf(stack.toLowerCase());
  return PALETTE[i >= 0 ? i : hash(stack.toLowerCase()) % PALETTE.length] as string;
}

/**
 * Styles for a run's flows in spec order: the stack's colour, and a dash per repeat of a stack
 * (the second cubic flow dashed), so two flows never look alike.
 */
export function flowStyles(flows: readonly { name: string; stack: string }[]): Map<string, SeriesStyle> {
  const seen = new Map<string, number>();
  const out = new Map<string, SeriesStyle>();
  for (const f of flows) {
    const n = seen.get(f.stack) ?? 0;
    seen.set(f.stack, n + 1);
    out.set(f.name, { color: stackColor(f.stack), dash: DASHES[n % DASHES.length] as number[] });
  }
  return out;
}

/** In a comparison: a flow's stack colour, dashed by which run it came from. */
export function runFlowStyle(stack: string, runIndex: number): SeriesStyle {
  return { color: stackColor(stack), dash: DASHES[runIndex % DASHES.length] as number[] };
}

/** By position when there is no stack (other series): the palette in order, dashed past its end. */
export function indexStyle(i: number): SeriesStyle {
  return {
    color: PALETTE[i % PALETTE.length] as string,
    dash: DASHES[Math.floor(i / PALETTE.length) % DASHES.length] as number[],
  };
}
