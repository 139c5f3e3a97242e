import { afterEach, describe, expect, it, vi } from 'vitest';
import { presetCommand } from './presetCommand.js';

afterEach(() => vi.restoreAllMocks());

async function show(name: string): Promise<{ code: number; text: string }> {
  const out: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((m: unknown) => {
    out.push(String(m));
  });
  const code = await presetCommand.run({}, ['show', name]);
  return { code, text: out.join('\n') };
}

const row = (text: string, label: string) =>
  text
    .split('\n')
    .find((l) => l.startsWith(`${label}  `))
    ?.trim()
    .split(/\s{2,}/)
    .map((c) => c.trim());

describe('lfnlab preset show', () => {
  it('prints the paper, the rule and the groups paper against ours', async () => {
    const { code, text } = await show('seed000-table4');
    expect(code).toBe(0);
    expect(text).toContain('seed000-table4: Bullot, Cottrell & Hughes-Jones 2003 (seed 000)');
    expect(text).toContain('scaling: rate × 0.0535, RTT × 1, run length × 0.25');
    expect(text).toContain('BDP over all runs: 144 packets here, 2701 in the paper');
    expect(text).toMatch(/^group\s+paper\s+ours\s+preserved$/m);
    expect(row(text, 'BDP (packets)')).toEqual(['BDP (packets)', '2701', '144', 'no']);
    expect(row(text, 'fast alpha / BDP')).toEqual(['fast alpha / BDP', '0.0370', '0.0346', 'yes']);
    expect(row(text, 'scalable ai_cnt / BDP')).toEqual(['scalable ai_cnt / BDP', '0.0370', '0.692', 'no']);
    // Each group not kept comes with the findings it bears on and what it likely does.
    expect(text).toContain('scalable.ai_cnt → claims order.with');
  });

  it('names the presets when the name is unknown', async () => {
    await expect(show('nope')).rejects.toThrow(/no preset 'nope'; there are: .*seed000-table4/);
  });
});
