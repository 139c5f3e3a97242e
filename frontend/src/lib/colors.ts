// The app's chart colours come from the palette the HTML report uses (backend/src/report/palette.ts):
// a colour per stack, dashes for repeats of a stack within a run and for runs in a comparison.
import {
  flowStyles,
  indexStyle,
  NEUTRAL,
  runFlowStyle,
  type SeriesStyle,
  stackColor,
} from '@lfnlab/report/palette';

export { flowStyles, indexStyle, NEUTRAL, runFlowStyle, type SeriesStyle, stackColor };

/** By position, for lists without stacks. */
export const colorOf = (i: number): string => indexStyle(i).color;

/** A style lookup for a run's series: flows by their stack, probes and queues in neutral greys. */
export function runSeriesStyles(flows: readonly { name: string; stack: string }[]) {
  const byFlow = flowStyles(flows);
  return (series: string): SeriesStyle => {
    const f = byFlow.get(series);
    if (f) return f;
    if (series.startsWith('probe')) return { color: NEUTRAL.probe, dash: [4, 2] };
    // A flow with `count` is sampled as "<name>-<k>": its spec entry's stack.
    const parent = flows.find((x) => series.startsWith(`${x.name}-`));
    if (parent) return { color: stackColor(parent.stack), dash: [] };
    // Queue series are "<path> <direction>": forward solid black, reverse grey dashed.
    return series.endsWith('reverse')
      ? { color: NEUTRAL.probe, dash: [6, 3] }
      : { color: NEUTRAL.queue, dash: [] };
  };
}
