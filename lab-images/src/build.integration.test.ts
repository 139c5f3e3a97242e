// The image build with the real kernel cache, cpio and the lab's tools: a campaign on two labs asks
// for the image twice at once, and both must get a whole archive.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureImage } from './build.js';
import { listTree, writeCpio } from './stage.js';

const archived = (file: string) =>
  execFileSync('cpio', ['-t', '--quiet'], { input: readFileSync(file), maxBuffer: 1 << 26 })
    .toString()
    .split('\n')
    .filter(Boolean);

describe('building the lab image', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'lfnlab-cpio-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('settles every cpio archive with the whole tree in it, many at once', async () => {
    const stage = join(scratch, 'stage');
    for (let d = 0; d < 8; d++) {
      mkdirSync(join(stage, `d${d}`), { recursive: true });
      for (let f = 0; f < 20; f++) writeFileSync(join(stage, `d${d}`, `f${f}`), `${d}.${f}\n`.repeat(200));
    }
    const paths = listTree(stage);
    const outs = Array.from({ length: 24 }, (_, i) => join(scratch, `a${i}.cpio`));
    await Promise.all(outs.map((o) => writeCpio(stage, paths, o)));
    for (const o of outs) expect(archived(o)).toEqual(paths);
  });

  it('refuses a tree cpio cannot read, naming cpio', async () => {
    await expect(writeCpio(scratch, ['no-such-file'], join(scratch, 'bad.cpio'))).rejects.toThrow(
      /cpio exited 2: .*no-such-file/,
    );
  });

  it('builds one image at a time in a process, each archive whole, nothing left aside', async () => {
    const lines: string[] = [];
    const building = (who: string) => ensureImage({ force: true, log: (l) => lines.push(`${who} ${l}`) });
    const [a, b] = await Promise.all([building('a'), building('b')]);
    expect(b.id).toBe(a.id);
    const aBuilt = lines.findIndex((l) => l.startsWith('a [image] built'));
    const bBegan = lines.findIndex((l) => l.startsWith('b [image 1/5]'));
    expect(aBuilt).toBeGreaterThanOrEqual(0);
    expect(bBegan).toBeGreaterThan(aBuilt);
    const listing = archived(a.initrd);
    expect(listing).toEqual(
      expect.arrayContaining(['init', 'etc/lfnlab/image-id', 'usr/bin/lfn-pkttiming', 'usr/sbin/modprobe']),
    );
    expect(readdirSync(a.dir).filter((f) => f.startsWith('.'))).toEqual([]);
    expect(readdirSync(dirname(a.dir)).filter((f) => f.startsWith(`.stage-${a.id}-${process.pid}-`))).toEqual(
      [],
    );
  }, 300_000);
});
