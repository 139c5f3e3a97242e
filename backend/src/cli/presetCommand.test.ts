import { describe, expect, it } from 'vitest';
import type { PresetCost } from '../presets/cost.js';
import type { RunsInfo } from '../presets/publish.js';
import { reproductionCell } from './presetCommand.js';

const cost = (done: number) => ({ runs: 27, done, wallS: 5760 }) as PresetCost;
const published = { runs: { planned: 27, completed: 27 } } as RunsInfo;

describe("a preset's reproduction in 'lfnlab preset list'", () => {
  it('says a reproduction is published when this checkout has no campaign directory for it', () => {
    expect(reproductionCell(cost(0), 60, published)).toBe('27 × 60 s, published (27 of 27 runs)');
    expect(reproductionCell(cost(0), 60)).toBe('27 × 60 s, ~1.6 h');
  });

  it('prefers the runs the campaign directory holds', () => {
    expect(reproductionCell(cost(27), 60, published)).toBe('27 × 60 s, all done, published (27 of 27 runs)');
    expect(reproductionCell(cost(27), 60)).toBe('27 × 60 s, all done');
    expect(reproductionCell(cost(9), 60, published)).toMatch(/^27 × 60 s, 9 done, ~.* left$/);
  });
});
