// Variant labels: what people read instead of ids like 003-_rtt_120ms_rate_50Mbit_b-r1. Checked on
// the presets' real vary shapes (scalar lists, whole flows, whole paths, cross-traffic lists).
import { describe, expect, it } from 'vitest';
import { loadPresets } from '../presets/index.js';
import { expandCampaign, parseCampaignText } from './expand.js';
import { amountText, berText, rateText, timeText, uniqueLabels, variantLabel } from './variantLabel.js';

const presets = loadPresets();
const partOf = (name: string, part = 'main') => {
  const p = presets.find((x) => x.name === name);
  const c = p?.parts.find((x) => x.name === part)?.campaign;
  if (!c) throw new Error(`no preset ${name} part ${part}`);
  return c;
};
/** Labels by variant id, in the file's order. */
const labelsOf = (name: string, part?: string) => {
  const vs = expandCampaign({ ...partOf(name, part), order: 'sequential' });
  return vs.map((v) => v.label);
};

describe('units in labels', () => {
  it('says rates, times, amounts and bit error rates the way people write them', () => {
    expect(rateText('100Mbit')).toBe('100 Mbit/s');
    expect(rateText('1.5Gbit/s')).toBe('1.5 Gbit/s');
    expect(rateText('622Mbit')).toBe('622 Mbit/s');
    expect(rateText('500kbit')).toBe('500 kbit/s');
    expect(rateText('10%')).toBe('10 %');
    expect(timeText('120ms')).toBe('120 ms');
    expect(timeText('0.38ms')).toBe('0.38 ms');
    expect(timeText('60s')).toBe('60 s');
    expect(timeText('2min')).toBe('120 s');
    expect(amountText('0.5bdp')).toBe('0.5 BDP');
    expect(amountText(100)).toBe('100 packets');
    expect(amountText('64KiB')).toBe('64 KiB');
    expect(amountText('1MB')).toBe('1 MB');
    expect(berText(1e-7)).toBe('BER 1e-7');
    expect(berText(3.87e-11)).toBe('BER 3.87e-11');
    expect(berText(0)).toBe('BER 0');
  });
});

describe('variantLabel', () => {
  const campaign = parseCampaignText(`
name: resp
base:
  name: resp
  duration: 10s
  paths: { main: { rtt: 100ms, rate: 100Mbit } }
  flows: [{ stack: reno }]
vary:
  flows[0].stack: [reno, cubic]
  paths.main.rate: [100Mbit, 1Gbit]
  paths.main.rtt: [20ms, 120ms]
  paths.main.buffer: [0.5bdp, 2bdp]
  paths.main.ber: [0, 1e-7]
  flows[0].window: [64KiB, 2MB]
  duration: [10s, 20s]
repeat: 3
`);

  it('names the varied parameters in vary order, each with its unit, then the repetition (1-based)', () => {
    const v = expandCampaign(campaign).find(
      (x) =>
        x.params['flows[0].stack'] === 'reno' &&
        x.params['paths.main.rate'] === '100Mbit' &&
        x.params['paths.main.rtt'] === '120ms' &&
        x.params['paths.main.ber'] === 1e-7 &&
        x.params['flows[0].window'] === '64KiB' &&
        x.params['paths.main.buffer'] === '0.5bdp' &&
        x.params.duration === '20s' &&
        x.repetition === 2,
    );
    expect(v?.label).toBe(
      'reno · 100 Mbit/s · 120 ms · buffer 0.5 BDP · BER 1e-7 · window 64 KiB · duration 20 s · rep 2',
    );
    // The id is untouched: directories and URLs keep using it.
    expect(v?.id).toMatch(/^\d{3}-reno-100Mbit-120ms-0\.5bdp-1e-7-64KiB-20s-r2$/);
  });

  it('leaves out parameters with one value, and says rep only when the campaign repeats', () => {
    const c = { vary: { 'flows[0].stack': ['reno', 'cubic'], 'paths.main.rtt': ['50ms'] }, repeat: 1 };
    expect(
      variantLabel({ params: { 'flows[0].stack': 'cubic', 'paths.main.rtt': '50ms' }, repetition: 1 }, c),
    ).toBe('cubic');
    expect(variantLabel({ params: {}, repetition: 1 }, { vary: {}, repeat: 1 })).toBe('base spec');
    expect(variantLabel({ params: {}, repetition: 3 }, { vary: {}, repeat: 3 })).toBe('rep 3');
  });

  it('numbers variants whose values read the same, so labels stay unique', () => {
    const c = { vary: { 'paths.main.rate': ['100Mbit', '0.1Gbit'] }, repeat: 1 };
    const labels = uniqueLabels(
      [
        { id: '001-100Mbit-r1', params: { 'paths.main.rate': '100Mbit' }, repetition: 1 },
        { id: '002-0.1Gbit-r1', params: { 'paths.main.rate': '0.1Gbit' }, repetition: 1 },
      ],
      c,
    );
    expect(labels).toEqual(['100 Mbit/s · #1', '100 Mbit/s · #2']);
  });
});

describe('labels of the presets', () => {
  it('seed003-responsiveness (whole paths varied): rate and RTT, then the repetition; the buffer, the same in every path, left out', () => {
    const labels = labelsOf('seed003-responsiveness');
    expect(labels.slice(0, 2)).toEqual(['50 Mbit/s · 120 ms · rep 1', '50 Mbit/s · 120 ms · rep 2']);
    expect(labels).toContain('25 Mbit/s · 120 ms · rep 2');
    expect(labels).toContain('50 Mbit/s · 60 ms · rep 2');
    expect(labels.some((l) => l.includes('buffer'))).toBe(false);
  });

  it('seed000-table1 (whole flows varied): only the fields the flows differ in, streams with the stack', () => {
    const labels = labelsOf('seed000-table1', 'caltech');
    expect(labels[0]).toBe('reno · window 0.51 BDP');
    expect(labels).toContain('reno (16 streams) · window 1.02 BDP');
    expect(labels).toContain('hstcplp · window 2.05 BDP');
    // The flow's name (the same in every value) is not repeated in every label.
    expect(labels.some((l) => l.includes('test'))).toBe(false);
  });

  it('seed004-maxbw: windows and transfer sizes as written, paths by what differs', () => {
    const labels = labelsOf('seed004-maxbw');
    expect(labels[0]).toBe('reno · window 64 KiB · 100 MB · 61 ms · buffer 1 BDP · rep 1');
    expect(labels).toContain(
      'reno (26 streams) · window 64 KiB · 1 GB · 0.38 ms · buffer 100 packets · rep 3',
    );
    expect(labels).toContain('cubic · 1 GB · 61 ms · buffer 1 BDP · rep 2');
  });

  it('a byte count that scaling left bare reads in decimal units', () => {
    const label = (bytes: string) =>
      variantLabel(
        { params: { 'flows[0].bytes': bytes }, repetition: 1 },
        { vary: { 'flows[0].bytes': [bytes, '1B'] }, repeat: 1 },
      );
    expect(label('250000000B')).toContain('250 MB');
    expect(label('1000000000B')).toContain('1 GB');
    expect(label('12345B')).toContain('12.3 kB');
    expect(label('100MB')).toContain('100 MB');
  });

  it('cross traffic and bit errors in words', () => {
    expect(labelsOf('seed000-sinusoidal')).toContain(
      'reno (16 streams together) · window 1.14 BDP · sine 12.5 % ± 7.5 % period 30 s',
    );
    expect(labelsOf('seed002-cbr')).toEqual(
      expect.arrayContaining(['reno · no cross traffic', 'scalable · CBR 90 %']),
    );
    expect(labelsOf('seed002-selfsimilar')).toContain('highspeed · cross mean 30 %');
    expect(labelsOf('seed003-ber')).toContain('grid · BER 6.19e-8');
    expect(labelsOf('seed001-sst')).toContain('cubic · 12 flows');
    expect(labelsOf('seed002-equivalence')).toContain('scalable · reno · 1 stream');
  });

  it('every part of every preset: labels unique within the campaign, short enough to read, no JSON', () => {
    for (const p of presets)
      for (const part of p.parts) {
        const labels = expandCampaign(part.campaign).map((v) => v.label);
        expect(new Set(labels).size, `${p.name}/${part.name}`).toBe(labels.length);
        for (const l of labels) {
          expect(l, `${p.name}/${part.name}`).not.toMatch(/[{}[\]"]|#\d/);
          expect(l.length, `${p.name}/${part.name}: ${l}`).toBeLessThanOrEqual(90);
        }
      }
  });
});
