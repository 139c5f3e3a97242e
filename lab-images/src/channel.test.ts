import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Channel, type Frame, signFrame, verifyFrame } from './channel.js';

const key = Buffer.from('k'.repeat(64));

/** A stand-in agent on a Unix socket: answers the hello, then pings until told to fall silent. */
function fakeAgent() {
  const dir = mkdtempSync(join(tmpdir(), 'lfnlab-ch-'));
  const path = join(dir, 'ctl.sock');
  const state = { silent: false, socket: null as Socket | null };
  const server: Server = createServer((sock) => {
    state.socket = sock;
    let buf = '';
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => {
      buf += d;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const f = verifyFrame(key, buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (!f || state.silent) continue;
        const reply = (type: string, sid: string, body: unknown) =>
          sock.write(signFrame(key, { v: 1, sid, seq: 1, type, id: f.id, body } as Frame));
        if (f.type === 'hello') {
          const sid = `${(f.body as { nonce: string }).nonce}.1`;
          reply('hello', sid, {
            proto: 1,
            sid,
            agent: 'fake',
            kernel: 'k',
            bootId: 'b',
            uptimeS: 1,
            running: 0,
          });
        } else if (f.type === 'ping') reply('pong', f.sid, { running: 0 });
      }
    });
  });
  server.listen(path);
  return {
    path,
    state,
    close: () => {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('control channel liveness', () => {
  let agent: ReturnType<typeof fakeAgent> | undefined;
  afterEach(() => agent?.close());

  it('closes with a clear error once the agent stops answering pings, though the socket stays open', async () => {
    agent = fakeAgent();
    const ch = await Channel.open(agent.path, key, { silenceMs: 2500 });
    const closed = new Promise<Error>((r) => ch.on('close', r));
    const pending = ch.call('exec', {}, 60_000);
    agent.state.silent = true;
    const err = await closed;
    expect(err.message).toMatch(/stopped answering: no reply for [23] s/);
    await expect(pending).rejects.toThrow(/stopped answering/);
  });

  it('stays open while the agent answers', async () => {
    agent = fakeAgent();
    const ch = await Channel.open(agent.path, key, { silenceMs: 2500 });
    let closed = false;
    ch.on('close', () => {
      closed = true;
    });
    // Three silence windows' worth of pongs.
    await new Promise((r) => setTimeout(r, 4000));
    expect(closed).toBe(false);
    ch.close();
  });

  it('rejects every pending call when the socket goes away (qemu died)', async () => {
    agent = fakeAgent();
    const ch = await Channel.open(agent.path, key);
    const pending = ch.call('exec', {}, 60_000);
    agent.state.socket?.destroy();
    await expect(pending).rejects.toThrow(/control channel/);
  });
});
