// The designer's form values and their mapping to and from what a person writes in a spec file
// (SpecInput: strings with units). Paths are a list in the form (so they can be added, renamed and
// reordered) and a record in the spec. Fields the form has no control for (changes, reverse,
// sysctls, count/every, ...) ride along in `extra` so an imported spec exports unchanged.
import type { SpecInput } from '@lfnlab/emulator/spec';

export type BufferUnit = 'packets' | 'bdp' | 'size';

export interface CrossForm {
  pattern: 'cbr' | 'sine' | 'selfsimilar';
  rate: string;
  mean: string;
  amplitude: string;
  period: string;
  hurst: string;
  start: string;
  duration: string;
  extra: Record<string, unknown>;
}

export interface PathForm {
  name: string;
  rtt: string;
  rate: string;
  buffer: string;
  bufferUnit: BufferUnit;
  ber: string;
  jitter: string;
  aqm: 'fifo' | 'red' | 'codel' | 'fq_codel' | 'pie' | 'cake';
  cross: CrossForm[];
  extra: Record<string, unknown>;
}

export interface FlowForm {
  name: string;
  stack: string;
  path: string;
  streams: number;
  /** How several streams come up: one iperf3 -P opening them one by one, or one iperf3 each, together. */
  connect: 'serial' | 'together';
  start: string;
  duration: string;
  direction: 'forward' | 'reverse';
  window: string;
  extra: Record<string, unknown>;
}

/** The lab as a bump in the wire between two hosts it does not own (spec `wire`). */
export interface WireForm {
  on: boolean;
  /** The lab's port on the sender's side and on the receiver's. */
  a: string;
  b: string;
  extra: Record<string, unknown>;
}

export const WIRE_PORTS = { a: 'eth0', b: 'eth1' } as const;

export interface SpecForm {
  name: string;
  description: string;
  duration: string;
  sampleHz: number;
  sampleInterval: string;
  clock: 'auto' | 'realtime' | 'dilated';
  wire: WireForm;
  paths: PathForm[];
  flows: FlowForm[];
  /** stack → module parameter → its text ('' or absent: the module's own value). */
  stackParams: Record<string, Record<string, string>>;
  extra: Record<string, unknown>;
}

export const newCross = (pattern: CrossForm['pattern'] = 'cbr'): CrossForm => ({
  pattern,
  rate: pattern === 'cbr' ? '10%' : '',
  mean: pattern === 'cbr' ? '' : '20%',
  amplitude: pattern === 'sine' ? '10%' : '',
  period: pattern === 'sine' ? '10s' : '',
  hurst: pattern === 'selfsimilar' ? '0.8' : '',
  start: '0s',
  duration: '',
  extra: {},
});

export const newPath = (name: string): PathForm => ({
  name,
  rtt: '70ms',
  rate: '100Mbit',
  buffer: '1',
  bufferUnit: 'bdp',
  ber: '0',
  jitter: '0ms',
  aqm: 'fifo',
  cross: [],
  extra: {},
});

export const newFlow = (path: string, stack = 'cubic'): FlowForm => ({
  name: '',
  stack,
  path,
  streams: 1,
  connect: 'serial',
  start: '0s',
  duration: '',
  direction: 'forward',
  window: '',
  extra: {},
});

export const defaultSpecForm = (): SpecForm => ({
  name: 'my-experiment',
  description: '',
  duration: '30s',
  sampleHz: 10,
  sampleInterval: '1s',
  clock: 'auto',
  wire: { on: false, ...WIRE_PORTS, extra: {} },
  paths: [newPath('main')],
  flows: [
    { ...newFlow('main', 'reno'), name: 'reno' },
    { ...newFlow('main', 'cubic'), name: 'cubic' },
  ],
  stackParams: {},
  extra: {},
});

/** "1bdp" → ('1', 'bdp'); 100 → ('100', 'packets'); "256KiB" → ('256KiB', 'size'). */
export function splitBuffer(v: unknown): { buffer: string; bufferUnit: BufferUnit } {
  if (typeof v === 'number') return { buffer: String(v), bufferUnit: 'packets' };
  const s = String(v ?? '1bdp').trim();
  const bdp = /^(\S+?)\s*bdp$/i.exec(s);
  if (bdp) return { buffer: bdp[1] as string, bufferUnit: 'bdp' };
  const pkt = /^(\d+)\s*(pkt|pkts|packets?|p)?$/i.exec(s);
  if (pkt) return { buffer: pkt[1] as string, bufferUnit: 'packets' };
  return { buffer: s, bufferUnit: 'size' };
}

function joinBuffer(p: PathForm): string | number {
  const v = p.buffer.trim();
  if (p.bufferUnit === 'bdp') return `${v}bdp`;
  if (p.bufferUnit === 'packets') return /^\d+$/.test(v) ? Number(v) : `${v}pkt`;
  return v;
}

const str = (x: unknown, fallback = '') => (x === undefined || x === null ? fallback : String(x));
/** Empty text means "not given": the schema's default applies. */
const opt = (s: string) => (s.trim() === '' ? undefined : s.trim());

function without<T extends object>(o: T, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
}

const CROSS_KEYS = ['pattern', 'rate', 'mean', 'amplitude', 'period', 'hurst', 'start', 'duration'] as const;
const PATH_KEYS = ['rtt', 'rate', 'buffer', 'ber', 'jitter', 'aqm', 'cross'] as const;
/** The flow fields the form has a control for; the rest ride along in `extra`. */
export const FLOW_KEYS = [
  'name',
  'stack',
  'path',
  'streams',
  'connect',
  'start',
  'duration',
  'direction',
  'window',
] as const;
const SPEC_KEYS = [
  'name',
  'description',
  'duration',
  'sampleHz',
  'sampleInterval',
  'clock',
  'wire',
  'paths',
  'flows',
  'stackParams',
] as const;

type Loose = Record<string, unknown>;

/** A spec as written (parsed YAML/JSON) → form values. Unknown shapes degrade to defaults. */
export function specInputToForm(input: unknown): SpecForm {
  const s = (input && typeof input === 'object' ? input : {}) as Loose;
  const paths = Object.entries((s.paths ?? {}) as Record<string, Loose>).map(([name, p]): PathForm => {
    const cross = Array.isArray(p.cross) ? (p.cross as Loose[]) : [];
    return {
      name,
      rtt: str(p.rtt),
      rate: str(p.rate),
      ...splitBuffer(p.buffer),
      ber: str(p.ber, '0'),
      jitter: str(p.jitter, '0ms'),
      aqm: (p.aqm as PathForm['aqm']) ?? 'fifo',
      cross: cross.map((c) => ({
        pattern: (c.pattern as CrossForm['pattern']) ?? 'cbr',
        rate: str(c.rate),
        mean: str(c.mean),
        amplitude: str(c.amplitude),
        period: str(c.period),
        hurst: str(c.hurst),
        start: str(c.start, '0s'),
        duration: str(c.duration),
        extra: without(c, CROSS_KEYS),
      })),
      extra: without(p, PATH_KEYS),
    };
  });
  const firstPath = paths[0]?.name ?? 'main';
  const stackParams = stackParamsToForm(s.stackParams);
  const wire = s.wire && typeof s.wire === 'object' ? (s.wire as Loose) : null;
  const ports = (wire?.ports && typeof wire.ports === 'object' ? wire.ports : {}) as Loose;
  const flows = (Array.isArray(s.flows) ? (s.flows as Loose[]) : []).map(
    (f): FlowForm => ({
      name: str(f.name),
      stack: str(f.stack, 'cubic'),
      path: str(f.path, firstPath),
      streams: typeof f.streams === 'number' ? f.streams : 1,
      connect: f.connect === 'together' ? 'together' : 'serial',
      start: str(f.start, '0s'),
      duration: str(f.duration),
      direction: f.direction === 'reverse' ? 'reverse' : 'forward',
      window: str(f.window),
      extra: without(f, FLOW_KEYS),
    }),
  );
  return {
    name: str(s.name, 'experiment'),
    description: str(s.description),
    duration: str(s.duration, '30s'),
    sampleHz: typeof s.sampleHz === 'number' ? s.sampleHz : 10,
    sampleInterval: str(s.sampleInterval, '1s'),
    clock: s.clock === 'realtime' || s.clock === 'dilated' ? s.clock : 'auto',
    wire: {
      on: wire !== null,
      a: str(ports.a, WIRE_PORTS.a),
      b: str(ports.b, WIRE_PORTS.b),
      extra: wire ? without(wire, ['ports']) : {},
    },
    paths: paths.length ? paths : [newPath('main')],
    flows,
    stackParams: stackParams ?? {},
    extra: { ...without(s, SPEC_KEYS), ...(stackParams ? {} : { stackParams: s.stackParams }) },
  };
}

/**
 * A spec's stackParams → text fields, when it has the shape the fields hold (stack → parameter →
 * number or text); otherwise null, and it rides along in `extra` for the schema to name.
 */
function stackParamsToForm(v: unknown): SpecForm['stackParams'] | null {
  if (v === undefined) return {};
  const isRecord = (x: unknown): x is Loose => Boolean(x) && typeof x === 'object' && !Array.isArray(x);
  if (!isRecord(v)) return null;
  const fits = Object.values(v).every(
    (params) =>
      isRecord(params) && Object.values(params).every((x) => typeof x === 'number' || typeof x === 'string'),
  );
  if (!fits) return null;
  return Object.fromEntries(
    Object.entries(v).map(([stack, params]) => [
      stack,
      Object.fromEntries(Object.entries(params as Loose).map(([k, x]) => [k, str(x)])),
    ]),
  );
}

/** The form's stackParams → the spec's, leaving out empty fields (the module's own value). */
function stackParamsInput(
  form: SpecForm['stackParams'],
): Record<string, Record<string, unknown>> | undefined {
  const out = Object.entries(form ?? {}).flatMap(([stack, params]) => {
    const set = Object.entries(params ?? {}).flatMap(([k, text]) =>
      String(text ?? '').trim() === '' ? [] : [[k, numberOrText(String(text))] as const],
    );
    return set.length ? [[stack, Object.fromEntries(set)] as const] : [];
  });
  return out.length ? Object.fromEntries(out) : undefined;
}

/** A numeric field's text → number; text that is not a number is passed on for the schema to name. */
function numberOrText(text: string): number | string | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

/** Form values → the spec as a person would write it (the schema's input side). */
export function formToSpecInput(form: SpecForm): SpecInput {
  const paths: Record<string, unknown> = {};
  for (const p of form.paths) {
    paths[p.name] = prune({
      rtt: p.rtt.trim(),
      rate: p.rate.trim(),
      buffer: joinBuffer(p),
      ber: numberOrText(p.ber),
      jitter: opt(p.jitter) === '0ms' ? undefined : opt(p.jitter),
      aqm: p.aqm === 'fifo' ? undefined : p.aqm,
      cross: p.cross.length
        ? p.cross.map((c) =>
            prune({
              pattern: c.pattern,
              rate: c.pattern === 'cbr' ? opt(c.rate) : undefined,
              mean: c.pattern !== 'cbr' ? opt(c.mean) : undefined,
              amplitude: c.pattern === 'sine' ? opt(c.amplitude) : undefined,
              period: c.pattern === 'sine' ? opt(c.period) : undefined,
              hurst: c.pattern === 'selfsimilar' ? numberOrText(c.hurst) : undefined,
              start: opt(c.start) === '0s' ? undefined : opt(c.start),
              duration: opt(c.duration),
              ...c.extra,
            }),
          )
        : undefined,
      ...p.extra,
    });
  }
  const onePath = form.paths.length === 1;
  return prune({
    name: form.name.trim(),
    description: opt(form.description),
    duration: form.duration.trim(),
    sampleInterval: opt(form.sampleInterval) === '1s' ? undefined : opt(form.sampleInterval),
    sampleHz: form.sampleHz === 10 ? undefined : form.sampleHz,
    clock: form.clock === 'auto' ? undefined : form.clock,
    wire: form.wire.on ? wireInput(form.wire) : undefined,
    // A stackParams the fields could not hold comes back from `extra` as written.
    stackParams: stackParamsInput(form.stackParams),
    ...form.extra,
    paths,
    flows: form.flows.map((f) =>
      prune({
        name: opt(f.name),
        stack: f.stack,
        // With one path the spec may leave it out; keep it when it was set to something else.
        path: onePath && f.path === form.paths[0]?.name ? undefined : f.path,
        streams: f.streams === 1 ? undefined : f.streams,
        connect: f.connect === 'serial' ? undefined : f.connect,
        start: opt(f.start) === '0s' ? undefined : opt(f.start),
        duration: opt(f.duration),
        direction: f.direction === 'forward' ? undefined : f.direction,
        window: opt(f.window),
        ...f.extra,
      }),
    ),
  }) as SpecInput;
}

/** The wire as written: the ports only where they are not the lab's own eth0 and eth1. */
function wireInput(w: WireForm): Record<string, unknown> {
  const ports = prune({
    a: w.a.trim() === WIRE_PORTS.a ? undefined : w.a.trim(),
    b: w.b.trim() === WIRE_PORTS.b ? undefined : w.b.trim(),
  });
  return prune({ ...w.extra, ports: Object.keys(ports).length ? ports : undefined });
}

/** Drop undefined members so the exported file carries only what was set. */
function prune<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
