import { SpecSchema } from '@lfnlab/emulator/spec';
import { describe, expect, it } from 'vitest';
import { toSpecInput } from './specInput';

describe('toSpecInput', () => {
  it('is the inverse of the schema transform (normalise ∘ toSpecInput = normalise)', () => {
    const written = {
      name: 'inv',
      duration: '20s',
      paths: {
        main: {
          rtt: '120ms',
          rate: '100Mbit',
          buffer: '0.2bdp',
          ber: 3.87e-8,
          cross: [{ pattern: 'cbr', rate: '10Mbit' }],
          changes: [{ at: '5s', rtt: '60ms' }],
        },
      },
      stackParams: { fast: { alpha: 16 } },
      flows: [
        { name: 'test', stack: 'reno', window: '1.1bdp' },
        { name: 'late', stack: 'cubic', start: '5s', duration: '10s', direction: 'reverse' },
        { name: 'many', stack: 'reno', streams: 4, connect: 'together', omit: '2s' },
        { name: 'striped', transport: 'psockets', stack: 'reno', streams: 4, bytes: '10MB' },
        { name: 'blast', transport: 'rbudp', bytes: '10MB' },
        { name: 'udt', transport: 'udt', bytes: '10MB', rate: '20Mbit' },
      ],
    };
    const normal = SpecSchema.parse(written);
    const again = SpecSchema.parse(toSpecInput(normal));
    expect(again).toEqual(normal);
    expect(again.stackParams).toEqual({ fast: { alpha: 16 } });
  });
});
