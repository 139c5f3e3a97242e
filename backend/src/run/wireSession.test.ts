// A wire's run talks to two agents; this checks each step reaches the right one, in order, and
// that the hosts' timetable is put on the lab's clock. Stub agents stand in for both.
import { buildPlan, validateSpec } from '@lfnlab/emulator';
import type { Channel } from '@lfnlab/lab-images';
import { describe, expect, it } from 'vitest';
import { StubAgent } from '../../test/support/stubAgent.js';
import { WireSession } from './wireSession.js';

const v = validateSpec({
  name: 'w',
  duration: '10s',
  wire: {},
  paths: { main: { rtt: '40ms', rate: '10mbit' } },
  flows: [{ stack: 'cubic' }],
});
if (!v.ok) throw new Error(JSON.stringify(v.problems));
const plan = buildPlan(v.spec, { wireTaps: { a: 'lfntxa', b: 'lfntxb' } });
const asChannel = (a: StubAgent) => a as unknown as Channel;

function session() {
  const lab = new StubAgent(() => undefined);
  const hosts = new StubAgent((argv) => (argv.includes('ping') ? 40 : undefined));
  return { lab, hosts, s: new WireSession(asChannel(lab), asChannel(hosts), plan) };
}

describe('WireSession', () => {
  it('runs each command on its side, keeping the plan order and every result', async () => {
    const { lab, hosts, s } = session();
    const cmds = plan.setup.flatMap((x) => x.cmds);
    const results = await s.exec(cmds);
    expect(results.map((r) => r.argv)).toEqual(cmds.map((c) => c.argv));
    expect(hosts.commands.map((c) => c.line)).toEqual(
      cmds.filter((c) => c.on === 'hosts').map((c) => c.argv.join(' ')),
    );
    expect(lab.commands.map((c) => c.line)).toEqual(
      cmds.filter((c) => c.on !== 'hosts').map((c) => c.argv.join(' ')),
    );
    // The idle-RTT probe is the hosts': it answers there.
    const ping = await s.run(plan.idleRtt[0]?.probe ?? { argv: [] });
    expect(ping.stdout).toMatch(/rtt min/);
  });

  it("splits the timetable by side and gives the hosts' t0 with the lab's", async () => {
    const { lab, hosts, s } = session();
    const client = plan.clients[0];
    const probe = Object.values(plan.socketProbes)[0];
    if (!client || !probe) throw new Error('plan without a client');
    const fired: string[] = [];
    const off = s.onFired((e) => fired.push(e.tag));
    const t0 = await s.schedule(
      [
        { tag: 'sampler:qdisc:router', atMs: -500, spawn: { name: 'qdisc:router', argv: ['lfn-qdiscstat'] } },
        {
          tag: 'sampler:tcp:lfnw-snd',
          atMs: -500,
          spawn: { name: 'tcp:lfnw-snd', argv: ['lfn-tcpsampler'] },
        },
        { tag: `start:${client.name}`, atMs: 0, spawn: { name: client.name, argv: client.argv } },
        { tag: 'probe:lfnw-snd', atMs: 5000, exec: [probe] },
      ],
      500,
    );
    expect(t0.hosts.t0RealtimeMs).toEqual(expect.any(Number));
    const exit = await s.exited(client.name);
    expect(exit.name).toBe(client.name);
    expect(fired.sort()).toEqual(
      ['probe:lfnw-snd', 'sampler:qdisc:router', 'sampler:tcp:lfnw-snd', `start:${client.name}`].sort(),
    );
    expect(hosts.commands.map((c) => c.tag)).toEqual(['probe:lfnw-snd']);
    expect(lab.commands).toEqual([]);
    off();
    await expect(
      s.schedule([{ tag: 'mixed', atMs: 0, exec: [probe, { argv: ['tc', 'qdisc', 'show'] }] }], 500),
    ).rejects.toThrow(/mixes lab and host commands/);
  });

  it("reports the hosts' kernel stacks as the ones the flows may use", async () => {
    const { s } = session();
    const info = await s.info<{ stacksAvailable: string[]; externalHosts: { kernel: string } }>();
    expect(info.stacksAvailable).toEqual(['cubic', 'reno', 'bbr']);
    expect(info.externalHosts.kernel).toBe('6.1.0-stub');
  });
});
