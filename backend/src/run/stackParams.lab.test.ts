// Issue 16 in the real lab: a spec's stackParams are in force while its flows run (read back from
// sysfs before and after the traffic) and the module's defaults are back once the run is over, so
// the next run on the same lab does not inherit them. CUBIC's C, read once when the kernel boots,
// reaches it on the lab kernel's command line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectLab, readLab } from '@lfnlab/lab-images';
import { beforeAll, describe, expect, it } from 'vitest';
import { bootTestLab, runSpec, TEST_LAB } from '../../test/support/lab.js';

beforeAll(async () => {
  await bootTestLab();
});

async function readSysfs(files: string[]): Promise<string[]> {
  const ch = await connectLab(TEST_LAB, { timeoutMs: 10_000 });
  try {
    const res = await ch.call<{ ok: boolean; results: { code: number; stdout: string }[] }>('exec', {
      steps: files.map((f) => ({ argv: ['cat', f] })),
      stopOnError: true,
    });
    expect(res.ok).toBe(true);
    return res.results.map((r) => r.stdout.trim());
  } finally {
    ch.close();
  }
}

describe('stack parameters', () => {
  it('are in force during the run and restored after it', async () => {
    // A boolean switch too: the kernel shows it as Y/N and the record reads it back as 1/0.
    const files = [
      '/sys/module/tcp_fast/parameters/alpha',
      '/sys/module/tcp_vegas/parameters/alpha',
      '/sys/module/tcp_hstcplp/parameters/lp_enable',
    ];
    const defaults = ['100', '2', 'Y'];
    expect(await readSysfs(files)).toEqual(defaults);
    const r = await runSpec({
      name: 'stack-params',
      duration: '6s',
      paths: { main: { rtt: '40ms', rate: '20Mbit' } },
      stackParams: { fast: { alpha: 16 }, vegas: { alpha: 1 }, hstcplp: { lp_enable: 0 } },
      flows: [{ stack: 'fast' }],
    });
    expect(r.summary.status).toBe('completed');
    // Read back after setup (before the first flow) and after the last flow (before teardown).
    for (const when of ['before', 'after'])
      expect(r.read(`stack-params-${when}.json`), when).toEqual({
        fast: { alpha: 16 },
        vegas: { alpha: 1 },
        hstcplp: { lp_enable: 0 },
      });
    expect(await readSysfs(files)).toEqual(defaults);
  });

  it('a load-time one boots the lab kernel with it, and the next run that does not ask gets the default back', async () => {
    const bicScale = '/sys/module/tcp_cubic/parameters/bic_scale';
    const spec = {
      name: 'cubic-c',
      duration: '4s',
      paths: { main: { rtt: '40ms', rate: '20Mbit' } },
      flows: [{ stack: 'cubic' }],
    };
    const scaled = await runSpec({ ...spec, stackParams: { cubic: { bic_scale: 7 } } });
    expect(scaled.summary.status).toBe('completed');
    // The file is read-only (0444): 7 there is the value the kernel took at boot, not a write.
    for (const when of ['before', 'after'])
      expect(scaled.read(`stack-params-${when}.json`), when).toEqual({ cubic: { bic_scale: 7 } });
    expect(scaled.log.join('\n')).toMatch(
      /booted its kernel with no module parameters; tcp_cubic.bic_scale=7/,
    );
    const argv = readLab(TEST_LAB)?.argv ?? [];
    expect(argv[argv.indexOf('-append') + 1]).toMatch(/ tcp_cubic\.bic_scale=7$/);
    expect(readFileSync(join(scaled.dir, 'plan.sh'), 'utf8')).toContain(
      '# the lab kernel boots with: tcp_cubic.bic_scale=7',
    );
    expect(await readSysfs([bicScale])).toEqual(['7']);

    const plain = await runSpec(spec);
    expect(plain.summary.status).toBe('completed');
    expect(plain.log.join('\n')).toMatch(/booted its kernel with tcp_cubic.bic_scale=7; none is asked for/);
    expect(await readSysfs([bicScale])).toEqual(['41']);
  });
});
