// A class list as an instructor pastes it (username[,display name] per line, an optional header),
// read into students to create, every bad line named; and the passwords handed out on the sign-in
// sheet: random, but easy to type from paper (no 0/O, 1/l/I).
import { randomInt } from 'node:crypto';
import { csvFields } from '../report/csv.js';
import { passwordProblem } from '../service/passwordPolicy.js';
import type { Problem } from '../service/types.js';

export const USERNAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{1,31}$/;
export const USERNAME_RULE = '2-32 letters, digits, _ . - (starting with a letter or digit)';
export const MAX_ROSTER = 500;

export interface RosterLine {
  line: number;
  username: string;
  display: string | null;
}

export function parseRoster(csv: string): { students: RosterLine[]; problems: Problem[] } {
  const students: RosterLine[] = [];
  const problems: Problem[] = [];
  const seen = new Map<string, number>();
  const lines = csv.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = i + 1;
    if (raw.trim() === '' || raw.trim().startsWith('#')) continue;
    const [username = '', display = '', ...rest] = csvFields(raw).map((x) => x.trim());
    if (students.length === 0 && problems.length === 0 && /^user(name)?$/i.test(username)) continue; // header
    const bad = (message: string) => {
      problems.push({ path: 'csv', message: `line ${line}: ${message}` });
    };
    if (rest.some((x) => x !== '')) {
      bad('has more than two columns (username, display name)');
      continue;
    }
    if (!USERNAME.test(username)) {
      bad(`username ${JSON.stringify(username)} must be ${USERNAME_RULE}`);
      continue;
    }
    if (display.length > 80) {
      bad('display name must be at most 80 characters');
      continue;
    }
    const first = seen.get(username.toLowerCase());
    if (first !== undefined) {
      bad(`username ${username} is also on line ${first}`);
      continue;
    }
    seen.set(username.toLowerCase(), line);
    students.push({ line, username, display: display || null });
  }
  if (students.length + problems.length === 0)
    problems.push({ path: 'csv', message: 'has no students (one username[,display name] per line)' });
  if (students.length > MAX_ROSTER)
    problems.push({
      path: 'csv',
      message: `has ${students.length} students; at most ${MAX_ROSTER} at a time`,
    });
  return { students, problems };
}

const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Three groups of four (xxxx-xxxx-xxxx, ~70 bits), never containing the username. */
export function sheetPassword(username: string): string {
  for (;;) {
    const group = () => Array.from({ length: 4 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    const p = `${group()}-${group()}-${group()}`;
    if (!passwordProblem(p, username)) return p;
  }
}
