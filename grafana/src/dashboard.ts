// Builders for classic Grafana dashboard JSON (schemaVersion 42): panels, raw InfluxQL targets,
// query template variables and InfluxDB annotations. The builder lays panels out on the 24-column
// grid left to right and numbers panels and refIds, so dashboard files only say what to show.
import { DATASOURCE_UID } from './ids.js';

export const SCHEMA_VERSION = 42;

export interface DatasourceRef {
  type: 'influxdb';
  uid: string;
}

export const DS: DatasourceRef = { type: 'influxdb', uid: DATASOURCE_UID };

type JsonObject = Record<string, unknown>;

export interface TargetSpec {
  query: string;
  /** Grafana alias pattern: $tag_flow, $m (measurement), $col. */
  alias?: string;
  format?: 'time_series' | 'table';
}

export interface Target {
  refId: string;
  datasource: DatasourceRef;
  query: string;
  rawQuery: true;
  resultFormat: 'time_series' | 'table';
  alias?: string;
}

export const target = (query: string, alias?: string): TargetSpec => (alias ? { query, alias } : { query });
export const tableTarget = (query: string): TargetSpec => ({ query, format: 'table' });

export type PanelType = 'timeseries' | 'stat' | 'table' | 'bargauge';

export interface PanelSpec {
  title: string;
  description: string;
  targets: TargetSpec[];
  /** Grid width of 24, height in grid rows. */
  w?: number;
  h?: number;
  unit?: string;
  min?: number;
  max?: number;
  decimals?: number;
  /** Minimum GROUP BY interval for this panel (else the datasource's, 100ms). */
  interval?: string;
  /** Shown when a query returns nothing. */
  noValue?: string;
  mappings?: unknown[];
  overrides?: unknown[];
  custom?: JsonObject;
  options?: JsonObject;
  transformations?: unknown[];
}

export interface Panel {
  id: number;
  type: PanelType | 'row';
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  [k: string]: unknown;
}

export interface PanelDraft {
  type: PanelType;
  spec: PanelSpec;
  body: JsonObject;
}

const thresholds = { mode: 'absolute', steps: [{ color: 'green', value: null }] };

function fieldConfig(spec: PanelSpec, custom: JsonObject | undefined, color: JsonObject): JsonObject {
  const defaults: JsonObject = { color };
  if (custom) defaults.custom = { ...custom, ...spec.custom };
  if (spec.unit !== undefined) defaults.unit = spec.unit;
  if (spec.min !== undefined) defaults.min = spec.min;
  if (spec.max !== undefined) defaults.max = spec.max;
  if (spec.decimals !== undefined) defaults.decimals = spec.decimals;
  if (spec.noValue !== undefined) defaults.noValue = spec.noValue;
  defaults.mappings = spec.mappings ?? [];
  defaults.thresholds = thresholds;
  return { defaults, overrides: spec.overrides ?? [] };
}

/** A time series panel: lines, shared tooltip, legend table with mean and max. */
export const timeseries = (spec: PanelSpec): PanelDraft => ({
  type: 'timeseries',
  spec,
  body: {
    fieldConfig: fieldConfig(
      spec,
      {
        drawStyle: 'line',
        lineInterpolation: 'linear',
        lineWidth: 1,
        fillOpacity: 0,
        pointSize: 4,
        showPoints: 'never',
        spanNulls: false,
        axisPlacement: 'auto',
      },
      { mode: 'palette-classic' },
    ),
    options: {
      legend: { calcs: ['mean', 'max'], displayMode: 'table', placement: 'bottom', showLegend: true },
      tooltip: { mode: 'multi', sort: 'desc' },
      ...spec.options,
    },
  },
});

/** A single-value panel (last value unless options say otherwise). */
export const stat = (spec: PanelSpec): PanelDraft => ({
  type: 'stat',
  spec,
  body: {
    fieldConfig: fieldConfig(spec, undefined, { mode: 'thresholds' }),
    options: {
      colorMode: 'value',
      graphMode: 'none',
      justifyMode: 'auto',
      orientation: 'auto',
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      textMode: 'auto',
      ...spec.options,
    },
  },
});

/** A bar gauge: one bar per series (e.g. per stack from GROUP BY "stack"). */
export const barGauge = (spec: PanelSpec): PanelDraft => ({
  type: 'bargauge',
  spec,
  body: {
    fieldConfig: fieldConfig(spec, undefined, { mode: 'palette-classic' }),
    options: {
      displayMode: 'gradient',
      orientation: 'horizontal',
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      showUnfilled: true,
      valueMode: 'color',
      ...spec.options,
    },
  },
});

/** A table of `resultFormat: table` targets, frames merged and the time column hidden. */
export const table = (spec: PanelSpec): PanelDraft => ({
  type: 'table',
  spec,
  body: {
    fieldConfig: fieldConfig(spec, { align: 'auto', cellOptions: { type: 'auto' } }, { mode: 'thresholds' }),
    options: { cellHeight: 'sm', showHeader: true, ...spec.options },
    transformations: spec.transformations ?? [
      { id: 'merge', options: {} },
      { id: 'organize', options: { excludeByName: { Time: true } } },
    ],
  },
});

export interface QueryVariableSpec {
  name: string;
  label: string;
  description: string;
  query: string;
  multi?: boolean;
  includeAll?: boolean;
  /** Value used for "All" (raw regex, e.g. '.*'); without it Grafana ORs every value. */
  allValue?: string;
  /** 1 alphabetical asc, 2 alphabetical desc (newest run ids first: they start with a date). */
  sort?: 0 | 1 | 2 | 3 | 4 | 5 | 6;
}

export interface QueryVariable {
  name: string;
  label: string;
  type: 'query';
  query: string;
  multi: boolean;
  includeAll: boolean;
  allValue?: string;
  [k: string]: unknown;
}

export function queryVariable(v: QueryVariableSpec): QueryVariable {
  const multi = v.multi ?? false;
  const includeAll = v.includeAll ?? false;
  const all = includeAll
    ? multi
      ? { text: ['All'], value: ['$__all'] }
      : { text: 'All', value: '$__all' }
    : {};
  return {
    name: v.name,
    label: v.label,
    description: v.description,
    type: 'query',
    datasource: DS,
    query: v.query,
    definition: v.query,
    ...(v.allValue !== undefined ? { allValue: v.allValue } : {}),
    current: all,
    hide: 0,
    includeAll,
    multi,
    options: [],
    refresh: 1,
    regex: '',
    skipUrlSync: false,
    sort: v.sort ?? 1,
  };
}

export interface AnnotationSpec {
  name: string;
  query: string;
  textColumn: string;
  tagsColumn?: string;
  iconColor: string;
}

export interface Annotation {
  name: string;
  datasource: DatasourceRef;
  query: string;
  textColumn: string;
  tagsColumn: string;
  [k: string]: unknown;
}

/** An InfluxQL annotation: the query at the top level (Grafana before 9) and in `target` (after). */
export function annotation(a: AnnotationSpec): Annotation {
  const columns = { textColumn: a.textColumn, tagsColumn: a.tagsColumn ?? '', titleColumn: '' };
  return {
    name: a.name,
    datasource: DS,
    enable: true,
    hide: false,
    iconColor: a.iconColor,
    query: a.query,
    ...columns,
    target: {
      refId: 'Anno',
      query: a.query,
      rawQuery: true,
      fromAnnotations: true,
      textEditor: true,
      ...columns,
    },
  };
}

const builtInAnnotation = {
  builtIn: 1,
  datasource: { type: 'grafana', uid: '-- Grafana --' },
  enable: true,
  hide: true,
  iconColor: 'rgba(0, 211, 255, 1)',
  name: 'Annotations & Alerts',
  type: 'dashboard',
};

export interface DashboardSpec {
  uid: string;
  title: string;
  description: string;
  time: { from: string; to: string };
  refresh?: string;
}

export interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: QueryVariable[] };
  annotations: { list: Array<Annotation | typeof builtInAnnotation> };
  [k: string]: unknown;
}

const GRID_WIDTH = 24;
const REF_IDS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export class DashboardBuilder {
  private readonly panels: Panel[] = [];
  private readonly variables: QueryVariable[] = [];
  private readonly annotations: Annotation[] = [];
  private x = 0;
  private y = 0;
  private lineHeight = 0;

  constructor(private readonly spec: DashboardSpec) {}

  variable(v: QueryVariableSpec): this {
    this.variables.push(queryVariable(v));
    return this;
  }

  annotation(a: AnnotationSpec): this {
    this.annotations.push(annotation(a));
    return this;
  }

  private newLine() {
    if (this.x > 0) {
      this.y += this.lineHeight;
      this.x = 0;
      this.lineHeight = 0;
    }
  }

  /** A row header across the full width. */
  row(title: string): this {
    this.newLine();
    this.panels.push({
      id: this.panels.length + 1,
      type: 'row',
      title,
      collapsed: false,
      gridPos: { h: 1, w: GRID_WIDTH, x: 0, y: this.y },
      panels: [],
    });
    this.y += 1;
    return this;
  }

  panel(draft: PanelDraft): this {
    const { spec, type, body } = draft;
    const w = spec.w ?? 12;
    const h = spec.h ?? 8;
    if (w < 1 || w > GRID_WIDTH) throw new Error(`${spec.title}: width ${w} is not 1..${GRID_WIDTH}`);
    if (spec.targets.length === 0 || spec.targets.length > REF_IDS.length)
      throw new Error(`${spec.title}: 1..26 targets`);
    if (this.x + w > GRID_WIDTH) this.newLine();
    const targets: Target[] = spec.targets.map((t, i) => ({
      refId: REF_IDS[i] ?? 'Z',
      datasource: DS,
      query: t.query,
      rawQuery: true,
      resultFormat: t.format ?? 'time_series',
      ...(t.alias ? { alias: t.alias } : {}),
    }));
    this.panels.push({
      id: this.panels.length + 1,
      type,
      title: spec.title,
      description: spec.description,
      gridPos: { h, w, x: this.x, y: this.y },
      datasource: DS,
      ...(spec.interval ? { interval: spec.interval } : {}),
      targets,
      ...body,
    });
    this.x += w;
    this.lineHeight = Math.max(this.lineHeight, h);
    return this;
  }

  build(): Dashboard {
    const s = this.spec;
    return {
      uid: s.uid,
      title: s.title,
      description: s.description,
      tags: ['lfnlab'],
      editable: true,
      graphTooltip: 1,
      fiscalYearStartMonth: 0,
      liveNow: false,
      refresh: s.refresh ?? '',
      schemaVersion: SCHEMA_VERSION,
      time: s.time,
      timepicker: {},
      timezone: 'browser',
      weekStart: '',
      version: 1,
      links: [
        {
          asDropdown: true,
          icon: 'external link',
          includeVars: false,
          keepTime: true,
          tags: ['lfnlab'],
          targetBlank: false,
          title: 'lfnlab dashboards',
          tooltip: '',
          type: 'dashboards',
          url: '',
        },
      ],
      annotations: { list: [builtInAnnotation, ...this.annotations] },
      templating: { list: this.variables },
      panels: this.panels,
    };
  }
}
