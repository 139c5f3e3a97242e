// The agent on the lab host (a wire's external hosts) with the real binary and this machine's
// namespaces: it runs steps and processes like the lab's agent, refuses to power the host off,
// touches only namespaces of its own prefix, and removes them when its session ends.
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExitEvent } from './channel.js';
import { type HostAgent, startHostAgent } from './hostAgent.js';

const tag = `t${process.pid}`;
const mine = `lfnw-${tag}`;
// A namespace of the lab's prefix on this host: not the host agent's to remove.
const foreign = `lfn-${tag}`;
const namespaces = () => execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' });
const bridge = `lfnw-${process.pid % 100000}b`;
const links = () => execFileSync('ip', ['-br', 'link'], { encoding: 'utf8' });

describe('the agent on the lab host', () => {
  let agent: HostAgent | null = null;
  afterAll(async () => {
    await agent?.stop();
    for (const ns of [mine, foreign]) spawnSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
    spawnSync('ip', ['link', 'del', bridge], { stdio: 'ignore' });
  });

  it('runs steps and processes in its namespaces, refuses poweroff, and cleans up only its own', async () => {
    execFileSync('ip', ['netns', 'add', foreign]);
    agent = await startHostAgent();
    const ch = agent.channel;
    const res = await ch.call<{ ok: boolean; results: { code: number; stdout: string }[] }>('exec', {
      steps: [
        { argv: ['ip', 'netns', 'add', mine] },
        { argv: ['ip', 'netns', 'exec', mine, 'cat', '/proc/sys/net/ipv4/tcp_available_congestion_control'] },
      ],
      stopOnError: true,
    });
    expect(res.ok).toBe(true);
    expect(res.results[1]?.stdout).toMatch(/cubic/);
    const exit = new Promise<ExitEvent>((resolve) =>
      ch.on('exit', (e: ExitEvent) => e.name === 'echo' && resolve(e)),
    );
    await ch.call('spawn', { name: 'echo', argv: ['ip', 'netns', 'exec', mine, 'echo', 'from the host'] });
    expect((await exit).stdout).toContain('from the host');
    await expect(ch.call('poweroff', {})).rejects.toThrow(/refused on a lab host/);
    const info = await ch.call<{ stacksAvailable: string[] }>('info');
    expect(info.stacksAvailable).toContain('reno');

    const reset = await ch.call<{ namespaces: string[] }>('reset', {}, 30_000);
    expect(reset.namespaces).toEqual([mine]);
    expect(namespaces()).toContain(foreign);

    // A session that ends takes its namespaces and its links on the host with it, and the agent exits.
    await ch.call('exec', {
      steps: [
        { argv: ['ip', 'netns', 'add', mine] },
        { argv: ['ip', 'link', 'add', bridge, 'type', 'bridge'] },
      ],
      stopOnError: true,
    });
    expect(links()).toContain(bridge);
    await agent.stop();
    agent = null;
    expect(namespaces()).not.toContain(mine);
    expect(links()).not.toContain(bridge);
    expect(namespaces()).toContain(foreign);
  });

  it('is one per lab host: a second wire run is refused by name while the first holds the hosts, and may start after', async () => {
    agent = await startHostAgent();
    const second = startHostAgent();
    await expect(second).rejects.toThrow(
      new RegExp(
        `another bump in the wire is running on this host \\(its agent, pid ${agent.pid}, holds /run/lfnw-hosts.lock\\)`,
      ),
    );
    await agent.stop();
    // The lock went with the first agent's process.
    agent = await startHostAgent();
    expect(agent.pid).toBeGreaterThan(0);
    await agent.stop();
    agent = null;
  });
});
