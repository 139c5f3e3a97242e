import { describe, expect, it } from 'vitest';
import { grubConfig, isoProblems } from './iso.js';

describe('isoProblems', () => {
  it('accepts a fixed address, and DHCP with the address this host connects to', () => {
    expect(isoProblems({ name: 'pc1', network: { address: '10.77.0.2/24', gateway: '10.77.0.1' } })).toEqual(
      [],
    );
    expect(isoProblems({ name: 'lab-7', network: { address: 'dhcp' }, host: 'lab-7.example' })).toEqual([]);
  });

  it('names each bad option with what it allows', () => {
    const p = isoProblems({
      name: 'PC_1',
      network: { address: '10.0.0.300/24', gateway: 'router', interface: 'a very long port name' },
      port: 70000,
    });
    expect(p).toEqual([
      expect.stringMatching(/^--name: must be a DNS label .* got 'PC_1'$/),
      expect.stringMatching(
        /^--address: must be an IPv4 address with a prefix length 1 to 32 .* got '10.0.0.300\/24'$/,
      ),
      expect.stringMatching(/^--gateway: must be an IPv4 address, got 'router'$/),
      expect.stringMatching(/^--interface: must be a network port name/),
      '--port: must be 1 to 65535, got 70000',
    ]);
    expect(isoProblems({ name: 'pc1', network: { address: 'dhcp' } })).toEqual([
      expect.stringMatching(/^--connect: needed with --dhcp/),
    ]);
    expect(isoProblems({ name: 'pc1', network: { address: '10.0.0.2' } })[0]).toMatch(
      /^--address: .*prefix length/,
    );
  });
});

describe('grubConfig', () => {
  it('boots the shared image with the PC’s own initramfs after it, on the serial console too', () => {
    const cfg = grubConfig('pc1', 'abc123');
    expect(cfg).toContain('initrd /boot/initrd.cpio /boot/site.cpio');
    expect(cfg).toContain('console=ttyS0,115200');
    expect(cfg).toContain('menuentry "lfnlab lab PC pc1 (image abc123)"');
  });
});
