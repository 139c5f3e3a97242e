// What was run: the paths, flows, idle RTT and calibration as configured and measured before
// traffic, and the run's event log; the inputs a reader needs before judging the results.
import type { PathSummary } from '../run/summary.js';
import { esc, fixed, int, isNum, num } from './format.js';
import type { RunData } from './load.js';
import { table } from './page.js';
import { NEUTRAL } from './palette.js';
import { type FlowInfo, pathsOf, runLengthS } from './series.js';
import { flowSeriesStyles } from './svg.js';

function amountText(a: { packets: number } | { bytes: number } | { bdp: number }): string {
  if ('packets' in a) return `${int(a.packets)} packets`;
  if ('bytes' in a) return `${int(a.bytes)} bytes`;
  return `${num(a.bdp, 3)} × BDP`;
}

function fmtBer(b: number | undefined | null) {
  return isNum(b) ? (b === 0 ? '0' : b.toExponential(1)) : '—';
}

/** A flow whose data began a second or more after its planned start (a lost SYN costs at least 1 s). */
function lateText(plannedS: number, dataStartS: number | null | undefined): string {
  if (dataStartS == null || dataStartS - plannedS < 1) return '';
  return ` <span class="warn-text">(data from ${esc(num(dataStartS, 3))} s)</span>`;
}
export function experimentSection(run: RunData, flows: FlowInfo[]): string {
  const spec = run.spec;
  const out: string[] = [];
  if (spec?.description) out.push(`<p>${esc(spec.description)}</p>`);
  const dur = runLengthS(run);
  out.push(
    `<p>Run length ${esc(num(dur, 4))} s; iperf3 interval ${esc(spec?.sampleInterval !== undefined ? num(spec.sampleInterval / 1000, 3) : '—')} s; fine samplers at ${esc(spec?.sampleHz ?? '—')} Hz; MTU ${esc(spec?.mtu ?? '—')} bytes.</p>`,
  );
  const summaries = new Map<string, PathSummary>((run.summary.paths ?? []).map((p) => [p.name, p]));
  const pathRows = pathsOf(run).map((name) => {
    const sp = spec?.paths?.[name];
    const ps = summaries.get(name);
    const rtt = sp?.rtt ?? ps?.configured.rttMs;
    const rate = sp?.rate !== undefined ? sp.rate / 1e6 : ps?.configured.rateMbps;
    const rrate = sp?.reverse?.rate !== undefined ? sp.reverse.rate / 1e6 : ps?.configured.reverseRateMbps;
    const buf = ps?.configured.bufferPackets;
    const changes = sp?.changes?.length
      ? sp.changes
          .map(
            (c) =>
              `at ${num(c.at / 1000, 4)} s: ${[c.rate !== undefined ? `${num(c.rate / 1e6, 4)} Mbit/s` : '', c.rtt !== undefined ? `${num(c.rtt, 4)} ms` : ''].filter(Boolean).join(', ')}`,
          )
          .join('; ')
      : 'none';
    return [
      `<th scope="row">${esc(name)}</th>`,
      `<td class="num">${esc(num(rtt, 4))} ms</td>`,
      `<td class="num">${esc(num(rate, 4))} Mbit/s</td>`,
      `<td class="num">${esc(num(rrate, 4))} Mbit/s</td>`,
      `<td class="num">${esc(buf ? `${int(buf.forward)} / ${int(buf.reverse)}` : '—')} packets</td>`,
      `<td class="num">${esc(fmtBer(sp?.ber ?? ps?.configured.ber))}</td>`,
      esc(sp?.aqm ?? 'fifo'),
      `<td class="num">${esc(sp?.jitter ? `${num(sp.jitter, 3)} ms (${sp.jitterDistribution ?? 'uniform'})` : '0 ms')}</td>`,
      esc(changes),
    ];
  });
  out.push(
    table(
      'Paths: the emulated long fat network',
      [
        'Path',
        'RTT <span class="unit">(ms)</span>',
        'Rate forward <span class="unit">(Mbit/s)</span>',
        'Rate reverse <span class="unit">(Mbit/s)</span>',
        'Bottleneck buffer forward / reverse <span class="unit">(packets)</span>',
        '<abbr title="Bit error rate applied to both directions">BER</abbr> <span class="unit">(errors/bit)</span>',
        '<abbr title="Queue discipline at the bottleneck">AQM</abbr>',
        'Jitter <span class="unit">(ms)</span>',
        'Changes during the run',
      ],
      pathRows,
    ),
  );
  const specFlows = new Map((spec?.flows ?? []).map((f) => [f.name, f]));
  const summaryFlows = new Map((run.summary.flows ?? []).map((f) => [f.name, f]));
  const flowRows = flows.map((f) => {
    const sf = specFlows.get(f.name);
    const sum = summaryFlows.get(f.name);
    const observed = sum?.observedStacks ?? [];
    const mismatch = observed.length > 0 && !observed.every((o) => o === f.stack);
    const extra = [
      sf?.rtt !== undefined ? `own RTT ${num(sf.rtt, 4)} ms` : '',
      sf?.bytes !== undefined ? `${int(sf.bytes)} bytes` : '',
      sf?.window !== undefined ? `window ${amountText(sf.window)}` : '',
      sf?.connect === 'together' && f.streams > 1 ? 'streams connect together (one iperf3 each)' : '',
    ]
      .filter(Boolean)
      .join(', ');
    return [
      `<th scope="row"><span aria-hidden="true" style="color:${flowSeriesStyles(flows).get(f.name)?.color ?? NEUTRAL.probe}">■</span> ${esc(f.name)}</th>`,
      esc(f.stack),
      observed.length
        ? `${esc(observed.join(', '))}${mismatch ? ' <span class="warn-text">(differs from the spec)</span>' : ''}`
        : '—',
      esc(f.path),
      esc(f.direction),
      `<td class="num">${esc(f.streams)}</td>`,
      `<td class="num">${esc(num(f.startS, 4))} s${lateText(f.startS, sum?.dataStartS)}</td>`,
      `<td class="num">${esc(num(f.durationS, 4))} s</td>`,
      esc(extra || '—'),
    ];
  });
  out.push(
    table(
      'Flows',
      [
        'Flow',
        'Stack',
        '<abbr title="Congestion control the kernel reported for the data sockets (ss -ti and the tcp sampler)">Observed stack</abbr>',
        'Path',
        'Direction',
        'Streams',
        'Start <span class="unit">(s)</span>',
        'Duration <span class="unit">(s)</span>',
        'Other',
      ],
      flowRows,
    ),
  );
  const idleRows = pathsOf(run).map((name) => {
    const idle = run.idleRtt?.[name] ?? summaries.get(name)?.idleRtt ?? null;
    const cal = run.calibration?.[name];
    const loaded = summaries.get(name)?.loadedRtt;
    return [
      `<th scope="row">${esc(name)}</th>`,
      `<td class="num">${esc(idle ? `${idle.received}/${idle.sent}` : '—')}</td>`,
      `<td class="num">${esc(idle ? `${fixed(idle.minMs, 2)} / ${fixed(idle.avgMs, 2)} / ${fixed(idle.maxMs, 2)} / ${fixed(idle.mdevMs, 2)}` : '—')}</td>`,
      `<td class="num">${esc(cal?.measuredMinMs !== undefined ? fixed(cal.measuredMinMs, 3) : '—')}</td>`,
      `<td class="num">${esc(cal?.excessMs !== undefined ? fixed(cal.excessMs, 3) : '—')}</td>`,
      `<td class="num">${esc(cal?.oneWayDelayMs !== undefined ? fixed(cal.oneWayDelayMs, 3) : '—')}</td>`,
      `<td class="num">${esc(loaded ? `${fixed(loaded.meanMs, 2)} / ${fixed(loaded.maxMs, 2)} (${loaded.samples})` : '—')}</td>`,
    ];
  });
  out.push(
    table(
      'Idle RTT and delay calibration (before traffic), and the RTT probe under load',
      [
        'Path',
        'Idle probe replies',
        'Idle RTT min / avg / max / mdev <span class="unit">(ms)</span>',
        '<abbr title="Minimum RTT measured before calibration, with the configured delay in place">Calibration: measured min</abbr> <span class="unit">(ms)</span>',
        '<abbr title="Delay the lab added on its own (veths, scheduling), removed from the netem delay">Excess removed</abbr> <span class="unit">(ms)</span>',
        '<abbr title="netem delay per direction after calibration">One-way netem delay</abbr> <span class="unit">(ms)</span>',
        'Loaded RTT mean / max <span class="unit">(ms; samples)</span>',
      ],
      idleRows,
    ),
  );
  // A campaign run on an earlier run's dumbbell: its idle RTT is its own, the calibration is not.
  const reusedFrom = [
    ...new Set(
      Object.values(run.calibration ?? {}).flatMap((c) =>
        typeof c.reusedFrom === 'string' ? [c.reusedFrom] : [],
      ),
    ),
  ];
  if (reusedFrom.length)
    out.push(
      `<p>Dumbbell and calibration kept from an earlier run of the campaign (${reusedFrom.map((d) => esc(d)).join(', ')}); the idle RTT above was measured in this run, on that calibration, before traffic.</p>`,
    );
  return out.join('\n');
}

export function eventsSection(run: RunData): string {
  if (!run.events.length) return '';
  const rows = run.events.map((e) => {
    const { at, type, ...rest } = e;
    const detail = JSON.stringify(rest);
    return [
      esc(at),
      esc(type),
      `<code>${esc(detail.length > 200 ? `${detail.slice(0, 199)}…` : detail)}</code>`,
    ];
  });
  return `<details><summary>Events (${run.events.length})</summary>${table('Run events in order', ['At (UTC)', 'Event', 'Detail'], rows)}</details>`;
}
