// Fixtures for the classroom's component tests, shaped like docs/API.md's replies.
import type { User } from '../../src/api/types';
import type { AssignmentView, Grade, Sheet, TableRow } from '../../src/classroom/api';

export const kid: User = { id: 'u-kid', username: 'kid', role: 'student', class: 'net101' };
export const teacher: User = { id: 'u-t', username: 'teach', role: 'instructor', class: null };

export const me = (user: User) => ({ body: { user, csrfToken: 'csrf-1' } });

export const sheet: Sheet = {
  id: 'reno-responsiveness',
  title: "Reno's responsiveness after a loss",
  basedOn: 'seed003-responsiveness',
  summary: 'Measure how long Reno needs to recover.',
  theory: 'ρ = C·RTT²/(2·MSS)',
  template: { spec: 'name: x\n' },
  fields: [
    { path: 'paths.main.rtt', label: 'Base RTT', unit: 'ms', min: 10, max: 80, step: 5 },
    { path: 'flows.0.stack', label: 'Stack', options: ['reno', 'cubic'] },
  ],
  prediction: 'How many seconds will Reno need?',
  questions: [{ id: 'measured', text: 'What did the run measure?' }],
  checkpoints: [
    { id: 'link-busy', text: 'Reno keeps the link busy', check: 'utilisation() >= 0.6', points: 1 },
    {
      id: 'recovery-law',
      text: 'Recovery follows the law',
      check: 'metric("recovery.time") within 30% of 1',
      points: 2,
    },
  ],
};

export const grade = (over: Partial<Grade> = {}): Grade => ({
  state: 'graded',
  stuckReason: null,
  runs: 1,
  invalidRuns: 0,
  lastRun: { id: 'r1', status: 'completed', verdict: 'valid' },
  gradedRun: 'r1',
  checkpoints: [
    { id: 'link-busy', passed: true, points: 1, detail: '0.83 >= 0.6' },
    { id: 'recovery-law', passed: null, points: 0, detail: 'not measurable: recovery.time was not measured' },
  ],
  score: 1,
  maxScore: 3,
  answered: 0,
  questions: 1,
  ...over,
});

export const view = (over: Partial<AssignmentView> = {}): AssignmentView => ({
  assignment: {
    id: 'a1',
    classId: 'c1',
    className: 'net101',
    sheet,
    publishedBy: 'u-t',
    publishedAt: '2026-11-25T10:00:00Z',
    due: null,
  },
  template: { text: 'name: x\n', values: { 'paths.main.rtt': 40, 'flows.0.stack': 'reno' } },
  submission: null,
  grade: grade({ state: 'not started', runs: 0, lastRun: null, gradedRun: null, score: 0, checkpoints: [] }),
  ...over,
});

export const row = (username: string, g: Partial<Grade>): TableRow => ({
  studentId: `u-${username}`,
  username,
  display: `Student ${username}`,
  grade: grade(g),
  prediction: null,
  answers: {},
});
