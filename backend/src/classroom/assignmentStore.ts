// Published assignments and the students' submissions: one file per assignment under
// DATA/assignments/ (the sheet as published, so later edits of a sheet file change nothing already
// handed out, and every student's attempts and answers).
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonFile, writeJsonAtomic } from '../service/jsonFile.js';
import { randomId } from '../service/passwords.js';
import { ServiceError } from '../service/types.js';
import type { Sheet } from './sheet.js';

export interface Attempt {
  runId: string;
  /** The field values the student chose (spec paths → values). */
  values: Record<string, number | string>;
  /** What the student predicted before launching this run. */
  prediction: string;
  at: string;
}

export interface Submission {
  studentId: string;
  username: string;
  attempts: Attempt[];
  answers: Record<string, string>;
  answeredAt: string | null;
}

export interface Assignment {
  id: string;
  classId: string;
  className: string;
  sheet: Sheet;
  publishedBy: string;
  publishedAt: string;
  due: string | null;
}

interface AssignmentFile {
  assignment: Assignment;
  submissions: Record<string, Submission>;
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;

export class AssignmentStore {
  private readonly files = new Map<string, AssignmentFile>();
  private readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'assignments');
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    for (const f of readdirSync(this.dir)) {
      if (!f.endsWith('.json')) continue;
      const a = readJsonFile<AssignmentFile | null>(join(this.dir, f), null);
      if (a && ID.test(a.assignment.id)) this.files.set(a.assignment.id, a);
    }
  }

  private save(f: AssignmentFile) {
    writeJsonAtomic(join(this.dir, `${f.assignment.id}.json`), f);
  }

  publish(o: Omit<Assignment, 'id' | 'publishedAt'>): Assignment {
    const assignment: Assignment = { ...o, id: randomId(), publishedAt: new Date().toISOString() };
    const f = { assignment, submissions: {} };
    this.files.set(assignment.id, f);
    this.save(f);
    return structuredClone(assignment);
  }

  all(): Assignment[] {
    return [...this.files.values()]
      .map((f) => structuredClone(f.assignment))
      .sort((a, b) => b.publishedAt.localeCompare(a.publishedAt));
  }

  get(id: string): Assignment | null {
    const f = this.files.get(id);
    return f ? structuredClone(f.assignment) : null;
  }

  delete(id: string): void {
    this.files.delete(id);
    rmSync(join(this.dir, `${id}.json`), { force: true });
  }

  submissions(id: string): Submission[] {
    return Object.values(structuredClone(this.files.get(id)?.submissions ?? {}));
  }

  submission(id: string, studentId: string): Submission | null {
    const s = this.files.get(id)?.submissions[studentId];
    return s ? structuredClone(s) : null;
  }

  private mine(id: string, student: { id: string; username: string }): { f: AssignmentFile; s: Submission } {
    const f = this.files.get(id);
    if (!f) throw new ServiceError(404, `no assignment ${id}`);
    f.submissions[student.id] ??= {
      studentId: student.id,
      username: student.username,
      attempts: [],
      answers: {},
      answeredAt: null,
    };
    return { f, s: f.submissions[student.id] as Submission };
  }

  addAttempt(id: string, student: { id: string; username: string }, attempt: Attempt): Submission {
    const { f, s } = this.mine(id, student);
    s.attempts.push(attempt);
    this.save(f);
    return structuredClone(s);
  }

  setAnswers(
    id: string,
    student: { id: string; username: string },
    answers: Record<string, string>,
  ): Submission {
    const { f, s } = this.mine(id, student);
    s.answers = { ...s.answers, ...answers };
    s.answeredAt = new Date().toISOString();
    this.save(f);
    return structuredClone(s);
  }
}
