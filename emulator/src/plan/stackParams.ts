// Stack module parameters (spec.stackParams) as plan steps: written to sysfs before any flow
// starts, read back into the record, and put back to the module's default in teardown, since the
// lab kernel's parameters outlive the run. Writing uses `tee FILE` with the value on stdin: an
// argv, no shell. A load-time parameter cannot be written: the lab kernel boots with it on its
// command line (labKernelArgs), and setup only checks that the value in force is the spec's.
import {
  kernelParamArg,
  paramStacks,
  type Spec,
  stackParam,
  stackParamsOf,
  sysfsParamPath,
} from '../spec/index.js';
import type { Cmd, Section } from './types.js';

export interface StackParamSetting {
  stack: string;
  module: string;
  name: string;
  value: number;
  default: number;
  file: string;
  /** Set when the lab kernel boots (a load-time parameter), not written by the run. */
  atBoot: boolean;
}

/** Every parameter the spec sets, in the spec's order. */
export function stackParamSettings(spec: Pick<Spec, 'stackParams'>): StackParamSetting[] {
  return Object.entries(spec.stackParams ?? {}).flatMap(([stack, params]) =>
    Object.entries(params).flatMap(([name, value]) => {
      const module = stackParamsOf(stack)?.module;
      const p = stackParam(stack, name);
      return module && p
        ? [
            {
              stack,
              module,
              name,
              value,
              default: p.default,
              file: sysfsParamPath(module, name),
              atBoot: p.boot === true,
            },
          ]
        : [];
    }),
  );
}

const write = (file: string, value: number): Omit<Cmd, 'comment'> => ({
  argv: ['tee', file],
  stdin: `${value}\n`,
});

/**
 * What the lab kernel must boot with for this spec, sorted: `tcp_cubic.bic_scale=7`. A lab booted
 * with other arguments (or none) is restarted, and one booted with these serves only such specs.
 */
export function labKernelArgs(spec: Pick<Spec, 'stackParams'>): string[] {
  return stackParamSettings(spec)
    .filter((p) => p.atBoot)
    .map((p) => kernelParamArg(p.module, p.name, p.value))
    .sort();
}

/** The setup section, or null when the spec sets nothing. */
export function stackParamSetup(spec: Pick<Spec, 'stackParams'>): Section | null {
  const s = stackParamSettings(spec);
  if (!s.length) return null;
  return {
    title: 'stack parameters',
    cmds: s.map((p) =>
      p.atBoot
        ? {
            // The value the kernel took at boot, or setup stops here: a lab that came up without it
            // would run the stack with its default and record the spec's value as if in force.
            comment: `${p.stack} ${p.name} = ${p.value} (default ${p.default}), set when the lab kernel booted (${kernelParamArg(p.module, p.name, p.value)}): checked`,
            argv: ['grep', '-qx', String(p.value), p.file],
          }
        : {
            comment: `${p.stack} ${p.name} = ${p.value} (default ${p.default})`,
            ...write(p.file, p.value),
          },
    ),
  };
}

/** Teardown steps: every parameter the run wrote back to the module's default, best effort. */
export function stackParamRestore(spec: Pick<Spec, 'stackParams'>): Cmd[] {
  return stackParamSettings(spec)
    .filter((p) => !p.atBoot)
    .map((p) => ({
      comment: `${p.stack} ${p.name} back to its default`,
      ...write(p.file, p.default),
      allowFail: true,
    }));
}

/** Snapshot steps that read each set parameter back: the record shows the value in force. */
export function stackParamReadback(spec: Pick<Spec, 'stackParams'>): Section | null {
  const s = stackParamSettings(spec);
  return s.length ? { title: 'stack parameters', cmds: s.map((p) => ({ argv: ['cat', p.file] })) } : null;
}

/** Read-back results (stackParamReadback's, in any order) as { stack: { param: value } }; null where a read failed. */
export function stackParamsInForce(
  results: readonly { argv: string[]; stdout: string; code: number }[],
): Record<string, Record<string, number | null>> {
  const out: Record<string, Record<string, number | null>> = {};
  for (const r of results) {
    const m = /^\/sys\/module\/([\w-]+)\/parameters\/(\w+)$/.exec(r.argv[1] ?? '');
    const stack = m && paramStacks().find((s) => stackParamsOf(s)?.module === m[1]);
    if (!m?.[2] || !stack) continue;
    // A bool parameter (a flag) reads back as Y or N; it was written as 1 or 0.
    const text = r.code === 0 ? r.stdout.trim() : '';
    const v = text === 'Y' ? 1 : text === 'N' ? 0 : text !== '' ? Number(text) : Number.NaN;
    out[stack] ??= {};
    (out[stack] as Record<string, number | null>)[m[2]] = Number.isFinite(v) ? v : null;
  }
  return out;
}
