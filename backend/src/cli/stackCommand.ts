// lfnlab stack add | list | remove: a vendor's own congestion-control module in the lab. The
// registry (kernels/src/stackRegistry.ts) keeps a copy of its sources in the data dir; the next
// image build compiles it against the lab kernel's headers and loads it at boot; the spec schema
// accepts its name once registerAddedStacks has run (every CLI command does, at start).

import { registerStacks, STACK_FAMILIES, STACKS, type StackFamily } from '@lfnlab/emulator';
import {
  type AddedFamily,
  type AddedStackEntry,
  addStack,
  type KernelSelection,
  listAddedStacks,
  readKernelOverride,
  readManifest,
  removeStack,
  StackSourceError,
  stackRegistryDir,
  vendorSelection,
} from '@lfnlab/kernels';
import { addedStackCacheDir, buildAddedStack, STACKS_SRC, stacksSourceHash } from '@lfnlab/lab-images';
import { type Command, table, UsageError } from './args.js';

/**
 * Make the registry's stacks selectable in this process (CLI, service, selftest). A stack the
 * registry holds but that cannot be registered (a later lfnlab built in a stack of that name) is
 * left out with a warning rather than stopping every command.
 */
export function registerAddedStacks(
  warn: (line: string) => void = (l) => console.error(l),
): AddedStackEntry[] {
  let entries: AddedStackEntry[];
  try {
    entries = listAddedStacks();
  } catch (err) {
    warn(
      `lfnlab: the stack registry in ${stackRegistryDir()} is unreadable, added stacks are off: ${(err as Error).message}`,
    );
    return [];
  }
  const ok: AddedStackEntry[] = [];
  for (const e of entries) {
    try {
      registerStacks([...ok, e]);
      ok.push(e);
    } catch (err) {
      warn(
        `lfnlab: added stack ${e.name} is left out: ${(err as Error).message}; 'lfnlab stack remove ${e.name}'`,
      );
    }
  }
  registerStacks(ok);
  return ok;
}

const reserved = () => ({
  names: STACKS.map((s) => s.name),
  modules: STACKS.flatMap((s) => (s.module ? [s.module] : [])),
});

/**
 * The kernel the next image build uses, for building ahead of it: the vendor kernel when one is in
 * use (lfnlab kernel use), else the pin. (A pin that has left Debian's index is found only by the
 * image build; the module is then built again there, for the ABI it falls back to.)
 */
function labKernel(): KernelSelection {
  const v = readKernelOverride();
  if (v) return vendorSelection(v);
  const m = readManifest();
  return {
    abi: m.abi,
    package: m.image.package,
    version: m.image.version,
    sha256: m.image.sha256,
    debPath: '',
    pinned: true,
  };
}

const short = (h: string) => h.slice(0, 12);

/** What a spec may set for an added stack (stackParams), e.g. `delta_l_ms=1000 (uint)`. */
export function paramsLine(s: Pick<AddedStackEntry, 'params'>): string {
  return s.params.length
    ? `${s.params.map((p) => `${p.name}=${p.default} (${p.type})`).join(', ')}; a run sets them with stackParams`
    : 'none a run can set (module_param with owner write and a literal default)';
}

export function stackRows(added: readonly AddedStackEntry[]): string[][] {
  const own = stacksSourceHash();
  return [
    ...STACKS.map((s) => [
      s.name,
      s.module ?? '(built in)',
      s.family,
      s.origin === 'out-of-tree' ? short(own) : '-',
      s.origin === 'mainline' ? 'mainline kernel' : `out-of-tree: ${STACKS_SRC}`,
    ]),
    ...added.map((s) => [s.name, s.module, s.family, short(s.sourceHash), `added from ${s.from}`]),
  ];
}

const USAGE = `usage: lfnlab stack add DIR [--name NAME] [--family loss|delay|hybrid|model] [--no-build]
       lfnlab stack list [--json]
       lfnlab stack remove NAME

Bring your own TCP congestion-control module into the lab.

  add DIR    DIR is the module's source: a Kbuild (or Makefile) with one obj-m and C sources
             registering a tcp_congestion_ops whose .name is the stack's name. It is checked,
             copied into the registry (${stackRegistryDir()}) and built against the lab
             kernel's headers; the next image build carries it and loads it at boot, and
             specs, the service and 'lfnlab selftest --stacks NAME' accept its name.
             Adding the same sources again changes nothing; changed sources replace them.
    --name NAME      the .name to take when the source registers several (must match the source)
    --family F       how selftest judges it (default loss; delay also checks it keeps the queue low)
    --no-build       copy and check only; the next image build compiles it
             Its module_params that the owner may write (0644) and that start from a
             literal whole number are settable per run: stackParams: { NAME: { param: N } }.
  list       every stack: name, module, family, source hash, where it comes from, and
             an added stack's settable parameters
  remove NAME  take an added stack out of the registry (the next image leaves it out)`;

function parseFamily(v: unknown): AddedFamily | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string' && (STACK_FAMILIES as readonly string[]).includes(v)) return v as StackFamily;
  throw new UsageError(`--family must be one of ${STACK_FAMILIES.join(', ')}`);
}

export const stackCommand: Command = {
  name: 'stack',
  summary: 'add, list or remove your own congestion-control module (bring your own stack)',
  usage: USAGE,
  options: {
    name: { type: 'string' },
    family: { type: 'string' },
    'no-build': { type: 'boolean' },
    json: { type: 'boolean' },
  },
  async run(values, positionals) {
    const [verb, arg, ...extra] = positionals;
    if (extra.length) throw new UsageError(`unexpected ${extra.join(' ')}\n\n${USAGE}`);
    if (verb === 'list') {
      const added = listAddedStacks();
      if (values.json) {
        console.log(
          JSON.stringify(
            [
              ...STACKS.map((s) => ({
                ...s,
                sourceHash: s.origin === 'out-of-tree' ? stacksSourceHash() : null,
                from: s.origin === 'out-of-tree' ? STACKS_SRC : null,
              })),
              ...added.map(({ srcDir: _src, ...s }) => ({ ...s, origin: 'added' })),
            ],
            null,
            2,
          ),
        );
      } else {
        console.log(table(['name', 'module', 'family', 'source hash', 'from'], stackRows(added)));
        for (const s of added) console.log(`\n${s.name} parameters: ${paramsLine(s)}`);
        if (!added.length) console.log("\nno added stacks yet: 'lfnlab stack add DIR'");
      }
      return 0;
    }
    if (verb === 'remove') {
      if (!arg) throw new UsageError(`stack remove needs a NAME\n\n${USAGE}`);
      if (STACKS.some((s) => s.name === arg))
        throw new UsageError(`${arg} is one of the lab's own stacks; only added ones can be removed`);
      if (!removeStack(arg)) {
        const names = listAddedStacks().map((s) => s.name);
        console.error(`lfnlab stack: no added stack ${arg}; added: ${names.join(', ') || 'none'}`);
        return 1;
      }
      registerAddedStacks();
      console.log(`removed ${arg} from ${stackRegistryDir()}; the next image build leaves it out`);
      return 0;
    }
    if (verb !== 'add' || !arg) throw new UsageError(USAGE);
    let result: ReturnType<typeof addStack>;
    try {
      result = addStack(arg, {
        name: typeof values.name === 'string' ? values.name : undefined,
        family: parseFamily(values.family),
        reserved: reserved(),
      });
    } catch (err) {
      if (!(err instanceof StackSourceError)) throw err;
      console.error(`lfnlab stack add: ${arg}: ${err.message}`);
      return 2;
    }
    registerAddedStacks();
    const s = result.stack;
    const what =
      result.change === 'added'
        ? 'added'
        : result.change === 'updated'
          ? `updated (sources changed: ${short(result.previousHash ?? '')} → ${short(s.sourceHash)})`
          : 'already added with these sources: nothing changed';
    console.log(`stack ${s.name}: ${what}`);
    console.log(`  module   ${s.module}.ko (family ${s.family})`);
    console.log(`  sources  ${s.from} → ${s.srcDir}`);
    console.log(`  hash     ${s.sourceHash}`);
    console.log(`  params   ${paramsLine(s)}`);
    if (values['no-build'] !== true) {
      const sel = labKernel();
      try {
        const built = await buildAddedStack(sel, s, (l) => console.log(`  ${l}`));
        console.log(`  built    ${built.ko} for ${sel.abi} (sha256 ${short(built.record.sha256)})`);
      } catch (err) {
        console.error(
          `lfnlab stack add: ${s.name} is in the registry but does not build: ${(err as Error).message}`,
        );
        console.error(`  fix the source and add it again, or 'lfnlab stack remove ${s.name}'`);
        return 1;
      }
    } else {
      console.log(`  build    on the next image build (${addedStackCacheDir(s, labKernel().abi)})`);
    }
    console.log(
      `  next     the next run (or 'lfnlab image build') puts it in the image and loads it at boot;\n` +
        `           'lfnlab selftest --stacks ${s.name}' checks it on the lab. A running 'lfnlab serve'\n` +
        '           offers it after a restart.',
    );
    return 0;
  },
};
