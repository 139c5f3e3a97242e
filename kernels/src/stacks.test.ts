import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// kernels/stacks: three out-of-tree TCP congestion-control modules whose
// arithmetic lives in headers shared with C harnesses (see its README.md).
const STACKS = fileURLToPath(new URL('../stacks', import.meta.url));
const KVER = '6.1.0-56-amd64';
const KDIR = `/lib/modules/${KVER}/build`;
const MODULES = ['tcp_fast', 'tcp_hstcplp', 'tcp_grid'] as const;
// modinfo lives in /usr/sbin, which a non-root PATH may lack
const MODINFO = existsSync('/usr/sbin/modinfo') ? '/usr/sbin/modinfo' : 'modinfo';

function run(argv: readonly string[]): { status: number | null; out: string } {
  const [cmd, ...args] = argv;
  if (!cmd) throw new Error('empty argv');
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

describe('kernels/stacks', () => {
  it('C harnesses pass (make test)', () => {
    const r = run(['make', '-C', STACKS, 'test']);
    expect(r.status, r.out).toBe(0);
    const summaries = [...r.out.matchAll(/^(\d+) passed, (\d+) failed$/gm)].map((m) => ({
      passed: Number(m[1]),
      failed: Number(m[2]),
    }));
    // one line per harness plus the overall total, which comes last
    expect(summaries.length, r.out).toBeGreaterThanOrEqual(4);
    for (const s of summaries) expect(s.failed, r.out).toBe(0);
    const total = summaries.at(-1);
    expect(total?.passed, r.out).toBeGreaterThan(0);
    expect(r.out).toMatch(new RegExp(`^${total?.passed} passed, 0 failed$`, 'm'));
  }, 120_000);

  it(`modules build for ${KVER} with GPL licence and matching vermagic`, (ctx) => {
    if (!existsSync(KDIR)) {
      ctx.skip(`no kernel build tree at ${KDIR}: apt-get install linux-headers-${KVER} to run this test`);
    }
    const work = mkdtempSync(join(tmpdir(), 'lfnlab-stacks-'));
    try {
      const out = join(work, 'ko');
      const r = run([
        'make',
        '-C',
        STACKS,
        'modules',
        `KDIR=${KDIR}`,
        `BUILD=${join(work, 'build')}`,
        `OUT=${out}`,
      ]);
      expect(r.status, r.out).toBe(0);
      for (const m of MODULES) {
        const ko = join(out, `${m}.ko`);
        expect(existsSync(ko), `${ko} missing\n${r.out}`).toBe(true);
        const license = run([MODINFO, '-F', 'license', ko]);
        expect(license.status, license.out).toBe(0);
        expect(license.out.trim()).toBe('GPL');
        const vermagic = run([MODINFO, '-F', 'vermagic', ko]);
        expect(vermagic.status, vermagic.out).toBe(0);
        expect(vermagic.out.startsWith(`${KVER} `)).toBe(true);
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 300_000);

  it('modules build refuses a kernel tree of another version', () => {
    const fake = mkdtempSync(join(tmpdir(), 'lfnlab-kdir-'));
    try {
      // a KDIR that exists but has no generated utsrelease.h
      spawnSync('touch', [join(fake, 'Makefile')]);
      const r = run(['make', '-C', STACKS, 'modules', `KDIR=${fake}`, `BUILD=${join(fake, 'build')}`]);
      expect(r.status).not.toBe(0);
      expect(r.out).toContain(`expected: ${KVER}`);
      expect(r.out).toContain('found:');
    } finally {
      rmSync(fake, { recursive: true, force: true });
    }
  });
});
