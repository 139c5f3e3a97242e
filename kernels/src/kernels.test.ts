import { describe, expect, it } from 'vitest';
import { parseAptShow } from './fetch.js';
import { inventoryFrom } from './inventory.js';
import { readManifest } from './manifest.js';

describe('kernel manifest and fetch', () => {
  it('pins an amd64 6.1 image with a sha256', () => {
    const m = readManifest();
    expect(m.image.package).toBe(`linux-image-${m.abi}`);
    expect(m.image.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(m.abi).toMatch(/^6\.1\.0-\d+-amd64$/);
  });
  it('reads every stanza apt-cache show prints', () => {
    const text =
      'Package: linux-image-6.1.0-56-amd64\nVersion: 6.1.192-2\nSHA256: aa\nFilename: pool/a.deb\n\nPackage: linux-image-6.1.0-56-amd64\nVersion: 6.1.190-1\nSHA256: bb\n';
    expect(parseAptShow(text).map((c) => [c.version, c.sha256])).toEqual([
      ['6.1.192-2', 'aa'],
      ['6.1.190-1', 'bb'],
    ]);
  });
});

describe('kernel inventory', () => {
  it('lists built-in and modular stacks and qdiscs, without tcp_diag', () => {
    const inv = inventoryFrom(
      '6.1.0-56-amd64',
      'CONFIG_HZ=250\nCONFIG_TCP_CONG_ADVANCED=y\nCONFIG_TCP_CONG_CUBIC=y\nCONFIG_TCP_CONG_BIC=m\nCONFIG_NET_SCH_FQ_CODEL=y\n',
      [
        'kernel/net/ipv4/tcp_bic.ko',
        'kernel/net/ipv4/tcp_diag.ko',
        'kernel/net/sched/sch_netem.ko',
        'kernel/net/sched/cls_u32.ko',
      ],
    );
    expect(inv.hz).toBe(250);
    expect(inv.stacks).toEqual([
      { name: 'bic', module: 'tcp_bic' },
      { name: 'cubic', module: null },
      { name: 'reno', module: null },
    ]);
    expect(inv.qdiscs).toEqual([
      { name: 'fq_codel', module: null },
      { name: 'netem', module: 'sch_netem' },
    ]);
  });
});

describe('run', () => {
  it('survives a child that exits without reading its input, and one given none', async () => {
    const { run } = await import('./run.js');
    const big = 'x'.repeat(4 << 20); // larger than a pipe buffer: the write must fail inside Node
    const r = await run(['true'], { input: big });
    expect(r.code).toBe(0);
    expect((await run(['cat'], { input: 'hello' })).stdout).toBe('hello');
    expect((await run(['sh', '-c', 'exit 3'])).code).toBe(3);
  });
});
