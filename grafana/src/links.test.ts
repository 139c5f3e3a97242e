import { describe, expect, it } from 'vitest';
import { grafanaCampaignUrl, grafanaCompareUrl, grafanaRunUrl } from './links.js';

describe('grafanaRunUrl', () => {
  it('opens the Run dashboard on the run, its time range and all flows', () => {
    const url = new URL(
      grafanaRunUrl('http://127.0.0.1:3000/', {
        run: '20251121-101500-demo',
        fromMs: 1_700_000_000_000,
        toMs: 1_700_000_030_000,
      }),
    );
    expect(url.origin + url.pathname).toBe('http://127.0.0.1:3000/d/lfnlab-run/lfnlab-run');
    expect(url.searchParams.get('from')).toBe('1700000000000');
    expect(url.searchParams.get('to')).toBe('1700000030000');
    expect(url.searchParams.get('var-run')).toBe('20251121-101500-demo');
    expect(url.searchParams.getAll('var-flow')).toEqual(['$__all']);
    expect(url.searchParams.get('orgId')).toBe('1');
  });

  it('selects given flows, keeps a sub-path, encodes odd characters and leaves a live run open-ended', () => {
    const s = grafanaRunUrl('https://lab.example/grafana', {
      run: 'a b&c',
      fromMs: 1000.4,
      flows: ['cubic-1', 'bbr 1'],
    });
    const url = new URL(s);
    expect(url.pathname).toBe('/grafana/d/lfnlab-run/lfnlab-run');
    expect(url.searchParams.get('var-run')).toBe('a b&c');
    expect(url.searchParams.getAll('var-flow')).toEqual(['cubic-1', 'bbr 1']);
    expect(url.searchParams.get('from')).toBe('1000');
    expect(url.searchParams.get('to')).toBe('now');
    expect(url.searchParams.get('refresh')).toBe('5s');
    expect(s).not.toContain(' ');
  });

  it('rejects what would make a broken link', () => {
    expect(() => grafanaRunUrl('127.0.0.1:3000', { run: 'r', fromMs: 0, toMs: 1 })).toThrow(/base URL/);
    expect(() => grafanaRunUrl('http://g', { run: '', fromMs: 0, toMs: 1 })).toThrow(/run/);
    expect(() => grafanaRunUrl('http://g', { run: 'r', fromMs: 5, toMs: 1 })).toThrow(/before/);
    expect(() => grafanaRunUrl('http://g', { run: 'r', fromMs: Number.NaN, toMs: 1 })).toThrow(/fromMs/);
  });
});

describe('compare and campaign links', () => {
  it('carry every run, or the campaign', () => {
    const c = new URL(grafanaCompareUrl('http://g:3000', { runs: ['r1', 'r2'], fromMs: 1, toMs: 2 }));
    expect(c.pathname).toBe('/d/lfnlab-compare/lfnlab-compare');
    expect(c.searchParams.getAll('var-run')).toEqual(['r1', 'r2']);
    const k = new URL(grafanaCampaignUrl('http://g:3000', { campaign: 'sweep-1', fromMs: 1 }));
    expect(k.pathname).toBe('/d/lfnlab-campaign/lfnlab-campaign');
    expect(k.searchParams.get('var-campaign')).toBe('sweep-1');
    expect(() => grafanaCompareUrl('http://g', { runs: [], fromMs: 1, toMs: 2 })).toThrow();
  });
});
