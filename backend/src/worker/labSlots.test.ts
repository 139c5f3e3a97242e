import { describe, expect, it } from 'vitest';
import { poolLabNames } from '../service/labDriver.js';
import { LabSlots } from './labSlots.js';

describe('a worker’s lab slots', () => {
  it('names its labs as serve --labs does, hands out free ones in order and takes them back', () => {
    expect(poolLabNames(3)).toEqual(['default', 'default-2', 'default-3']);
    expect(poolLabNames(2, 'ci')).toEqual(['ci', 'ci-2']);
    const slots = new LabSlots(poolLabNames(2));
    let changes = 0;
    slots.on('change', () => changes++);
    expect(slots.take('r1')).toBe('default');
    expect(slots.take('r2')).toBe('default-2');
    expect(slots.take('r3')).toBeNull();
    expect(slots.free).toBe(0);
    slots.give('default');
    expect(slots.state()).toEqual([
      { name: 'default', runId: null },
      { name: 'default-2', runId: 'r2' },
    ]);
    expect(slots.take('r3')).toBe('default');
    slots.give('nope');
    expect(changes).toBe(4);
  });
});
