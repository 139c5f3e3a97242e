import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseSpecText, SpecError, specJsonSchema } from '@lfnlab/emulator';
import { ensureImage } from '@lfnlab/lab-images';
import { METRICS } from '@lfnlab/metrics';
import { type Command, UsageError } from './args.js';

export const validateCommand: Command = {
  name: 'validate',
  summary: 'check spec files against the schema, naming every problem',
  usage: `usage: lfnlab validate SPEC.yaml [SPEC.yaml ...]

Exit 0 when every file is valid; 2 with one line per problem (field: what is allowed) otherwise.`,
  options: {},
  async run(_values, positionals) {
    if (positionals.length === 0) throw new UsageError(`a spec file is required\n\n${this.usage}`);
    let bad = 0;
    for (const f of positionals) {
      try {
        const spec = parseSpecText(readFileSync(f, 'utf8'), f);
        console.log(
          `${f}: ok (${spec.flows.length} flows, ${Object.keys(spec.paths).length} paths, ${spec.duration / 1000} s)`,
        );
      } catch (err) {
        if (!(err instanceof SpecError)) throw err;
        console.error(err.message);
        bad += 1;
      }
    }
    return bad ? 2 : 0;
  },
};

export const schemaCommand: Command = {
  name: 'schema',
  summary: 'print the spec JSON Schema (or write it with --out)',
  usage: `usage: lfnlab schema [--out FILE]

The JSON Schema of spec files, generated from the one zod schema the CLI, API and UI share.`,
  options: { out: { type: 'string' } },
  async run(values) {
    const text = `${JSON.stringify(specJsonSchema(), null, 2)}\n`;
    if (typeof values.out === 'string') {
      mkdirSync(dirname(values.out), { recursive: true });
      writeFileSync(values.out, text);
    } else process.stdout.write(text);
    return 0;
  },
};

export const imageCommand: Command = {
  name: 'image',
  summary: 'build the lab image (cached by the hash of its inputs)',
  usage: `usage: lfnlab image build [--force] [--json]

Fetches the pinned kernel, builds the agent, stages Debian's tools and the kernel
modules the lab uses into an initramfs. A rebuild with nothing changed is a lookup.

  --force   rebuild even when the cache has this image
  --json    print the image manifest`,
  options: { force: { type: 'boolean' }, json: { type: 'boolean' } },
  async run(values, positionals) {
    if (positionals[0] !== 'build') throw new UsageError(this.usage);
    const img = await ensureImage({ force: values.force === true });
    if (values.json) console.log(JSON.stringify(img.manifest, null, 2));
    else console.log(`image ${img.id} in ${img.dir}`);
    return 0;
  },
};

export const metricsCommand: Command = {
  name: 'metrics',
  summary: 'list every metric summary.json can hold: id, unit, definition, source',
  usage: `usage: lfnlab metrics [--json]

The metric registry: summary.json stores { id, value, unit } under these ids.`,
  options: { json: { type: 'boolean' } },
  async run(values) {
    const defs = Object.values(METRICS);
    if (values.json) {
      console.log(JSON.stringify(defs, null, 2));
      return 0;
    }
    for (const d of defs) {
      console.log(
        `${d.id.padEnd(26)} ${d.unit.padEnd(8)} ${d.title}${'source' in d && d.source ? ` (${d.source})` : ''}\n${' '.repeat(36)}${d.definition}`,
      );
    }
    return 0;
  },
};
