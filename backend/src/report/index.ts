// lfnlab report: a self-contained HTML report of a run or a campaign directory, and exports of a
// run's samples to CSV, JSON and Flent's data format.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { renderCampaignReport } from './campaignReport.js';
import { exportCsv, exportFlent, exportJson } from './exports.js';
import { isCampaignDir, isRunDir, loadCampaign, loadRun } from './load.js';
import { renderRunReport } from './runReport.js';

export * from './campaignReport.js';
export * from './downsample.js';
export * from './exports.js';
export * from './load.js';
export * from './replay.js';
export * from './runReport.js';
export * from './svg.js';

export type ExportFormat = 'csv' | 'json' | 'flent';
export const EXPORT_FORMATS: ExportFormat[] = ['csv', 'json', 'flent'];

export interface WriteReportOptions {
  out?: string;
  maxPointsPerLine?: number;
  /** Campaigns: also write each run's report.html (default true). */
  runReports?: boolean;
  now?: Date;
}

export interface WrittenReport {
  kind: 'run' | 'campaign';
  file: string;
  bytes: number;
  /** Campaigns: the run reports written alongside. */
  runReports: string[];
}

export function kindOf(dir: string): 'run' | 'campaign' | null {
  if (isRunDir(dir)) return 'run';
  if (isCampaignDir(dir)) return 'campaign';
  return null;
}

function write(file: string, html: string): number {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, html);
  return Buffer.byteLength(html);
}

const href = (from: string, to: string) => relative(dirname(from), to).split(sep).join('/');

/** Writes the report of a run or campaign directory; default file: report.html inside it. */
export function writeReport(dirIn: string, o: WriteReportOptions = {}): WrittenReport {
  const dir = resolve(dirIn);
  const kind = kindOf(dir);
  if (!kind)
    throw new Error(
      `${dir} is neither a run directory (summary.json) nor a campaign directory (campaign.json)`,
    );
  const file = resolve(o.out ?? join(dir, 'report.html'));
  if (kind === 'run') {
    const html = renderRunReport(loadRun(dir), { maxPointsPerLine: o.maxPointsPerLine, now: o.now });
    return { kind, file, bytes: write(file, html), runReports: [] };
  }
  const campaign = loadCampaign(dir);
  const runReports = new Map<string, string>();
  if (o.runReports !== false) {
    for (const r of campaign.runs) {
      if (!isRunDir(r.dir)) continue;
      const runFile = join(r.dir, 'report.html');
      const html = renderRunReport(loadRun(r.dir), {
        maxPointsPerLine: o.maxPointsPerLine,
        now: o.now,
        backLink: [href(runFile, file), `campaign ${campaign.name}`],
        ...(r.label === r.id ? {} : { label: r.label }),
      });
      write(runFile, html);
      runReports.set(r.id, runFile);
    }
  }
  const html = renderCampaignReport(campaign, {
    now: o.now,
    runHref: (r) => {
      const f = runReports.get(r.id);
      if (f) return href(file, f);
      return existsSync(r.dir) ? `${href(file, r.dir)}/` : null;
    },
  });
  return { kind, file, bytes: write(file, html), runReports: [...runReports.values()] };
}

/** Default place of an export inside the run directory. */
export function defaultExportPath(dir: string, format: ExportFormat, name: string): string {
  const safe = name.replace(/[^A-Za-z0-9_.-]/g, '_');
  return format === 'csv'
    ? join(dir, 'export-csv')
    : format === 'json'
      ? join(dir, 'export.json')
      : join(dir, `${safe}.flent.gz`);
}

/** Exports one run; returns the files written. */
export function exportRun(dirIn: string, format: ExportFormat, out?: string): string[] {
  const dir = resolve(dirIn);
  const run = loadRun(dir);
  const target = resolve(out ?? defaultExportPath(dir, format, run.summary.name));
  if (format === 'csv') return exportCsv(run, target);
  if (format === 'json') return [exportJson(run, target)];
  return [exportFlent(run, target)];
}
