import { describe, expect, it } from 'vitest';
import { failedTests } from './failedTests.mjs';

describe('failedTests', () => {
  it('lists each failed test with its file relative to the checkout and its first message line', () => {
    const report = {
      testResults: [
        {
          name: '/repo/emulator/src/a.test.ts',
          status: 'failed',
          message: '',
          assertionResults: [
            { status: 'passed', fullName: 'a works', failureMessages: [] },
            {
              status: 'failed',
              fullName: 'a > finds gaps',
              failureMessages: [
                '\nAssertionError: expected 0.8 to be greater than 0.9\n    at a.test.ts:167',
              ],
            },
          ],
        },
        { name: '/repo/backend/src/b.test.ts', status: 'passed', assertionResults: [{ status: 'passed' }] },
        {
          name: '/repo/backend/src/c.test.ts',
          status: 'failed',
          message: 'Failed to load url ./missing.js',
          assertionResults: [],
        },
      ],
    };
    expect(failedTests('unit', report, '/repo')).toEqual([
      '  unit emulator/src/a.test.ts > a > finds gaps: AssertionError: expected 0.8 to be greater than 0.9',
      '  unit backend/src/c.test.ts: Failed to load url ./missing.js',
    ]);
  });

  it('lists nothing for a report without failures or without results', () => {
    expect(failedTests('lab', { testResults: [{ name: '/r/x.test.ts', status: 'passed' }] }, '/r')).toEqual(
      [],
    );
    expect(failedTests('lab', {}, '/r')).toEqual([]);
  });
});
