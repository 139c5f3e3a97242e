// TCP congestion-control stacks the lab kernel offers. The name is what TCP_CONGESTION takes and
// what `ss -ti` prints; the module is what the image loads at boot (built-ins have none).
//
// The built-in list is fixed here; stacks a user adds (`lfnlab stack add`) join it at run time
// through registerStacks, so the one spec schema accepts them in the CLI, the service and the UI
// alike. Everything that asks "which stacks are there" goes through knownStacks().

export type StackFamily = 'loss' | 'delay' | 'hybrid' | 'model';
export const STACK_FAMILIES: readonly StackFamily[] = ['loss', 'delay', 'hybrid', 'model'];

export interface StackInfo {
  name: string;
  module: string | null;
  origin: 'mainline' | 'out-of-tree' | 'added';
  family: StackFamily;
  /** Added stacks: sha256 of the module's sources as registered. */
  sourceHash?: string;
  /** Added stacks: the writable module parameters the sources declare (stackParamsOf reads them). */
  params?: readonly DeclaredParam[];
}

/**
 * A module parameter as an added stack's C source declares it (`module_param(name, type, 0644)`
 * with a literal default): read by the registry when the stack is added (kernels' moduleParams).
 */
export interface DeclaredParam {
  name: string;
  /** module_param's type: int, uint, long, ulong, short, ushort, byte or bool. */
  type: string;
  default: number;
  description: string | null;
}

export const STACKS: readonly StackInfo[] = [
  { name: 'reno', module: null, origin: 'mainline', family: 'loss' },
  { name: 'cubic', module: null, origin: 'mainline', family: 'loss' },
  { name: 'bic', module: 'tcp_bic', origin: 'mainline', family: 'loss' },
  { name: 'htcp', module: 'tcp_htcp', origin: 'mainline', family: 'loss' },
  { name: 'highspeed', module: 'tcp_highspeed', origin: 'mainline', family: 'loss' },
  { name: 'scalable', module: 'tcp_scalable', origin: 'mainline', family: 'loss' },
  { name: 'vegas', module: 'tcp_vegas', origin: 'mainline', family: 'delay' },
  { name: 'lp', module: 'tcp_lp', origin: 'mainline', family: 'delay' },
  { name: 'westwood', module: 'tcp_westwood', origin: 'mainline', family: 'loss' },
  { name: 'hybla', module: 'tcp_hybla', origin: 'mainline', family: 'loss' },
  { name: 'illinois', module: 'tcp_illinois', origin: 'mainline', family: 'hybrid' },
  { name: 'yeah', module: 'tcp_yeah', origin: 'mainline', family: 'hybrid' },
  { name: 'veno', module: 'tcp_veno', origin: 'mainline', family: 'hybrid' },
  { name: 'nv', module: 'tcp_nv', origin: 'mainline', family: 'delay' },
  { name: 'cdg', module: 'tcp_cdg', origin: 'mainline', family: 'delay' },
  { name: 'dctcp', module: 'tcp_dctcp', origin: 'mainline', family: 'loss' },
  { name: 'bbr', module: 'tcp_bbr', origin: 'mainline', family: 'model' },
  // kernels/stacks: the seed papers' stacks that never reached mainline.
  { name: 'fast', module: 'tcp_fast', origin: 'out-of-tree', family: 'delay' },
  { name: 'hstcplp', module: 'tcp_hstcplp', origin: 'out-of-tree', family: 'hybrid' },
  { name: 'grid', module: 'tcp_grid', origin: 'out-of-tree', family: 'loss' },
];

export const MAINLINE_STACKS = STACKS.filter((s) => s.origin === 'mainline').map((s) => s.name);

/** The built-in names only; what a spec may name is knownStackNames(). */
export const STACK_NAMES = STACKS.map((s) => s.name) as [string, ...string[]];

/** What TCP_CONGESTION accepts: the kernel's TCP_CA_NAME_MAX is 16 bytes with the NUL. */
export const STACK_NAME_PATTERN = /^[a-z0-9_]{1,15}$/;

let added: StackInfo[] = [];

/**
 * Make user-added stacks selectable (replaces any earlier registration, so it can follow the
 * registry as it changes). A name that is built in, malformed, or given twice is refused: the
 * registry checked it when the stack was added, so this is a bug or a hand-edited registry.
 */
export function registerStacks(stacks: readonly Omit<StackInfo, 'origin'>[]): void {
  const seen = new Set(STACK_NAMES);
  const next: StackInfo[] = [];
  for (const s of stacks) {
    if (!STACK_NAME_PATTERN.test(s.name))
      throw new Error(`stack name ${JSON.stringify(s.name)} must be 1-15 of a-z, 0-9, _`);
    if (seen.has(s.name))
      throw new Error(
        `stack ${s.name} is ${STACK_NAMES.includes(s.name) ? 'built in' : 'registered twice'}; an added stack needs a name of its own`,
      );
    seen.add(s.name);
    next.push({ ...s, origin: 'added' });
  }
  added = next;
}

/**
 * The web UI knows the service's stacks by name and, for added ones, their settable parameters (GET
 * /api/stacks, and the names a lab reports): names beyond the built-in ones become selectable with
 * what little is known of them, in the order given (the service's, so messages list them alike),
 * and stacks registered with full details keep them.
 */
export function registerLabStacks(
  names: readonly string[],
  params: Readonly<Record<string, readonly DeclaredParam[]>> = {},
): void {
  const builtIn = new Set(STACK_NAMES);
  const have = new Map(added.map((s) => [s.name, s]));
  // A stack with parameters needs its module's name: sysfs files are per module. The browser only
  // validates, so a stand-in is enough; the lab host plans with the registry's real one.
  const named = [...new Set(names)]
    .filter((n) => !builtIn.has(n) && STACK_NAME_PATTERN.test(n))
    .map((name) => {
      // Kept: a registration from the registry itself (it has the sources' hash), or one that already
      // says all this call knows. A name first seen without parameters takes them when they come.
      const prev = have.get(name);
      if (prev && (prev.sourceHash || !params[name]?.length || prev.params === params[name])) return prev;
      return {
        name,
        module: params[name]?.length ? `tcp_${name}` : null,
        family: 'loss' as const,
        ...(params[name]?.length ? { params: params[name] } : {}),
      };
    });
  const next = [...named, ...added.filter((s) => !named.some((n) => n.name === s.name))];
  if (next.some((s, k) => s !== added[k]) || next.length !== added.length) registerStacks(next);
}

/** Built-in stacks, then the added ones in the order they were registered. */
export function knownStacks(): readonly StackInfo[] {
  return added.length ? [...STACKS, ...added] : STACKS;
}

export function knownStackNames(): string[] {
  return knownStacks().map((s) => s.name);
}

export function addedStacks(): readonly StackInfo[] {
  return added;
}

export const stackInfo = (name: string): StackInfo | undefined => knownStacks().find((s) => s.name === name);

export const isKnownStack = (name: string): boolean => stackInfo(name) !== undefined;

/** Modules the image loads at boot: every known stack that is not built into the kernel. */
export function stackModules(): string[] {
  return knownStacks().flatMap((s) => (s.module ? [s.module] : []));
}
