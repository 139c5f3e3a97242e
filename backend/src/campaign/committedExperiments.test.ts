// The targeted experiments committed beside published presets are campaign files people rerun
// (`lfnlab campaign run presets/results/NAME/experiments/X.yaml`): each must still parse and expand
// under today's schema, and where its kept runs are committed (X-progress/campaign.json) the file
// must still plan exactly those variants, so the explanation's numbers come from the file shown.
// An experiment may run a stack of its own (experiments/NAME/ with a Kbuild, added with `lfnlab
// stack add`): its name and settable parameters are read from that source, as `stack add` reads them.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerStacks } from '@lfnlab/emulator';
import { moduleParamsIn, readStackSource } from '@lfnlab/kernels';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandCampaign, parseCampaignText } from './expand.js';

const resultsDir = join(import.meta.dirname, '..', '..', '..', 'presets', 'results');

const experimentDirs = () =>
  readdirSync(resultsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(resultsDir, e.name, 'experiments'))
    .filter((d) => existsSync(d));

/** The experiments' own stacks: each subdirectory with a Kbuild. */
function experimentStacks() {
  return experimentDirs().flatMap((dir) =>
    readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'Kbuild')))
      .map((e) => {
        const src = readStackSource(join(dir, e.name));
        // With the parameters a run may set, as the registry reads them.
        const params = moduleParamsIn(join(dir, e.name));
        return { name: src.name, module: src.module, family: 'loss' as const, params };
      }),
  );
}

function experimentFiles(): string[] {
  return experimentDirs()
    .flatMap((dir) =>
      readdirSync(dir)
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => join(dir, f)),
    )
    .sort();
}

describe('committed targeted experiments', () => {
  const files = experimentFiles();
  beforeAll(() => registerStacks(experimentStacks()));
  afterAll(() => registerStacks([]));

  it('finds the experiment files', () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
  });

  it.each(files.map((f) => [f.slice(resultsDir.length + 1), f]))('%s parses and expands', (_, file) => {
    const variants = expandCampaign(parseCampaignText(readFileSync(file, 'utf8')));
    expect(variants.length).toBeGreaterThan(0);
    const progress = join(file.replace(/\.yaml$/, '-progress'), 'campaign.json');
    if (!existsSync(progress)) return;
    const planned = JSON.parse(readFileSync(progress, 'utf8')) as { variants: { id: string }[] };
    expect(variants.map((v) => v.id).sort()).toEqual(planned.variants.map((v) => v.id).sort());
  });
});
