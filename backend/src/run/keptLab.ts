// What a campaign keeps between its runs: the lab image, the control channel (closing it makes the
// agent tear everything down), the facts read about the booted lab, and the dumbbell the last run
// left built and calibrated. runExperiment decides per run whether that dumbbell may be reused
// (reuse.ts); `close` tears it down and releases the lab when the campaign ends, however it ends.
import { type Channel, connectLab, type LabImage, type LabRecord } from '@lfnlab/lab-images';
import type { LabFacts } from './labSetup.js';
import type { BuiltDumbbell } from './reuse.js';
import { LabSession } from './session.js';

export class KeptLab {
  image: LabImage | undefined;
  /** cpuinfo and tool versions of the lab the channel reaches. */
  readonly facts: { facts?: LabFacts } = {};
  /** The dumbbell standing in the lab with its calibration, if the last run left one. */
  built: BuiltDumbbell | null = null;
  private channel: Channel | null = null;
  private labPid: number | null = null;

  /** The open channel to this lab, or a new one (a rebooted lab, or a channel that closed). */
  async channelFor(lab: LabRecord): Promise<Channel> {
    if (this.channel && this.labPid === lab.pid) return this.channel;
    await this.close();
    // The channel is free once the previous client's session has been torn down by the agent;
    // that can take a few seconds after a kill, so wait for it rather than fail.
    const ch = await connectLab(lab.name, { watchdogMs: 10_000, timeoutMs: 60_000 });
    ch.once('close', () => {
      if (this.channel !== ch) return;
      // The agent tears a closed session's work down: nothing of it stands any more.
      this.channel = null;
      this.built = null;
      this.facts.facts = undefined;
    });
    this.channel = ch;
    this.labPid = lab.pid;
    this.facts.facts = undefined;
    this.built = null;
    return ch;
  }

  /** How many supervised processes run in the lab (the agent's heartbeat answer); null: no answer. */
  async running(): Promise<number | null> {
    if (!this.channel) return 0;
    const pong = await this.channel.call<{ running?: number }>('ping', {}, 10_000).catch(() => null);
    return typeof pong?.running === 'number' ? pong.running : null;
  }

  /** Tears down whatever stands, leaves the lab as it booted, and closes the channel. */
  async close(): Promise<void> {
    const ch = this.channel;
    const built = this.built;
    this.channel = null;
    this.built = null;
    if (!ch) return;
    const session = new LabSession(ch);
    try {
      if (built) await session.exec(built.plan.teardown.cmds, { stopOnError: false }).catch(() => undefined);
      await session.reset().catch(() => undefined);
    } finally {
      session.detach();
      ch.close();
    }
  }
}
