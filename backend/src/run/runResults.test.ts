import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPlan, validateSpec } from '@lfnlab/emulator';
import { describe, expect, it } from 'vitest';
import { RunRecorder } from './record.js';
import { collectFlowResults } from './runResults.js';
import type { TcpFlowSample } from './samples.js';
import { emptyFlowResult, type FlowResult } from './summary.js';

const v = validateSpec({
  name: 'late',
  duration: '6s',
  paths: { main: { rtt: '20ms', rate: '20Mbit' } },
  flows: [{ stack: 'cdg' }],
});
if (!v.ok) throw new Error('bad spec');
const flow = buildPlan(v.spec).topology.flows[0] as NonNullable<
  ReturnType<typeof buildPlan>['topology']['flows'][0]
>;

/** A flow whose SYN was lost until 7.41 s: both `ss` probes (3.0 s, 4.5 s) found no socket of it. */
function lateFlow(): FlowResult {
  const second = (k: number) => ({ start: k, end: k + 1, bytes: 1_250_000, bits_per_second: 10e6 });
  return {
    ...emptyFlowResult(flow),
    startedAtS: 0.07,
    client: {
      start: { connected: [{ socket: 5, local_port: 52182, remote_port: flow.port }] },
      intervals: [0, 1].map((k) => ({ streams: [{ socket: 5, ...second(k) }], sum: second(k) })),
    },
  };
}

const sample = (t: number): TcpFlowSample =>
  ({ kind: 'tcp', t, flow: flow.name, streams: 1, cc: 'cdg' }) as TcpFlowSample;

describe('collectFlowResults', () => {
  it("takes a late flow's stack from the tcp sampler and times its intervals from its data start", () => {
    const r = lateFlow();
    const rec = new RunRecorder(mkdtempSync(join(tmpdir(), 'lfnlab-results-')));
    collectFlowResults({
      results: new Map([[flow.name, r]]),
      probes: [3.0, 4.5].map((t) => ({ t, ns: flow.clientNs, sockets: [] })),
      dataStarts: new Map([[flow.name, 7.41]]),
      tcp: [sample(7.61), sample(7.71)],
      crossExits: new Map(),
      counters: [],
      rec,
      log: () => undefined,
    });
    expect(r.observedStacks).toEqual(['cdg']);
    expect(r.dataStartS).toBe(7.41);
    expect(r.intervals.map((s) => s.t)).toEqual([8.41, 9.41]);
    expect(JSON.parse(readFileSync(join(rec.dir, 'flows', `${flow.name}.client.json`), 'utf8'))).toEqual(
      r.client,
    );
  });

  it('falls back to the process start when the sampler never saw the flow', () => {
    const r = lateFlow();
    collectFlowResults({
      results: new Map([[flow.name, r]]),
      probes: [],
      dataStarts: new Map(),
      tcp: [],
      crossExits: new Map(),
      counters: [],
      rec: new RunRecorder(mkdtempSync(join(tmpdir(), 'lfnlab-results-'))),
      log: () => undefined,
    });
    expect(r.observedStacks).toEqual([]);
    expect(r.dataStartS).toBeNull();
    expect(r.intervals.map((s) => s.t)).toEqual([1.07, 2.07]);
  });
});
