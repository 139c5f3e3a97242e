// Where a running run's samples and events go: storage at full rate, the live hub downsampled,
// with the run's progress (and the lab's pace) kept on its record. The same for runs on this
// service's labs and runs a worker streams in.
import type { Plan } from '@lfnlab/emulator';
import type { Sample } from '../run/samples.js';
import type { RunSink } from '../storage/runStorage.js';
import type { RunChannel } from './liveHub.js';
import type { Run } from './types.js';

export function liveFeed(run: Run, sink: RunSink, channel: RunChannel) {
  const totalS = run.progress.totalS;
  // From the run's plan, which comes before any sample or flow event.
  let flows: { name: string; endS: number; started: boolean; ended: boolean }[] = [];
  const onPlan = (plan: Plan) => {
    flows = plan.topology.flows.map((f) => ({
      name: f.name,
      endS: (f.startMs + f.durationMs) / 1000,
      started: false,
      ended: false,
    }));
  };
  let lastProgressS = -1;
  // The lab's pace (lab seconds per wall second) from its heartbeats: the ETA in wall seconds.
  let dilation: number | null = null;
  const progressOf = (elapsedS: number) => ({
    elapsedS,
    totalS,
    ...(dilation ? { dilation, etaS: Math.max(0, totalS - elapsedS) / dilation } : {}),
  });
  const onProgress = (p: { t: number; dilation: number | null }) => {
    if (p.dilation === null) return;
    dilation = p.dilation;
    run.progress = progressOf(run.progress.elapsedS);
  };
  const onSample = (s: Sample) => {
    sink.onSample(s);
    channel.sample(s);
    const whole = Math.floor(Math.min(s.t, totalS));
    if (whole > lastProgressS) {
      lastProgressS = whole;
      run.progress = progressOf(whole);
      channel.publish({ type: 'progress', ...run.progress });
      for (const f of flows)
        if (f.started && !f.ended && s.t >= f.endS) {
          f.ended = true;
          channel.publish({ type: 'event', event: 'flow-ended', data: { flow: f.name, t: f.endS } });
        }
    }
  };
  const onEvent = (type: string, detail: Record<string, unknown>) => {
    sink.onEvent(type, detail);
    if (type === 'traffic') channel.publish({ type: 'event', event: 'started', data: { ...detail, totalS } });
    else if (type === 'flow-started') {
      const f = flows.find((x) => x.name === detail.flow);
      if (f) f.started = true;
      channel.publish({ type: 'event', event: 'flow-started', data: detail });
    } else if (type === 'finished') channel.publish({ type: 'event', event: 'verdict', data: detail });
  };
  return { onPlan, onSample, onEvent, onProgress };
}
