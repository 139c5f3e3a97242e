import { resolve } from 'node:path';
import {
  EXPORT_FORMATS,
  type ExportFormat,
  exportRun,
  kindOf,
  loadCampaign,
  writeReport,
} from '../report/index.js';
import { type Command, UsageError } from './args.js';

export const reportCommand: Command = {
  name: 'report',
  summary: 'an HTML report of a run or campaign, or export a run to CSV, JSON or Flent',
  usage: `usage: lfnlab report RUN_OR_CAMPAIGN_DIR [--out FILE.html] [--max-points N] [--no-run-reports]
       lfnlab report RUN_DIR --export csv|json|flent [--out PATH]

Report: one self-contained HTML file (inline CSS and SVG, no scripts, no external
resources) with the fidelity verdict first, the spec, idle RTT and calibration,
per-flow and per-bottleneck metric tables with every metric's definition, theory
values, and plots of goodput, cwnd, RTT, queue backlog, per-interval throughput
and lab CPU. Written to DIR/report.html unless --out is given. For a campaign:
every run's verdict and key metrics, means ± σ over repetitions, a stack × second
parameter matrix, and links to each run's own report (written too, unless
--no-run-reports).

  --max-points N     points per plotted line at most (min/max kept per bucket; default 2000)

Export (a run directory; for a campaign, every run is exported into its own directory):
  csv    one CSV per sample kind (tcp, goodput, queue, cpu, rtt, interval) in the
         directory PATH (default DIR/export-csv/); one row per sample, headers carry
         units (t_s, goodput_bps, srtt_ms, cwnd_packets, backlog_packets ...)
  json   summary, spec, environment, events and all samples in one file
         (default DIR/export.json)
  flent  Flent's data format, gzipped (default DIR/NAME.flent.gz), shaped like
         Flent's tcp_nup test: per-flow goodput as 'TCP upload::1'...'::N' in the
         spec's flow order ('TCP download::N' for reverse flows, rrul_be_nflows
         names for a mix), sums, 'Ping (ms) ICMP', TCP cwnd/RTT in the raw values,
         qdisc backlog and lab CPU, on a grid at the sample interval. Plot it with
         'flent -i FILE -p upload' (or totals, ping, tcp_cwnd, tcp_rtt, backlog, cpu).`,
  options: {
    out: { type: 'string', short: 'o' },
    export: { type: 'string' },
    'max-points': { type: 'string' },
    'no-run-reports': { type: 'boolean' },
  },
  async run(values, positionals) {
    const [dirArg, extra] = positionals;
    if (!dirArg || extra !== undefined) throw new UsageError(this.usage);
    const dir = resolve(dirArg);
    const kind = kindOf(dir);
    if (!kind) {
      console.error(
        `lfnlab report: ${dir} is neither a run directory (no summary.json) nor a campaign directory`,
      );
      return 2;
    }
    const out = typeof values.out === 'string' ? values.out : undefined;
    if (typeof values.export === 'string') {
      const format = values.export as ExportFormat;
      if (!EXPORT_FORMATS.includes(format))
        throw new UsageError(`--export must be one of ${EXPORT_FORMATS.join(', ')}\n\n${this.usage}`);
      if (kind === 'run') {
        for (const f of exportRun(dir, format, out)) console.log(f);
        return 0;
      }
      if (out)
        throw new UsageError(
          '--out cannot be used when exporting a campaign: each run is exported into its own directory',
        );
      for (const r of loadCampaign(dir).runs) {
        if (kindOf(r.dir) !== 'run') continue;
        for (const f of exportRun(r.dir, format)) console.log(f);
      }
      return 0;
    }
    let maxPointsPerLine: number | undefined;
    if (values['max-points'] !== undefined) {
      maxPointsPerLine = Number(values['max-points']);
      if (!Number.isInteger(maxPointsPerLine) || maxPointsPerLine < 10)
        throw new UsageError('--max-points must be a whole number of at least 10');
    }
    const w = writeReport(dir, { out, maxPointsPerLine, runReports: values['no-run-reports'] !== true });
    console.log(`${w.kind} report: ${w.file} (${(w.bytes / 1024).toFixed(0)} KiB)`);
    if (w.runReports.length) console.log(`  and ${w.runReports.length} run reports beside their runs`);
    return 0;
  },
};
