// Pieces several dashboards share: variable filters and the verdict value mapping.

import { VERDICT_CODES } from '../influxContract.js';
import { matchVar } from '../influxql.js';

/** WHERE conditions for the Run dashboard's run / flow / stack variables. */
export const runFilter = [matchVar('run')];
export const flowFilter = [matchVar('run'), matchVar('flow'), matchVar('stack')];

/** verdict_code → text and colour. */
export const verdictMappings = [
  {
    type: 'value',
    options: {
      [String(VERDICT_CODES.valid)]: { color: 'green', index: 0, text: 'valid' },
      [String(VERDICT_CODES.suspect)]: { color: 'yellow', index: 1, text: 'suspect' },
      [String(VERDICT_CODES.invalid)]: { color: 'red', index: 2, text: 'invalid' },
    },
  },
];

/** A table override showing verdict_code as coloured text. */
export const verdictColumn = (column: string) => ({
  matcher: { id: 'byName', options: column },
  properties: [
    { id: 'mappings', value: verdictMappings },
    { id: 'custom.cellOptions', value: { type: 'color-text' } },
  ],
});

/** A table override for a column's unit. */
export const unitColumn = (column: string, unit: string) => ({
  matcher: { id: 'byName', options: column },
  properties: [{ id: 'unit', value: unit }],
});
