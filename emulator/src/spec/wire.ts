// The lab as a bump in the wire: its router bridges two network ports and shapes the path between
// the hosts behind them (the device or stack under test). The rules here are the ones a wire adds
// to a spec; each names its field and what a wire allows.
import { z } from 'zod';
import { strict } from './fields.js';

const port = z
  .string({ error: 'must be a network port of the lab, e.g. eth0' })
  .regex(/^[a-zA-Z][a-zA-Z0-9_.-]{0,14}$/, {
    error: 'must be a network port of the lab: a letter, then up to 14 letters, digits, _ . -',
  });

export const WireSchema = strict({
  /**
   * Who the external hosts are. netns: network namespaces on the machine that runs the lab, joined
   * to the wire ports through taps; their kernel's stacks carry the flows, and our agent on that
   * machine runs their iperf3 and samplers, so the flows are measured from both sides.
   */
  hosts: z.enum(['netns'], { error: 'must be netns (namespaces on the lab host)' }).default('netns'),
  /** The lab's two ports: the sender's side (a) and the receiver's (b). qemu's wire NICs are eth0, eth1. */
  ports: strict({ a: port.default('eth0'), b: port.default('eth1') })
    .refine((p) => p.a !== p.b, { error: 'a and b must be two different ports', path: ['b'] })
    .prefault({}),
}).optional();

export type Wire = NonNullable<z.output<typeof WireSchema>>;

const DILATED =
  'a bump in the wire needs a realtime clock: the external hosts live in wall time, and a dilated lab would stretch every delay they see';

/** The clock a wire's lab runs on, whatever was asked: realtime (auto too); dilated is refused. */
export function wireClock(asked: 'auto' | 'realtime' | 'dilated'): 'realtime' {
  if (asked === 'dilated') throw new RangeError(DILATED);
  return 'realtime';
}

/** The fields of a spec a wire constrains, as the schema's output has them. */
interface WireSpecView {
  wire?: Wire | undefined;
  clock: string;
  paths: Record<string, { cross: unknown[] }>;
  stackParams?: Record<string, unknown> | undefined;
  flows: { transport: string; rtt?: number | undefined }[];
}

/** What a wire rules out, each as (field path, message). */
export function wireProblems(spec: WireSpecView): { path: (string | number)[]; message: string }[] {
  if (!spec.wire) return [];
  const out: { path: (string | number)[]; message: string }[] = [];
  if (spec.clock === 'dilated')
    out.push({ path: ['clock'], message: `must be realtime or auto with a wire: ${DILATED.split(': ')[1]}` });
  const names = Object.keys(spec.paths);
  if (names.length !== 1)
    out.push({
      path: ['paths'],
      message: `must define exactly 1 path with a wire (its two ports); got ${names.length}`,
    });
  for (const [name, p] of Object.entries(spec.paths))
    if (p.cross.length)
      out.push({
        path: ['paths', name, 'cross'],
        message:
          'must be empty with a wire: the lab has no hosts of its own; send cross traffic from the external hosts',
      });
  if (spec.stackParams && Object.keys(spec.stackParams).length)
    out.push({
      path: ['stackParams'],
      message:
        "must be empty with a wire: the flows' stacks run in the external hosts, not in the lab kernel",
    });
  spec.flows.forEach((f, i) => {
    if (f.transport !== 'tcp')
      out.push({
        path: ['flows', i, 'transport'],
        message: 'must be tcp with a wire (the external hosts run iperf3)',
      });
    if (f.rtt !== undefined)
      out.push({
        path: ['flows', i, 'rtt'],
        message:
          "must be left out with a wire: every flow crosses the same two ports and takes the path's RTT",
      });
  });
  return out;
}
