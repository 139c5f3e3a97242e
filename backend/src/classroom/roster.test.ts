import { describe, expect, it } from 'vitest';
import { passwordProblem } from '../service/passwordPolicy.js';
import { parseRoster, sheetPassword } from './roster.js';

describe('class list CSV', () => {
  it('reads username[,display], skipping a header, blank lines and # comments; quotes may hold commas', () => {
    const r = parseRoster('Username,Display\n\n# lab group 1\nada,"Lovelace, Ada"\r\nalan\n');
    expect(r.problems).toEqual([]);
    expect(r.students).toEqual([
      { line: 4, username: 'ada', display: 'Lovelace, Ada' },
      { line: 5, username: 'alan', display: null },
    ]);
  });

  it('names every bad line', () => {
    expect(parseRoster('ok1\n-bad\nok1\nx,y,z\n').problems.map((p) => p.message)).toEqual([
      'line 2: username "-bad" must be 2-32 letters, digits, _ . - (starting with a letter or digit)',
      'line 3: username ok1 is also on line 1',
      'line 4: has more than two columns (username, display name)',
    ]);
    expect(parseRoster(' \n').problems).toEqual([
      { path: 'csv', message: 'has no students (one username[,display name] per line)' },
    ]);
  });

  it('generated passwords are typeable from paper and pass the password policy', () => {
    for (let i = 0; i < 50; i++) {
      const p = sheetPassword('kq');
      expect(p).toMatch(/^[a-hjkmnp-z2-9]{4}-[a-hjkmnp-z2-9]{4}-[a-hjkmnp-z2-9]{4}$/);
      expect(p).not.toContain('kq');
      expect(passwordProblem(p, 'kq')).toBeNull();
    }
  });
});
