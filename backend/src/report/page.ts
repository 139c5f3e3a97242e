// The HTML page around a report: inline CSS only, no external resources, readable without scripts.
import { esc, metricDef } from './format.js';

const CSS = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1a1a1a; background: #fff;
  margin: 0 auto; padding: 1.5rem; max-width: 1100px; line-height: 1.45; font-size: 15px; }
h1 { font-size: 1.7rem; margin: 0 0 .4rem; }
h2 { font-size: 1.3rem; margin: 2rem 0 .6rem; border-bottom: 2px solid #ccc; padding-bottom: .2rem; }
h3 { font-size: 1.08rem; margin: 1.4rem 0 .4rem; }
a { color: #0b57a4; }
nav ul { display: flex; flex-wrap: wrap; gap: .3rem 1rem; list-style: none; padding: 0; margin: .6rem 0; }
div.table-wrap { overflow-x: auto; max-width: 100%; }
table { border-collapse: collapse; margin: .4rem 0 1rem; font-size: .88rem; width: 100%; }
caption { text-align: left; font-weight: 600; padding: .3rem 0; caption-side: top; }
th, td { border: 1px solid #c8c8c8; padding: .2rem .4rem; vertical-align: top; }
th { background: #f0f2f5; text-align: left; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.nowrap { white-space: nowrap; }
.unit { font-weight: normal; color: #444; white-space: nowrap; }
.aside { font-weight: normal; color: #444; }
abbr[title] { text-decoration: underline dotted; cursor: help; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: .6rem 0; }
dl.meta dt { font-weight: 600; }
dl.meta dd { margin: 0; }
dl.defs dt { font-weight: 600; margin-top: .5rem; }
dl.defs dd { margin: 0 0 0 1rem; }
code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace; font-size: .9em; }
.verdict { border: 2px solid; border-radius: 6px; padding: .7rem 1rem; margin: .8rem 0; }
.verdict h2 { border: 0; margin: 0 0 .3rem; padding: 0; font-size: 1.35rem; }
.verdict ul { margin: .3rem 0 0; padding-left: 1.3rem; }
.verdict.valid { background: #e8f5ec; border-color: #1e7b34; color: #0b3d18; }
.verdict.suspect { background: #fff4e0; border-color: #b36200; color: #4d2a00; }
.verdict.invalid { background: #fde8ea; border: 5px solid #b00020; color: #5c000f; }
.verdict.invalid h2 { font-size: 1.6rem; }
.verdict.unknown { background: #eef0f3; border-color: #555; color: #1a1a1a; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 4px; font-weight: 600; font-size: .85rem; border: 1px solid; }
.badge.pass, .badge.valid, .badge.completed { background: #e8f5ec; color: #0b3d18; border-color: #1e7b34; }
.badge.warn, .badge.suspect { background: #fff4e0; color: #4d2a00; border-color: #b36200; }
.badge.fail, .badge.invalid, .badge.failed, .badge.aborted { background: #fde8ea; color: #5c000f; border-color: #b00020; }
.badge.skip, .badge.missing, .badge.none { background: #eef0f3; color: #333; border-color: #777; }
figure { margin: 1rem 0 1.6rem; }
figcaption { font-size: .9rem; color: #333; margin-top: .3rem; max-width: 60rem; }
svg.chart { max-width: 100%; height: auto; border: 1px solid #ddd; }
.note { color: #444; font-size: .9rem; }
.warn-text { color: #8a1020; font-weight: 600; }
details { margin: .5rem 0 1rem; }
summary { cursor: pointer; font-weight: 600; }
footer { margin-top: 3rem; font-size: .85rem; color: #444; border-top: 1px solid #ccc; padding-top: .5rem; }
@media print { body { max-width: none; } nav { display: none; } details { display: block; } }
`;

export function page(o: { title: string; body: string; lang?: string }): string {
  return `<!DOCTYPE html>
<html lang="${o.lang ?? 'en'}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="lfnlab report">
<title>${esc(o.title)}</title>
<style>${CSS}</style>
</head>
<body>
${o.body}
</body>
</html>
`;
}

/** A definitions list for the metric ids a report shows: title, unit, definition, source. */
export function definitionsList(ids: Iterable<string>): string {
  const items = [...new Set(ids)]
    .map((id) => ({ id, d: metricDef(id) }))
    .filter((x) => x.d)
    .map(({ id, d }) => {
      if (!d) return '';
      return `<dt id="def-${esc(id.replace(/[^A-Za-z0-9_-]/g, '-'))}">${esc(d.title)} <span class="unit">(${esc(d.unit)}; <code>${esc(id)}</code>)</span></dt><dd>${esc(d.definition)}${d.source ? ` <span class="note">Source: ${esc(d.source)}.</span>` : ''}</dd>`;
    });
  return items.length ? `<dl class="defs">${items.join('')}</dl>` : '<p class="note">No metrics.</p>';
}

export function badge(status: string | null | undefined, text?: string): string {
  const s = status ?? 'none';
  return `<span class="badge ${esc(s.replace(/[^a-z]/g, ''))}">${esc(text ?? s)}</span>`;
}

/** A table with a caption; cells are HTML already. */
const VERDICT_BADGE = { holds: 'pass', fails: 'fail', inconclusive: 'skip' } as const;

/** A finding's verdict as a badge in the verdict's colour. */
export const verdictBadge = (v: keyof typeof VERDICT_BADGE) => badge(VERDICT_BADGE[v], v);

/** Text made safe for one Markdown table cell. */
export const mdCell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function table(caption: string, head: string[], rows: string[][], o: { id?: string } = {}): string {
  const th = head.map((h) => `<th scope="col">${h}</th>`).join('');
  const body = rows
    .map(
      (r) =>
        `<tr>${r.map((c) => (c.startsWith('<td') || c.startsWith('<th') ? c : `<td>${c}</td>`)).join('')}</tr>`,
    )
    .join('\n');
  return `<div class="table-wrap"><table${o.id ? ` id="${esc(o.id)}"` : ''}><caption>${caption}</caption><thead><tr>${th}</tr></thead><tbody>
${body}
</tbody></table></div>`;
}
