// Meaning of the checkpoint language (checkLanguage.ts) over a run's summary.json: the names and
// functions a sheet may use, checked when a sheet is published, and the evaluation of a checkpoint
// to passed / failed / not measurable with the numbers it compared (shown to students and in CSV).
import type { FlowSummary, RunSummary } from '../run/summary.js';
import { CheckSyntaxError, type Node, parseCheck } from './checkLanguage.js';

/** MSS with timestamps on a 1500-byte MTU path (bytes): what the lab's flows use. */
const MSS_BYTES = 1448;

type Value = number | string | boolean | null;

/** Not measurable in this run (a flow that never ran, a metric the run could not compute). */
class Unmeasurable extends Error {}

interface FnDef {
  args: string;
  doc: string;
  min: number;
  max: number;
  run: (s: RunSummary, a: Value[]) => Value;
}

const str = (v: Value | undefined, dflt: string): string => (v === undefined ? dflt : String(v));

const matches = (f: FlowSummary, sel: string) =>
  f.name === sel || f.stack === sel || f.name.startsWith(`${sel}-`);

function flowsOf(s: RunSummary, sel: Value | undefined): FlowSummary[] {
  const chosen = sel === undefined ? s.flows : s.flows.filter((f) => matches(f, String(sel)));
  if (chosen.length === 0) throw new Unmeasurable(`no flow named or of stack ${JSON.stringify(sel)}`);
  return chosen;
}

function pathOf(s: RunSummary, name: Value | undefined) {
  const p =
    s.paths.find((x) => x.name === str(name, 'main')) ?? (name === undefined ? s.paths[0] : undefined);
  if (!p) throw new Unmeasurable(`no path ${JSON.stringify(name)}`);
  return p;
}

const known = (v: number | null | undefined, what: string): number => {
  if (v === null || v === undefined || !Number.isFinite(v))
    throw new Unmeasurable(`${what} was not measured`);
  return v;
};

function direction(v: Value | undefined): 'forward' | 'reverse' {
  const d = str(v, 'forward');
  if (d !== 'forward' && d !== 'reverse') throw new Unmeasurable(`direction must be forward or reverse`);
  return d;
}

const sumGoodput = (fs: FlowSummary[]) =>
  fs.reduce((a, f) => a + known(f.goodputMbps.mean, `goodput of ${f.name}`), 0);

export const FUNCTIONS: Record<string, FnDef> = {
  jain: {
    args: '[path], [direction]',
    doc: "Jain's index of the flows sharing the bottleneck (0 to 1)",
    min: 0,
    max: 2,
    run: (s, [p, d]) => known(pathOf(s, p).jain[direction(d)], 'Jain’s index'),
  },
  utilisation: {
    args: '[path], [direction]',
    doc: 'bytes delivered over what the bottleneck could carry (0 to 1)',
    min: 0,
    max: 2,
    run: (s, [p, d]) => known(pathOf(s, p).utilisation[direction(d)], 'utilisation'),
  },
  goodput: {
    args: '[flow or stack]',
    doc: 'mean goodput in Mbit/s, summed over the flows chosen (all when none named)',
    min: 0,
    max: 1,
    run: (s, [sel]) => sumGoodput(flowsOf(s, sel)),
  },
  share: {
    args: 'flow or stack',
    doc: "the chosen flows' part of the goodput of all flows in their direction (forward first; 0 to 1)",
    min: 1,
    max: 1,
    run: (s, [sel]) => {
      // One direction only: a stack sending both ways (reverse P-TCP) is judged where it competes forward.
      const all = flowsOf(s, sel);
      const forward = all.filter((f) => f.direction === 'forward');
      const mine = forward.length ? forward : all;
      const dir = mine[0]?.direction ?? 'forward';
      const total = sumGoodput(s.flows.filter((f) => f.direction === dir));
      if (total <= 0) throw new Unmeasurable('no goodput at all');
      return sumGoodput(mine) / total;
    },
  },
  retransmits: {
    args: '[flow or stack]',
    doc: 'segments retransmitted, summed',
    min: 0,
    max: 1,
    run: (s, [sel]) => flowsOf(s, sel).reduce((a, f) => a + known(f.retransmits, 'retransmits'), 0),
  },
  rttmean: {
    args: '[flow or stack]',
    doc: 'mean RTT the senders measured (ms), averaged over the flows chosen',
    min: 0,
    max: 1,
    run: (s, [sel]) => {
      const fs = flowsOf(s, sel);
      return fs.reduce((a, f) => a + known(f.rttMs.mean, 'RTT'), 0) / fs.length;
    },
  },
  count: {
    args: '[flow or stack]',
    doc: 'how many flows',
    min: 0,
    max: 1,
    run: (s, [sel]) =>
      sel === undefined ? s.flows.length : s.flows.filter((f) => matches(f, String(sel))).length,
  },
  metric: {
    args: 'metric id, [flow or stack]',
    doc: 'a metric of the run (GET /api/metric-definitions), of the flows named (mean) or of the bottleneck',
    min: 1,
    max: 2,
    run: (s, [id, sel]) => {
      const want = String(id);
      if (sel !== undefined) {
        const names = new Set(flowsOf(s, sel).map((f) => f.name));
        const values = s.metrics.flows
          .filter((f) => names.has(f.flow))
          .flatMap((f) => f.metrics.filter((m) => m.id === want && m.value !== null).map((m) => m.value));
        if (!values.length) throw new Unmeasurable(`${want} of ${sel} was not measured`);
        return values.reduce((a, b) => a + b, 0) / values.length;
      }
      for (const g of s.metrics.groups) {
        const m = g.metrics.find((x) => x.id === want);
        if (m && m.value !== null) return m.value;
      }
      throw new Unmeasurable(`${want} was not measured`);
    },
  },
  theory: {
    args: 'metric id, [path]',
    doc: 'a closed-form reference the run computed (responsiveness, theory.bdp_packets, …)',
    min: 1,
    max: 2,
    run: (s, [id, p]) => {
      const group = s.metrics.theory.find((t) => t.path === str(p, 'main')) ?? s.metrics.theory[0];
      const m = group?.metrics.find((x) => x.id === String(id));
      return known(m?.value, `theory ${id}`);
    },
  },
  rate: {
    args: '[path]',
    doc: 'the configured bottleneck rate (bit/s)',
    min: 0,
    max: 1,
    run: (s, [p]) => pathOf(s, p).configured.rateMbps * 1e6,
  },
  rtt: {
    args: '[path]',
    doc: 'the configured base RTT (s)',
    min: 0,
    max: 1,
    run: (s, [p]) => pathOf(s, p).configured.rttMs / 1000,
  },
  buffer: {
    args: '[path]',
    doc: 'the configured forward bottleneck buffer (packets)',
    min: 0,
    max: 1,
    run: (s, [p]) => pathOf(s, p).configured.bufferPackets.forward,
  },
};

export const NAMES: Record<string, { doc: string; get: (s: RunSummary) => Value }> = {
  mss: { doc: 'the segment size of the lab’s flows (bytes)', get: () => MSS_BYTES },
  verdict: { doc: 'the run’s verdict: "valid", "suspect" or "invalid"', get: (s) => s.verdict },
  status: { doc: 'how the run ended: "completed", "failed" or "aborted"', get: (s) => s.status },
};

/** Parse and check every name and function (and its argument count); throws CheckSyntaxError. */
export function compileCheck(src: string): Node {
  const root = parseCheck(src);
  const visit = (n: Node): void => {
    switch (n.kind) {
      case 'name':
        if (!NAMES[n.name])
          throw new CheckSyntaxError(
            `unknown name ${n.name} (names: ${Object.keys(NAMES).join(', ')}; functions need parentheses)`,
            n.at,
          );
        return;
      case 'call': {
        const f = FUNCTIONS[n.name];
        if (!f)
          throw new CheckSyntaxError(
            `unknown function ${n.name}() (functions: ${Object.keys(FUNCTIONS).join(', ')})`,
            n.at,
          );
        if (n.args.length < f.min || n.args.length > f.max)
          throw new CheckSyntaxError(`${n.name}(${f.args}) takes ${f.min} to ${f.max} arguments`, n.at);
        n.args.forEach(visit);
        return;
      }
      case 'neg':
      case 'not':
        visit(n.arg);
        return;
      case 'bin':
      case 'cmp':
      case 'within':
      case 'logic':
        visit(n.left);
        visit(n.right);
        return;
      default:
        return;
    }
  };
  visit(root);
  if (!['cmp', 'within', 'logic', 'not'].includes(root.kind))
    throw new CheckSyntaxError('a checkpoint must compare (>=, <, ==, within … of …)', 1);
  return root;
}

export interface CheckResult {
  /** null: not measurable in this run (counts as not passed). */
  passed: boolean | null;
  /** The numbers compared, or why it could not be measured. */
  detail: string;
}

const fmt = (v: Value) => (typeof v === 'number' ? Number(v.toPrecision(4)).toString() : JSON.stringify(v));

function num(v: Value): number {
  if (typeof v !== 'number') throw new Unmeasurable(`${fmt(v)} is not a number`);
  return v;
}

export function evaluateCheck(src: string, s: RunSummary): CheckResult {
  const parts: string[] = [];
  const ev = (n: Node): Value => {
    switch (n.kind) {
      case 'num':
      case 'str':
        return n.value;
      case 'name':
        return NAMES[n.name]?.get(s) ?? null;
      case 'call':
        return (FUNCTIONS[n.name] as FnDef).run(s, n.args.map(ev));
      case 'neg':
        return -num(ev(n.arg));
      case 'not':
        return !ev(n.arg);
      case 'bin': {
        const a = num(ev(n.left));
        const b = num(ev(n.right));
        return n.op === '+'
          ? a + b
          : n.op === '-'
            ? a - b
            : n.op === '*'
              ? a * b
              : n.op === '/'
                ? a / b
                : a ** b;
      }
      case 'cmp': {
        const a = ev(n.left);
        const b = ev(n.right);
        parts.push(`${fmt(a)} ${n.op} ${fmt(b)}`);
        if (n.op === '==') return a === b;
        if (n.op === '!=') return a !== b;
        const x = num(a);
        const y = num(b);
        return n.op === '<' ? x < y : n.op === '<=' ? x <= y : n.op === '>' ? x > y : x >= y;
      }
      case 'within': {
        const a = num(ev(n.left));
        const b = num(ev(n.right));
        const off = b === 0 ? Math.abs(a) : Math.abs(a - b) / Math.abs(b);
        parts.push(`${fmt(a)} is ${fmt(off * 100)} % from ${fmt(b)} (allowed ${n.percent} %)`);
        return off <= n.percent / 100;
      }
      case 'logic': {
        const a = Boolean(ev(n.left));
        return n.op === 'and' ? a && Boolean(ev(n.right)) : a || Boolean(ev(n.right));
      }
    }
  };
  try {
    const passed = Boolean(ev(compileCheck(src)));
    return { passed, detail: parts.join('; ') };
  } catch (err) {
    if (err instanceof Unmeasurable) return { passed: null, detail: `not measurable: ${err.message}` };
    throw err;
  }
}
