// The pause of an idle dilated lab against a stand-in QMP server: whoever arrives while the lab is
// being paused must find it running.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pauseIfUnheld } from './awake.js';

/** A QMP server that logs the commands it ran and answers them, or leaves one unanswered. */
function fakeQmp(socket: string, onCommand: (cmd: string) => 'reply' | 'silent'): Promise<Server> {
  const server = createServer((conn) => {
    conn.setEncoding('utf8');
    conn.write('{"QMP":{"version":{}}}\n');
    let buf = '';
    conn.on('data', (d: string) => {
      buf += d;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const { execute } = JSON.parse(buf.slice(0, nl)) as { execute: string };
        buf = buf.slice(nl + 1);
        if (execute === 'qmp_capabilities') conn.write('{"return":{}}\n');
        else if (onCommand(execute) === 'reply') conn.write('{"return":{}}\n');
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
    expect(ran).toEqual(['stop', 'cont']);
  });
});
