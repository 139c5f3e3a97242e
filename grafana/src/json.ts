// JSON text laid out the way the repository's formatter (biome, line width 110) lays it out, so a
// generated dashboard is byte-for-byte what `biome format` keeps: objects always one key a line,
// arrays of plain values on one line when they fit, else one value a line.
const LINE_WIDTH = 110;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isPlain = (v: unknown) => v === null || typeof v !== 'object';

function format(value: Json, indent: string, prefixLength: number): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    if (value.every(isPlain)) {
      const flat = `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
      // +1 for a trailing comma that may follow on the same line
      if (prefixLength + flat.length + 1 <= LINE_WIDTH) return flat;
    }
    return `[\n${value.map((v) => `${inner}${format(v, inner, inner.length)}`).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const lines = entries.map(([k, v]) => {
    const key = `${JSON.stringify(k)}: `;
    return `${inner}${key}${format(v, inner, inner.length + key.length)}`;
  });
  return `{\n${lines.join(',\n')}\n${indent}}`;
}

/** Stable, formatter-proof JSON text with a final newline. */
export function formatJson(value: unknown): string {
  return `${format(JSON.parse(JSON.stringify(value)) as Json, '', 0)}\n`;
}
