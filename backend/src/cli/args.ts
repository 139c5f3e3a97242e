// Sub-commands share one shape: a name, a usage text, options, and a run function that returns
// the exit code. `--help` works on every one of them.
import { type ParseArgsConfig, parseArgs } from 'node:util';

export interface Command {
  name: string;
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  run(values: Record<string, string | boolean | undefined>, positionals: string[]): Promise<number>;
}

export class UsageError extends Error {}

export function parseFor(cmd: Command, argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: { ...cmd.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n\n${cmd.usage}`);
  }
}

/** A fixed-width table with a header rule; numbers right-aligned. */
export function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const numeric = header.map(
    (_, i) =>
      rows.length > 0 && rows.every((r) => /^[-+]?[\d.]+(\s*±\s*[\d.]+)?%?$|^-$/.test(String(r[i] ?? ''))),
  );
  const fmt = (r: string[]) =>
    r.map((c, i) => (numeric[i] ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join('  ');
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(fmt)].join('\n');
}
