// `lfnlab campaign table`: a campaign's runs as cells with means and 95 % intervals, from its
// directory, its results.json or a committed results.csv.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Cell, cellsOf } from '../campaign/cellTable.js';
import { fromCsv } from '../campaign/resultsCsv.js';
import type { CampaignRow } from '../campaign/runCampaign.js';
import { fmt } from '../presets/fmt.js';
import { ciMethodText } from '../presets/verdict.js';
import { csvCell } from '../report/csv.js';
import { table } from './args.js';

export const CAMPAIGN_TABLE_HELP = `'table' gathers a campaign's runs into cells (each variant setting, its
repetitions together) and gives each measure's n, mean, standard deviation and
95 % CI: the wider of the seeded bootstrap and a Student t interval on the
jackknife error, as the presets' findings are judged ("t on N df" where the t
interval set an end). SOURCE is the campaign directory, its results.json or a
results.csv. Invalid runs (the lab could not carry them) are left out and
counted unless --with-invalid; --csv prints the table as CSV.`;

/** The runs of a campaign directory, results.json or results.csv. */
export function readCampaignRows(source: string): CampaignRow[] {
  if (!existsSync(source)) throw new Error(`${source}: no such file or directory`);
  const file = statSync(source).isDirectory() ? join(source, 'results.json') : source;
  if (!existsSync(file)) throw new Error(`${source}: no results.json (run the campaign first)`);
  const text = readFileSync(file, 'utf8');
  if (file.endsWith('.csv')) return fromCsv(text);
  return JSON.parse(text) as CampaignRow[];
}

const unitOf = (measure: string) =>
  measure.startsWith('goodput_mbps_') ? 'Mbit/s' : measure === 'utilisation_forward' ? 'of the link' : '';

function runsText(c: Cell): string {
  const n = Object.values(c.verdicts).reduce((a, b) => a + b, 0);
  const by = Object.entries(c.verdicts).map(([v, k]) => `${k} ${v}`);
  const left = [
    c.left.invalid > 0 ? `${c.left.invalid} invalid left out` : '',
    c.left.unfinished > 0 ? `${c.left.unfinished} unfinished` : '',
  ].filter(Boolean);
  return `${n} (${[...by, ...left].join(', ')})`;
}

/** One line per cell and measure. */
export function cellTableText(cells: readonly Cell[]): string {
  const rows = cells.flatMap((c) =>
    Object.entries(c.measures).map(([name, m]) => [
      c.label,
      runsText(c),
      name,
      m.n,
      `${fmt(m.mean)} ${unitOf(name)}`.trim(),
      m.sd === null ? '-' : fmt(m.sd),
      m.ci ? `${fmt(m.ci.low)} to ${fmt(m.ci.high)}${ciMethodText(m.ci)}` : 'one run: none',
    ]),
  );
  return table(['variant', 'runs', 'measure', 'n', 'mean', 'sd', '95 % CI'], rows);
}

/** The same table as CSV, full precision. */
export function cellTableCsv(cells: readonly Cell[]): string {
  const head = [
    'variant',
    'measure',
    'unit',
    'n',
    'mean',
    'sd',
    'ci_low',
    'ci_high',
    't_df',
    'verdicts',
    'invalid_left_out',
    'unfinished',
  ];
  const lines = cells.flatMap((c) =>
    Object.entries(c.measures).map(([name, m]) =>
      [
        c.label,
        name,
        unitOf(name),
        m.n,
        m.mean,
        m.sd,
        m.ci?.low,
        m.ci?.high,
        m.ci && ciMethodText(m.ci) ? m.ci.t?.df : '',
        Object.entries(c.verdicts)
          .map(([v, k]) => `${k} ${v}`)
          .join('; '),
        c.left.invalid,
        c.left.unfinished,
      ]
        .map(csvCell)
        .join(','),
    ),
  );
  return `${[head.join(','), ...lines].join('\n')}\n`;
}

export function campaignTable(source: string, opts: { csv: boolean; withInvalid: boolean }): string {
  const cells = cellsOf(readCampaignRows(source), { withInvalid: opts.withInvalid });
  if (cells.length === 0) throw new Error(`${source}: no runs in the table`);
  return opts.csv ? cellTableCsv(cells) : cellTableText(cells);
}
