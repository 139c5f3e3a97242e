import { describe, expect, it } from 'vitest';
import { METRICS, type MetricId, metricValue, movedMetricsText } from './registry.js';

const UNITS = ['bit/s', 'bytes', 'packets', 's', 'ms', 'ratio', 'flows', 'errors/s', 'MHz/(Mbit/s)'];

describe('METRICS registry', () => {
  const defs = Object.entries(METRICS);

  it('files each definition under its own id', () => {
    for (const [key, def] of defs) expect(def.id).toBe(key);
  });

  it('uses stable, lower-case dotted ids', () => {
    for (const [id] of defs) expect(id).toMatch(/^[a-z0-9_]+(\.[a-z0-9_]+)*$/);
  });

  it('gives every metric a title, a known unit and a one-line definition', () => {
    for (const [, def] of defs) {
      expect(def.title.length).toBeGreaterThan(3);
      expect(UNITS).toContain(def.unit);
      expect(def.definition.length).toBeGreaterThan(10);
      expect(def.definition).not.toMatch(/\n/);
    }
  });

  it('covers the metrics issue 3 asks for', () => {
    const required: MetricId[] = [
      'jain.whole',
      'jain.second_half',
      'jain.per_interval',
      'jain.active_set',
      'stability.sigma_over_mu',
      'asymmetry',
      'efficiency',
      'performance.score',
      'convergence.time',
      'equivalence.reno_flows',
      'recovery.time',
      'responsiveness',
      'rampup.time_50',
      'rampup.bytes_90',
      'retransmit.rate',
      'theory.per',
      'theory.n_flow_link_use',
    ];
    for (const id of required) expect(METRICS[id]).toBeDefined();
  });
});

describe('metricValue', () => {
  it('takes the unit from the registry', () => {
    expect(metricValue('throughput.mean', 4.2e8)).toEqual({
      id: 'throughput.mean',
      value: 4.2e8,
      unit: 'bit/s',
    });
    expect(metricValue('rtt.mean', 120)).toMatchObject({ unit: 'ms' });
  });

  it('serialises "did not happen" (NaN) as null', () => {
    expect(JSON.parse(JSON.stringify(metricValue('convergence.time', Number.NaN)))).toEqual({
      id: 'convergence.time',
      value: null,
      unit: 's',
    });
  });

  it('rejects an unknown id from untyped callers', () => {
    expect(() => metricValue('jain.hole' as MetricId, 1)).toThrow(/unknown metric id/);
  });
});

describe('movedMetricsText', () => {
  it('names each moved metric once, and counts the rest when there are many', () => {
    expect(movedMetricsText(['main.forward stability.aggregate'])).toBe('stability.aggregate');
    expect(movedMetricsText(['flow:a rtt.mean', 'flow:b rtt.mean', 'main.forward efficiency'])).toBe(
      'rtt.mean, efficiency',
    );
    const many = ['a', 'b', 'c', 'd', 'e'].map((x) => `flow:t ${x}`);
    expect(movedMetricsText(many)).toBe('a, b, c and 2 more');
    expect(movedMetricsText([])).toBe('none');
  });
});
