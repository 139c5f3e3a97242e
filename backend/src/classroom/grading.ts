// Grading a submission: the checkpoints of the sheet evaluated on the student's runs that completed
// with a usable verdict (valid or suspect: an invalid run measured a link other than the one asked
// for, so it grades nothing), and where each student stands for the class table.
import type { RunSummary } from '../run/summary.js';
import type { Run } from '../service/types.js';
import type { Submission } from './assignmentStore.js';
import { evaluateCheck } from './checkEval.js';
import type { Sheet } from './sheet.js';

export type StudentState = 'not started' | 'waiting' | 'graded' | 'stuck';

export interface CheckpointGrade {
  id: string;
  passed: boolean | null;
  points: number;
  detail: string;
}

export interface Grade {
  state: StudentState;
  /** Why the student is stuck (failed or invalid run, nothing launched after predicting). */
  stuckReason: string | null;
  runs: number;
  invalidRuns: number;
  lastRun: { id: string; status: Run['status']; verdict: Run['verdict'] } | null;
  gradedRun: string | null;
  checkpoints: CheckpointGrade[];
  score: number;
  maxScore: number;
  answered: number;
  questions: number;
}

export interface GradeInputs {
  run: (id: string) => Run | null;
  summary: (id: string) => RunSummary | null;
}

const usable = (r: Run) => r.status === 'completed' && (r.verdict === 'valid' || r.verdict === 'suspect');

export function gradeSubmission(sheet: Sheet, sub: Submission | null, io: GradeInputs): Grade {
  const maxScore = sheet.checkpoints.reduce((a, c) => a + c.points, 0);
  const answered = sheet.questions.filter((q) => (sub?.answers[q.id] ?? '').trim() !== '').length;
  const runs = (sub?.attempts ?? []).map((a) => io.run(a.runId)).filter((r): r is Run => r !== null);
  const last = runs[runs.length - 1] ?? null;
  // Newest first: a checkpoint counts once any usable run passes it (a sheet may ask for two runs,
  // e.g. a mixed pair and then a same-stack pair); otherwise the newest run's result is shown.
  const usableRuns = [...runs].reverse().filter(usable);
  const summaries = usableRuns
    .map((r) => ({ run: r, summary: io.summary(r.id) }))
    .filter((x): x is { run: Run; summary: RunSummary } => x.summary !== null);
  const graded = summaries[0]?.run ?? null;
  const checkpoints: CheckpointGrade[] = sheet.checkpoints.map((c) => {
    if (!summaries.length) return { id: c.id, passed: null, points: 0, detail: 'no usable run yet' };
    const results = summaries.map((x) => ({ run: x.run.id, ...evaluateCheck(c.check, x.summary) }));
    const pass = results.find((x) => x.passed);
    const shown = pass ?? (results[0] as (typeof results)[number]);
    const detail = summaries.length > 1 ? `${shown.detail} (run ${shown.run})` : shown.detail;
    return { id: c.id, passed: shown.passed, points: pass ? c.points : 0, detail };
  });
  let state: StudentState = 'not started';
  let stuckReason: string | null = null;
  if (last && (last.status === 'queued' || last.status === 'running')) state = 'waiting';
  else if (last && !usable(last)) {
    state = 'stuck';
    stuckReason =
      last.status === 'completed'
        ? `last run ${last.id} is ${last.verdict ?? 'without a verdict'}`
        : `last run ${last.id} ${last.status}${last.error ? `: ${last.error}` : ''}`;
  } else if (graded) state = 'graded';
  return {
    state,
    stuckReason,
    runs: runs.length,
    invalidRuns: runs.filter((r) => r.status === 'completed' && r.verdict === 'invalid').length,
    lastRun: last ? { id: last.id, status: last.status, verdict: last.verdict } : null,
    gradedRun: graded?.id ?? null,
    checkpoints,
    score: checkpoints.reduce((a, c) => a + c.points, 0),
    maxScore,
    answered,
    questions: sheet.questions.length,
  };
}

const csvCell = (v: unknown) => {
  const s = v === null || v === undefined ? '' : String(v);
  // Quote what needs it; a leading = + - @ would be a formula in a spreadsheet.
  const safe = /^[=+\-@]/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
};

export interface TableRow {
  username: string;
  display: string | null;
  grade: Grade;
  prediction: string | null;
  answers: Record<string, string>;
}

/** The class table as CSV: one row per student, one column per checkpoint and per question. */
export function tableCsv(sheet: Sheet, rows: TableRow[]): string {
  const head = [
    'username',
    'display',
    'state',
    'stuck_reason',
    'runs',
    'invalid_runs',
    'last_run',
    'last_status',
    'last_verdict',
    'graded_run',
    ...sheet.checkpoints.map((c) => `check_${c.id}`),
    'score',
    'max_score',
    'prediction',
    ...sheet.questions.map((q) => `answer_${q.id}`),
  ];
  const lines = rows.map((r) => [
    r.username,
    r.display,
    r.grade.state,
    r.grade.stuckReason,
    r.grade.runs,
    r.grade.invalidRuns,
    r.grade.lastRun?.id,
    r.grade.lastRun?.status,
    r.grade.lastRun?.verdict,
    r.grade.gradedRun,
    ...r.grade.checkpoints.map((c) => (c.passed === null ? 'n/a' : c.passed ? 'pass' : 'fail')),
    r.grade.score,
    r.grade.maxScore,
    r.prediction,
    ...sheet.questions.map((q) => r.answers[q.id] ?? ''),
  ]);
  return `${[head, ...lines].map((l) => l.map(csvCell).join(',')).join('\r\n')}\r\n`;
}
