// The pause of an idle dilated lab against a stand-in QMP server: whoever arrives while the lab is
// being paused must find it running.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pauseIfUnheld, resume } from './awake.js';

/**
 * A QMP server that logs the commands it ran and answers them (`query-status` with whether `cont`
 * or `stop` came last), refuses one with an error, or leaves it unanswered.
 */
function fakeQmp(
  socket: string,
  onCommand: (cmd: string, vm: { running: boolean }) => 'reply' | 'refuse' | 'silent',
): Promise<Server> {
  const vm = { running: false };
  const server = createServer((conn) => {
    conn.setEncoding('utf8');
    conn.write('{"QMP":{"version":{}}}\n');
    let buf = '';
    conn.on('data', (d: string) => {
      buf += d;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const { execute } = JSON.parse(buf.slice(0, nl)) as { execute: string };
        buf = buf.slice(nl + 1);
        if (execute === 'qmp_capabilities') {
          conn.write('{"return":{}}\n');
          continue;
        }
        const how = onCommand(execute, vm);
        if (how === 'refuse') conn.write('{"error":{"desc":"busy"}}\n');
        if (how !== 'reply') continue;
        if (execute === 'cont' || execute === 'stop') vm.running = execute === 'cont';
        conn.write(
          `${JSON.stringify({ return: execute === 'query-status' ? { running: vm.running } : {} })}\n`,
        );
      }
    });
    conn.on('error', () => undefined);
  });
  return new Promise((resolve) => server.listen(socket, () => resolve(server)));
}

let server: Server | undefined;
afterEach(() => server?.close());

describe('pauseIfUnheld', () => {
  it('pauses a lab nobody holds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-awake-'));
    const ran: string[] = [];
    server = await fakeQmp(join(dir, 'qmp.sock'), (c) => {
      ran.push(c);
      return 'reply';
    });
    await pauseIfUnheld(dir, join(dir, 'qmp.sock'));
    expect(ran).toEqual(['stop']);
  });

  it('leaves a held lab running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-awake-'));
    mkdirSync(join(dir, 'awake'));
    writeFileSync(join(dir, 'awake', `${process.pid}-held`), '');
    const ran: string[] = [];
    server = await fakeQmp(join(dir, 'qmp.sock'), (c) => {
      ran.push(c);
      return 'reply';
    });
    await pauseIfUnheld(dir, join(dir, 'qmp.sock'));
    expect(ran).toEqual([]);
  });

  it('resumes for a holder who arrived while its stop went unanswered (qemu ran it late)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-awake-'));
    mkdirSync(join(dir, 'awake'));
    const ran: string[] = [];
    server = await fakeQmp(join(dir, 'qmp.sock'), (c) => {
      ran.push(c);
      if (c !== 'stop') return 'reply';
      // The next user registers as the stop runs, and the answer never comes in time.
      writeFileSync(join(dir, 'awake', `${process.pid}-next`), '');
      return 'silent';
    });
    await expect(pauseIfUnheld(dir, join(dir, 'qmp.sock'), 200)).rejects.toThrow(/timed out/);
    expect(ran).toEqual(['stop', 'cont', 'query-status']);
  });
});

describe('resume', () => {
  it('sends cont again until qemu says the VM runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-awake-'));
    const ran: string[] = [];
    server = await fakeQmp(join(dir, 'qmp.sock'), (c, vm) => {
      ran.push(c);
      const conts = ran.filter((x) => x === 'cont').length;
      // The first cont is refused; a releaser's stop lands between the second and its check.
      if (c === 'cont' && conts === 1) return 'refuse';
      if (c === 'query-status' && conts === 2) vm.running = false;
      return 'reply';
    });
    await resume(join(dir, 'qmp.sock'), 5_000);
    expect(ran).toEqual(['cont', 'cont', 'query-status', 'cont', 'query-status']);
  });

  it('gives up at its deadline when the VM never runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lfnlab-awake-'));
    server = await fakeQmp(join(dir, 'qmp.sock'), (c) => (c === 'cont' ? 'refuse' : 'reply'));
    await expect(resume(join(dir, 'qmp.sock'), 1_000)).rejects.toThrow(/busy/);
  });
});
