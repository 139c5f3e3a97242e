// What a campaign keeps between its runs: the lab image, the control channel (closing it makes the
// agent tear everything down), the facts read about the booted lab, and the dumbbell the last run
// left built and calibrated. runExperiment decides per run whether that dumbbell may be reused
// (reuse.ts); `close` tears it down and releases the lab when the campaign ends, however it ends.
import { type Channel, connectLab, type LabImage, type LabRecord } from '@lfnlab/lab-images';
import type { LabFacts } from './labSetup.js';
import type { BuiltDumbbell } from './reuse.js';
import { LabSession } from './session.js';

/**
 * The agent's silence watchdog for a kept channel, ms. Between runs the host summarises the last
 * run synchronously (seconds for a long run with many samples) and sends no heartbeat meanwhile;
 * a process that dies closes the channel at once, so this only bounds a host that hangs.
 */
export const KEPT_WATCHDOG_MS = 60_000;

export class KeptLab {
  image: LabImage | undefined;
  /** cpuinfo and tool versions of the lab the channel reaches. */
  readonly facts: { facts?: LabFacts } = {};
  /** The dumbbell standing in the lab with its calibration, if the last run left one. */
  built: BuiltDumbbell | null = null;
  private channel: Channel | null = null;
  private labPid: number | null = null;

  /** Supervised processes running in the lab when the channel was last checked; null: unknown. */
  private lastRunning: number | null = null;

  /**
   * The open channel to this lab if it still answers, or a new one (a rebooted lab, a channel that
   * closed, or an agent that ended the session while the host was busy between runs).
   */
  async channelFor(lab: LabRecord): Promise<Channel> {
    if (this.channel && this.labPid === lab.pid) {
      const pong = await this.channel.call<{ running?: number }>('ping', {}, 10_000).catch(() => null);
      if (pong) {
        this.lastRunning = typeof pong.running === 'number' ? pong.running : null;
        return this.channel;
      }
      // No answer: the agent has dropped the session (and torn its work down); start a new one.
      const dead = this.channel;
      this.channel = null;
      this.built = null;
      dead.close();
    }
    await this.close();
    // The channel is free once the previous client's session has been torn down by the agent;
    // that can take a few seconds after a kill, so wait for it rather than fail.
    const ch = await connectLab(lab.name, { watchdogMs: KEPT_WATCHDOG_MS, timeoutMs: 60_000 });
    ch.once('close', () => {
      if (this.channel !== ch) return;
      // The agent tears a closed session's work down: nothing of it stands any more.
      this.channel = null;
      this.built = null;
      this.facts.facts = undefined;
    });
    this.channel = ch;
    this.labPid = lab.pid;
    this.lastRunning = typeof ch.hello?.running === 'number' ? ch.hello.running : null;
    this.facts.facts = undefined;
    this.built = null;
    return ch;
  }

  /** How many supervised processes the agent reported when channelFor last reached it; null: unknown. */
  running(): number | null {
    return this.lastRunning;
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
