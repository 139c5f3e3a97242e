import { describe, expect, it } from 'vitest';
import { measuredText } from './runReportFidelity.js';

describe('measuredText', () => {
  it("gives each check's measurement in its own unit", () => {
    expect(measuredText('flow-start', 7.1312)).toBe('7.13 s late');
    expect(measuredText('idle-rtt:main', 120.0012)).toBe('120.00 ms');
    expect(measuredText('lab-cpu', 96.44)).toBe('96.4 %');
    expect(measuredText('flow-start', null)).toBe('—');
  });
});
