// The agent on the lab host, for a bump in the wire's external hosts (network namespaces on this
// machine): the lab's own agent binary in host mode (emulator/agent/hostside.go), a child of the
// run, serving one session on a root-only Unix socket with a key of its own. The lab's native
// samplers are static binaries, so the same files run here. Closing the channel ends the session:
// the agent removes its namespaces and processes and exits, also when this process is killed.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { WIRE_HOST_PREFIX } from '@lfnlab/emulator';
import { buildAgent } from './agent.js';
import { Channel, type ChannelOptions } from './channel.js';
import { buildSamplers } from './samplers.js';

export interface HostAgent {
  channel: Channel;
  pid: number;
  /** Its log (stderr): what it ran and why it refused, for a failed run's report. */
  logFile: string;
  /** Closes the channel and waits for the agent to tear down and exit (killed after 15 s). */
  stop(): Promise<void>;
}

export async function startHostAgent(opts: ChannelOptions = {}): Promise<HostAgent> {
  const [agent, samplers] = await Promise.all([buildAgent(), buildSamplers()]);
  const base = join(process.env.LFNLAB_RUN_DIR || '/run/lfnlab', 'hosts');
  mkdirSync(base, { recursive: true, mode: 0o700 });
  const dir = mkdtempSync(join(base, 'agent-'));
  const socket = join(dir, 'ctl.sock');
  const keyFile = join(dir, 'key');
  const logFile = join(dir, 'agent.log');
  writeFileSync(keyFile, randomBytes(32).toString('hex'), { mode: 0o600 });
  const binDir = dirname(Object.values(samplers.paths)[0] as string);
  const child = spawn(agent.path, ['-host', socket, '-key', keyFile, '-netns-prefix', WIRE_HOST_PREFIX], {
    stdio: ['ignore', 'pipe', openSync(logFile, 'a')],
    env: { ...process.env, PATH: `${binDir}:/usr/sbin:/usr/bin:/sbin:/bin` },
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const listening = new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (d: string) => {
      out += d;
      if (out.includes('listening\n')) resolve();
    });
    child.once('error', (e) => reject(new Error(`cannot start the lab host's agent: ${e.message}`)));
    void exited.then((code) =>
      reject(
        new Error(
          `the lab host's agent exited (${code}) before listening: ${readFileSync(logFile, 'utf8').trim().split('\n').slice(-3).join(' | ')}`,
        ),
      ),
    );
  });
  try {
    await listening;
    const channel = await Channel.open(socket, Buffer.from(readFileSync(keyFile, 'utf8'), 'utf8'), {
      timeoutMs: 10_000,
      ...opts,
    });
    return {
      channel,
      pid: child.pid ?? 0,
      logFile,
      async stop() {
        channel.close();
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
        rmSync(keyFile, { force: true });
      },
    };
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
}
