import { SpecSchema } from '@lfnlab/emulator/spec';
import { describe, expect, it } from 'vitest';
import { defaultSpecForm, formToSpecInput, specInputToForm, splitBuffer } from './formModel';

describe('form model', () => {
  it('the default form is a valid spec', () => {
    expect(SpecSchema.safeParse(formToSpecInput(defaultSpecForm())).success).toBe(true);
  });

  it('splits buffers into value and unit', () => {
    expect(splitBuffer('0.2bdp')).toEqual({ buffer: '0.2', bufferUnit: 'bdp' });
    expect(splitBuffer(100)).toEqual({ buffer: '100', bufferUnit: 'packets' });
    expect(splitBuffer('100pkt')).toEqual({ buffer: '100', bufferUnit: 'packets' });
    expect(splitBuffer('256KiB')).toEqual({ buffer: '256KiB', bufferUnit: 'size' });
  });

  it('round-trips a spec, keeping fields the form has no control for', () => {
    const input = {
      name: 'rt',
      duration: '60s',
      seed: 7,
      paths: {
        wan: {
          rtt: '70ms',
          rate: '100Mbit',
          buffer: '0.5bdp',
          ber: 1e-7,
          changes: [{ at: '10s', rate: '50Mbit' }],
          cross: [{ pattern: 'sine', mean: '20%', amplitude: '10%', period: '10s' }],
        },
      },
      flows: [
        { name: 'a', stack: 'reno', window: '1.1bdp' },
        { name: 'b', stack: 'cubic', count: 3, every: '10s', direction: 'reverse', streams: 4 },
        { name: 'c', stack: 'reno', streams: 8, connect: 'together' },
      ],
    };
    const form = specInputToForm(input);
    expect(form.flows.map((f) => f.connect)).toEqual(['serial', 'serial', 'together']);
    const back = formToSpecInput(form);
    expect(back).toEqual(input);
    expect(SpecSchema.safeParse(back).success).toBe(true);
  });

  it('round-trips stackParams, leaving out empty fields and passing text on for the schema to name', () => {
    const input = {
      name: 'sp',
      duration: '20s',
      paths: { main: { rtt: '40ms', rate: '10Mbit', buffer: '1bdp', ber: 0 } },
      flows: [{ stack: 'fast' }, { stack: 'bic' }],
      stackParams: { fast: { alpha: 16 }, bic: { low_window: 2, max_increment: 3 } },
    };
    const form = specInputToForm(input);
    expect(form.stackParams).toEqual({ fast: { alpha: '16' }, bic: { low_window: '2', max_increment: '3' } });
    expect('stackParams' in form.extra).toBe(false);
    expect(formToSpecInput(form)).toEqual(input);
    form.stackParams = { fast: { alpha: '' }, bic: { low_window: ' ', max_increment: 'lots' } };
    expect(formToSpecInput(form).stackParams).toEqual({ bic: { max_increment: 'lots' } });
    form.stackParams = { fast: { alpha: '' } };
    expect('stackParams' in formToSpecInput(form)).toBe(false);
    // A shape the fields cannot hold is kept as written, for the schema to name.
    for (const odd of [{ fast: 16 }, 'fast', { fast: { alpha: [16] } }]) {
      const kept = specInputToForm({ ...input, stackParams: odd });
      expect(kept.stackParams).toEqual({});
      expect(formToSpecInput(kept).stackParams).toEqual(odd);
    }
  });

  it('round-trips a wire, writing its ports only where they are not eth0 and eth1', () => {
    const input = {
      name: 'through',
      duration: '20s',
      wire: { hosts: 'netns', ports: { b: 'eth2' } },
      paths: { main: { rtt: '40ms', rate: '10Mbit', buffer: '1bdp', ber: 0 } },
      flows: [{ stack: 'cubic' }],
    };
    const form = specInputToForm(input);
    expect(form.wire).toEqual({ on: true, a: 'eth0', b: 'eth2', extra: { hosts: 'netns' } });
    expect(formToSpecInput(form)).toEqual(input);
    expect(SpecSchema.safeParse(formToSpecInput(form)).success).toBe(true);
    // Switched on in the form: `wire: {}`, the lab's own two ports; off: no wire at all.
    const on = { ...defaultSpecForm(), wire: { ...defaultSpecForm().wire, on: true } };
    expect(formToSpecInput(on).wire).toEqual({});
    expect('wire' in formToSpecInput(defaultSpecForm())).toBe(false);
  });
});
