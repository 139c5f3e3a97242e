// The qemu lab: runs go through runExperiment (which boots the lab when needed and always resets it
// at the end); lab management through lab-images, as `lfnlab lab` does it.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { knownStacks, type Spec } from '@lfnlab/emulator';
import {
  connectLab,
  ensureImage,
  expectedClock,
  LabBusyError,
  labDown,
  labUp,
  moduleName,
  readImageManifest,
  readLab,
} from '@lfnlab/lab-images';
import { runExperiment } from '../run/runExperiment.js';
import { LabSession } from '../run/session.js';
import type { DriverRunOptions, LabDriver, LabInfo } from './labDriver.js';
import { expectedDilatedPace } from './queueEstimate.js';

interface AgentInfo {
  kernel: string;
  cpus?: number;
  stacksAvailable: string[];
}

const labsRoot = () => join(process.env.LFNLAB_RUN_DIR || '/run/lfnlab', 'labs');

export class RealLabDriver implements LabDriver {
  readonly kind = 'real' as const;
  private readonly booting = new Map<string, Promise<void>>();
  /** What each lab's agent said last; a busy lab's channel is taken, so it is not asked again. */
  private readonly lastInfo = new Map<string, AgentInfo>();

  constructor(
    private readonly log: (line: string) => void = () => undefined,
    /** The pool's labs (--labs N), listed even before their first boot. */
    private readonly pool: readonly string[] = ['default'],
  ) {}

  /** Real time under KVM; under TCG the dilated clock's pace at the spec's rates. */
  expectedPace(spec: Spec): number {
    return expectedClock(spec.clock) === 'dilated' ? expectedDilatedPace(spec) : 1;
  }

  private names(): string[] {
    let found: string[] = [];
    try {
      found = readdirSync(labsRoot());
    } catch {}
    return [...new Set(['default', ...this.pool, ...found, ...this.booting.keys()])].sort();
  }

  private async probe(name: string): Promise<AgentInfo | null> {
    try {
      const ch = await connectLab(name, { timeoutMs: 3000 });
      try {
        const info = await new LabSession(ch).info<AgentInfo>();
        this.lastInfo.set(name, info);
        return info;
      } finally {
        ch.close();
      }
    } catch (err) {
      if (err instanceof LabBusyError) return this.lastInfo.get(name) ?? null;
      return null;
    }
  }

  async labs(busy: ReadonlySet<string>): Promise<LabInfo[]> {
    // While another client (a CLI run) holds the lab's channel, the agent cannot be asked: what the
    // image was built with (kernel stacks and the out-of-tree modules) is the next best answer.
    const fallback = (imageId: string) => {
      const m = readImageManifest(imageId);
      if (!m) return null;
      const modules = new Set([...m.kernel.stacks.map((s) => s.module), ...m.stacks.modules.map(moduleName)]);
      return {
        kernel: m.kernel.abi,
        stacks: [
          ...knownStacks()
            .filter((s) => s.module === null || modules.has(s.module))
            .map((s) => s.name),
          // Added stacks the image carries even if this service has not registered them (yet).
          ...(m.stacks.added ?? []).map((a) => a.name),
        ].filter((n, i, all) => all.indexOf(n) === i),
      };
    };
    const out: LabInfo[] = [];
    for (const name of this.names()) {
      const rec = readLab(name);
      if (!rec) {
        out.push({
          name,
          state: this.booting.has(name) ? 'booting' : 'down',
          accel: null,
          cpus: null,
          kernel: null,
          stacks: [],
          bootMs: null,
        });
        continue;
      }
      const info = busy.has(name) ? (this.lastInfo.get(name) ?? null) : await this.probe(name);
      out.push({
        name,
        state: busy.has(name) ? 'busy' : 'ready',
        accel: rec.accel,
        cpus: rec.cpus,
        kernel: info?.kernel ?? fallback(rec.imageId)?.kernel ?? null,
        stacks: info?.stacksAvailable ?? fallback(rec.imageId)?.stacks ?? [],
        bootMs: rec.bootMs,
      });
    }
    return out;
  }

  async boot(name: string): Promise<void> {
    if (readLab(name) || this.booting.has(name)) return;
    const p = (async () => {
      const image = await ensureImage({ log: this.log });
      await labUp({ name, image, log: this.log });
    })()
      .catch((err) => this.log(`lab ${name}: boot failed: ${(err as Error).message}`))
      .finally(() => this.booting.delete(name));
    this.booting.set(name, p);
  }

  async down(name: string): Promise<void> {
    await labDown(name);
    this.lastInfo.delete(name);
  }

  async reset(name: string): Promise<void> {
    if (!readLab(name)) return;
    const ch = await connectLab(name, { watchdogMs: 10_000, timeoutMs: 60_000 });
    try {
      await new LabSession(ch).reset();
    } finally {
      ch.close();
    }
  }

  async run(o: DriverRunOptions) {
    const { summary } = await runExperiment({
      spec: o.spec,
      specText: o.specText,
      outDir: o.outDir,
      labName: o.labName,
      log: o.log,
      signal: o.signal,
      onSample: o.onSample,
      onEvent: o.onEvent,
      onProgress: o.onProgress,
      onPlan: o.onPlan,
    });
    return { summary };
  }
}
