// A campaign's results.csv, written and read back: one row per run (parameters, verdict, Jain,
// utilisation, each flow's goodput). Reading it back lets a committed table be summarised long
// after its run directories are gone.
import { csvCell, csvFields } from '../report/csv.js';
import type { CampaignRow } from './runCampaign.js';

const FIXED_BEFORE = ['id', 'label', 'repetition'] as const;
const FIXED_AFTER = ['status', 'verdict', 'jain_forward', 'utilisation_forward'] as const;
const GOODPUT = 'goodput_mbps_';

/** One CSV row per run: parameters, verdict, Jain, utilisation, each flow's goodput. */
export function toCsv(rows: CampaignRow[]): string {
  const params = [...new Set(rows.flatMap((r) => Object.keys(r.params)))];
  const flows = [...new Set(rows.flatMap((r) => Object.keys(r.goodputMbps)))];
  const head = [...FIXED_BEFORE, ...params, ...FIXED_AFTER, ...flows.map((f) => `${GOODPUT}${f}`)];
  const lines = rows.map((r) =>
    [
      r.id,
      r.label ?? r.id,
      r.repetition,
      ...params.map((p) => r.params[p]),
      r.status,
      r.verdict,
      r.jainForward,
      r.utilisationForward,
      ...flows.map((f) => r.goodputMbps[f]),
    ]
      .map(csvCell)
      .join(','),
  );
  return `${[head.join(','), ...lines].join('\n')}\n`;
}

/** Splits the text into lines (LF or CRLF), keeping a newline that sits inside quotes. */
function csvLines(text: string): string[] {
  const lines: string[] = [];
  let line = '';
  let quotes = 0;
  for (const c of text) {
    if (c === '\n' && quotes % 2 === 0) {
      lines.push(line);
      line = '';
      continue;
    }
    if (c === '"') quotes++;
    line += c;
  }
  if (line !== '') lines.push(line);
  return lines.map((l) => l.replace(/\r$/, '')).filter((l) => l.trim() !== '');
}

/** A varied value as the campaign wrote it: a number, a JSON list or object, or text. */
function paramValue(s: string): unknown {
  if (s === '') return undefined;
  if (/^[-+]?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(s)) return Number(s);
  if (/^[[{]/.test(s)) {
    try {
      return JSON.parse(s);
    } catch {
      return s;
    }
  }
  return s;
}

const metric = (s: string | undefined) => (s === undefined || s === '' ? null : Number(s));

/** The rows of a results.csv that `toCsv` wrote (the label column may be absent in old tables). */
export function fromCsv(text: string): CampaignRow[] {
  const [headLine, ...lines] = csvLines(text);
  if (headLine === undefined) return [];
  const head = csvFields(headLine);
  const at = (name: string) => head.indexOf(name);
  const missing = [...FIXED_BEFORE.filter((c) => c !== 'label'), ...FIXED_AFTER].filter((c) => at(c) < 0);
  if (missing.length > 0) throw new Error(`not a campaign results table: no column ${missing.join(', ')}`);
  const params = head.slice(at('repetition') + 1, at('status'));
  const flows = head.filter((c) => c.startsWith(GOODPUT));
  return lines.map((line) => {
    const f = csvFields(line);
    const get = (name: string) => f[at(name)];
    const row: CampaignRow = {
      id: get('id') ?? '',
      repetition: Number(get('repetition')),
      params: Object.fromEntries(
        params.flatMap((p) => {
          const v = paramValue(get(p) ?? '');
          return v === undefined ? [] : [[p, v]];
        }),
      ),
      status: (get('status') ?? 'missing') as CampaignRow['status'],
      verdict: (get('verdict') || null) as CampaignRow['verdict'],
      goodputMbps: Object.fromEntries(flows.map((c) => [c.slice(GOODPUT.length), metric(get(c))])),
      jainForward: metric(get('jain_forward')),
      utilisationForward: metric(get('utilisation_forward')),
    };
    const label = at('label') >= 0 ? get('label') : undefined;
    if (label) row.label = label;
    return row;
  });
}
