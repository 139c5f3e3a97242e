// The committed dashboards are exactly what the generator makes, and they hang together: unique
// uids and panel ids, every datasource provisioned, every query time-bounded and naming only
// measurements, tags and fields of the InfluxDB contract (influxContract.ts) the backend writes by.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { nameProblems, queriesOf, type SchemaLike, variablesUsed } from '../test/support/grafana.js';
import type { Dashboard } from './dashboard.js';
import { generateDashboards } from './dashboards/index.js';
import { DASHBOARDS_DIR } from './generate.js';
import { DASHBOARDS, DATASOURCE_UID } from './ids.js';
import { INFLUX_SCHEMA, MEASUREMENTS, SAMPLE_COLUMNS } from './influxContract.js';
import { matchVar } from './influxql.js';

const grafanaDir = new URL('../', import.meta.url);
const read = (rel: string) => readFileSync(new URL(rel, grafanaDir), 'utf8');
const uncommented = (yaml: string) =>
  yaml
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n');
const generated = generateDashboards();
const dashboards: Dashboard[] = generated.map((g) => g.dashboard);

/** What queries may name: the contract's measurements, tags and fields. */
const allowed: SchemaLike = Object.fromEntries(
  Object.entries(INFLUX_SCHEMA).map(([m, s]) => [m, { tags: s.tags, fields: Object.keys(s.fields) }]),
);

describe('generated dashboards', () => {
  it('are exactly the committed files (run npm run generate -w grafana after changing the code)', () => {
    const committed = readdirSync(DASHBOARDS_DIR)
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(committed).toEqual(generated.map((g) => g.file).sort());
    for (const g of generated) {
      const text = readFileSync(`${DASHBOARDS_DIR}${g.file}`, 'utf8');
      expect(JSON.parse(text), g.file).toEqual(JSON.parse(g.text));
      expect(text, `${g.file}: same content, different layout`).toBe(g.text);
    }
  });

  it('cover the four dashboards with unique uids and titles, schemaVersion 42', () => {
    expect(dashboards.map((d) => d.uid).sort()).toEqual(
      Object.values(DASHBOARDS)
        .map((d) => d.uid)
        .sort(),
    );
    expect(new Set(dashboards.map((d) => d.title)).size).toBe(dashboards.length);
    for (const d of dashboards) expect(d.schemaVersion).toBe(42);
  });

  it('have unique panel ids and refIds, and panels on the 24-column grid without overlap', () => {
    for (const d of dashboards) {
      const ids = d.panels.map((p) => p.id);
      expect(new Set(ids).size, d.uid).toBe(ids.length);
      const cells = new Set<string>();
      for (const p of d.panels) {
        const { x, y, w, h } = p.gridPos;
        expect(x + w, `${d.uid} panel ${p.id}`).toBeLessThanOrEqual(24);
        for (let i = x; i < x + w; i++)
          for (let j = y; j < y + h; j++) {
            expect(cells.has(`${i},${j}`), `${d.uid} panel ${p.id} overlaps at ${i},${j}`).toBe(false);
            cells.add(`${i},${j}`);
          }
        const refIds = ((p.targets ?? []) as Array<{ refId: string }>).map((t) => t.refId);
        expect(new Set(refIds).size, `${d.uid} panel ${p.id}`).toBe(refIds.length);
        if (p.type !== 'row') expect(refIds.length, `${d.uid} panel ${p.id} has no query`).toBeGreaterThan(0);
      }
    }
  });

  it('name only the provisioned datasource, in panels, targets, variables and annotations', () => {
    const provisioned = parse(read('provisioning/datasources/lfnlab-influxdb.yaml')) as {
      datasources: Array<{ uid: string; type: string }>;
    };
    const uids = new Set(provisioned.datasources.map((d) => d.uid));
    expect(uids).toContain(DATASOURCE_UID);
    const refs: Array<{ at: string; ds: unknown }> = [];
    for (const d of dashboards) {
      for (const p of d.panels) {
        if (p.type === 'row') continue;
        refs.push({ at: `${d.uid} panel ${p.id}`, ds: p.datasource });
        for (const t of (p.targets ?? []) as Array<{ refId: string; datasource: unknown }>)
          refs.push({ at: `${d.uid} panel ${p.id} ${t.refId}`, ds: t.datasource });
      }
      for (const v of d.templating.list) refs.push({ at: `${d.uid} variable ${v.name}`, ds: v.datasource });
      for (const a of d.annotations.list)
        if (!('builtIn' in a)) refs.push({ at: `${d.uid} annotation ${a.name}`, ds: a.datasource });
    }
    expect(refs.length).toBeGreaterThan(40);
    for (const r of refs) {
      const ds = r.ds as { type?: string; uid?: string } | undefined;
      expect(ds?.type, r.at).toBe('influxdb');
      expect(uids.has(ds?.uid ?? ''), `${r.at}: datasource ${ds?.uid} is not provisioned`).toBe(true);
    }
  });

  it('bound every panel and annotation query with $timeFilter and use only defined variables', () => {
    for (const d of dashboards) {
      const defined = d.templating.list.map((v) => v.name);
      for (const q of queriesOf(d)) {
        if (q.kind !== 'variable') expect(q.query, `${q.dashboard} ${q.where}`).toContain('$timeFilter');
        for (const v of variablesUsed(q.query))
          expect(defined, `${q.dashboard} ${q.where} uses $${v}`).toContain(v);
      }
      // a chained variable only refers to variables defined before it
      d.templating.list.forEach((v, i) => {
        for (const used of variablesUsed(v.query))
          expect(defined.slice(0, i), `${d.uid} variable ${v.name}`).toContain(used);
      });
    }
  });

  it('name only measurements, tags and fields of the InfluxDB contract', () => {
    const problems = dashboards.flatMap((d) => queriesOf(d).flatMap((q) => nameProblems(q, allowed)));
    expect(problems).toEqual([]);
    // and every measurement the backend writes is shown somewhere
    const used = new Set(
      dashboards.flatMap((d) =>
        queriesOf(d).flatMap((q) => [...q.query.matchAll(/FROM "(\w+)"/g)].map((m) => m[1])),
      ),
    );
    for (const m of Object.keys(INFLUX_SCHEMA)) expect(used, m).toContain(m);
  });

  it('hold a contract with every measurement named once and every sample field in its table', () => {
    expect(Object.keys(INFLUX_SCHEMA).sort()).toEqual(Object.values(MEASUREMENTS).sort());
    for (const [kind, cols] of Object.entries(SAMPLE_COLUMNS)) {
      const m = MEASUREMENTS[kind as keyof typeof SAMPLE_COLUMNS];
      const influx = cols.flatMap((c: { influx?: string }) => (c.influx ? [c.influx] : []));
      expect(Object.keys(INFLUX_SCHEMA[m].fields), m).toEqual(influx);
      expect(new Set(cols.map((c) => c.json)).size, `${kind}: one row per JSON key`).toBe(cols.length);
    }
  });

  it('show Jain per path and direction, from lfn_fairness only', () => {
    const jainQueries = dashboards.flatMap((d) =>
      queriesOf(d)
        .filter((q) => /"jain"/.test(q.query))
        .map((q) => ({ uid: d.uid, ...q })),
    );
    // the Run, Campaign and Compare dashboards each show it
    expect(new Set(jainQueries.map((q) => q.uid))).toEqual(
      new Set([DASHBOARDS.run.uid, DASHBOARDS.campaign.uid, DASHBOARDS.compare.uid]),
    );
    for (const q of jainQueries) {
      expect(q.query, `${q.uid} ${q.where}`).toMatch(/FROM "lfn_fairness"/);
      // an aggregate is grouped by path and direction; a raw table selects both columns
      const grouped = /GROUP BY (?:time\([^)]*\), )?"path", "direction"/.test(q.query);
      const raw = /SELECT "run", "path", "direction", "jain"/.test(q.query);
      expect(grouped || raw, `${q.uid} ${q.where}: ${q.query}`).toBe(true);
    }
    const run = dashboards.find((d) => d.uid === DASHBOARDS.run.uid);
    const stat = run?.panels.find((p) => p.title === 'Jain fairness per path and direction');
    expect((stat?.targets as unknown[] | undefined)?.[0]).toMatchObject({
      alias: '$tag_path $tag_direction',
      query: `SELECT last("jain") FROM "lfn_fairness" WHERE ${matchVar('run')} AND $timeFilter GROUP BY "path", "direction"`,
    });
  });

  it('catch a field used as a tag, an unknown field and a $tag alias without its GROUP BY', () => {
    const q = (query: string, alias?: string) =>
      nameProblems(
        { dashboard: 't', where: 'q', query, kind: 'panel', ...(alias ? { alias } : {}) },
        allowed,
      );
    expect(
      q('SELECT mean("bps") FROM "lfn_goodput" WHERE $timeFilter GROUP BY "bytes_received"'),
    ).toHaveLength(1);
    expect(q('SELECT mean("nope") FROM "lfn_goodput" WHERE $timeFilter')).toHaveLength(1);
    expect(q('SELECT mean("bps") FROM "lfn_goodput" WHERE $timeFilter', '$tag_flow')).toHaveLength(1);
    expect(q('SELECT mean("bps") FROM "lfn_nope" WHERE $timeFilter').length).toBeGreaterThan(0);
    expect(
      q(
        'SELECT mean("bps") FROM "lfn_goodput" WHERE "run" =~ /^$run$/ AND $timeFilter GROUP BY "flow"',
        '$tag_flow',
      ),
    ).toEqual([]);
  });
});

describe('provisioning files', () => {
  type DsFile = {
    apiVersion: number;
    datasources: Array<
      Record<string, unknown> & {
        jsonData: Record<string, unknown>;
        secureJsonData?: Record<string, unknown>;
      }
    >;
  };
  const files = [
    'provisioning/datasources/lfnlab-influxdb.yaml',
    'provisioning/datasource-variants/lfnlab-influxdb2.yaml',
    'provisioning/datasource-variants/lfnlab-influxdb3.yaml',
  ];

  it('give one InfluxQL datasource each, uid lfnlab-influx, POST, URL and secrets from the environment', () => {
    for (const f of files) {
      const y = parse(read(f)) as DsFile;
      expect(y.apiVersion, f).toBe(1);
      expect(y.datasources, f).toHaveLength(1);
      const ds = y.datasources[0];
      expect(ds?.uid, f).toBe(DATASOURCE_UID);
      expect(ds?.type, f).toBe('influxdb');
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's own ${...} syntax, not a template
      expect(ds?.url, f).toBe('${LFNLAB_INFLUX_URL}');
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's own ${...} syntax, not a template
      expect(ds?.jsonData.dbName, f).toBe('${LFNLAB_INFLUX_DB}');
      expect(ds?.jsonData.httpMode, f).toBe('POST');
      expect(ds?.jsonData.version, f).toBe('InfluxQL');
      for (const v of Object.values(ds?.secureJsonData ?? {}))
        expect(String(v), `${f}: a secret must come from the environment`).toMatch(/\$\{LFNLAB_INFLUX_\w+\}/);
    }
    const v2 = (parse(read(files[1] ?? '')) as DsFile).datasources[0];
    expect(v2?.jsonData.httpHeaderName1).toBe('Authorization');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's own ${...} syntax, not a template
    expect(v2?.secureJsonData?.httpHeaderValue1).toBe('Token ${LFNLAB_INFLUX_TOKEN}');
  });

  it('and docker-compose.yml mounts what the provider reads and sets every variable they use', () => {
    const provider = parse(read('provisioning/dashboards/lfnlab.yaml')) as {
      providers: Array<{ type: string; options: { path: string } }>;
    };
    const path = provider.providers[0]?.options.path;
    const compose = parse(read('docker-compose.yml')) as {
      services: { grafana: { image: string; environment: Record<string, string>; volumes: string[] } };
    };
    const g = compose.services.grafana;
    expect(g.image).toMatch(/^grafana\/grafana:/);
    const mounts = g.volumes.map((v) => v.replace(/^\$\{[A-Z_]+:-([^}]+)\}/, '$1').split(':'));
    expect(mounts).toContainEqual(['./dashboards', path, 'ro']);
    for (const [src, target] of mounts) {
      if (src?.startsWith('./')) expect(existsSync(new URL(src, grafanaDir)), `${src} exists`).toBe(true);
      if (target?.startsWith('/etc/grafana/provisioning/'))
        expect(target).toMatch(/\/(datasources|dashboards)\/[\w-]+\.yaml$/);
    }
    for (const f of [...files, 'provisioning/dashboards/lfnlab.yaml']) {
      for (const m of uncommented(read(f)).matchAll(/\$\{(\w+)\}/g))
        expect(Object.keys(g.environment), `${f} uses ${m[1]}`).toContain(m[1]);
    }
  });
});
