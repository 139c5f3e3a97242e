// Reply shapes of the classroom routes (classes, sheets, assignments), for the OpenAPI document
// and the serializer (a reply that does not fit is a 500, so these stay true).
import { z } from 'zod';
import { QuotaReply } from './schemas.js';

export const ClassSummary = z.object({
  id: z.string(),
  name: z.string(),
  instructors: z.array(z.object({ id: z.string(), username: z.string() })),
  students: z.number(),
  quota: QuotaReply.nullable().describe("Limits for this class's students; null: the role's"),
  createdAt: z.string(),
});
export const ClassDetail = ClassSummary.extend({
  roster: z.array(z.object({ id: z.string(), username: z.string(), display: z.string().nullable() })),
  /** The admin's student quota: the class quota may only be tighter. */
  roleQuota: QuotaReply,
});
export const IssuedPassword = z.object({
  id: z.string(),
  username: z.string(),
  display: z.string().nullable(),
  password: z.string().describe('Shown once: hand it out on the sign-in sheet'),
});
export const ImportReply = z.object({ className: z.string(), created: z.array(IssuedPassword) });

const Field = z.object({
  path: z.string(),
  label: z.string(),
  help: z.string().optional(),
  unit: z.string().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  step: z.number().optional(),
  options: z.array(z.string()).optional(),
});
export const SheetReply = z.object({
  id: z.string(),
  title: z.string(),
  basedOn: z.string().optional(),
  summary: z.string(),
  theory: z.string(),
  template: z.union([
    z.object({ spec: z.string() }),
    z.object({
      preset: z.string(),
      part: z.string().optional(),
      variant: z.string(),
      duration: z.number().optional(),
    }),
  ]),
  fields: z.array(Field),
  prediction: z.string(),
  questions: z.array(z.object({ id: z.string(), text: z.string() })),
  checkpoints: z.array(z.object({ id: z.string(), text: z.string(), check: z.string(), points: z.number() })),
});

export const AssignmentReply = z.object({
  id: z.string(),
  classId: z.string(),
  className: z.string(),
  sheet: SheetReply,
  publishedBy: z.string(),
  publishedAt: z.string(),
  due: z.string().nullable(),
});

const CheckpointGrade = z.object({
  id: z.string(),
  passed: z.boolean().nullable().describe('null: not measurable (no usable run, or the run lacks it)'),
  points: z.number(),
  detail: z.string(),
});
export const GradeReply = z.object({
  state: z.enum(['not started', 'waiting', 'graded', 'stuck']),
  stuckReason: z.string().nullable(),
  runs: z.number(),
  invalidRuns: z.number(),
  lastRun: z
    .object({
      id: z.string(),
      status: z.string(),
      verdict: z.string().nullable(),
    })
    .nullable(),
  gradedRun: z.string().nullable(),
  checkpoints: z.array(CheckpointGrade),
  score: z.number(),
  maxScore: z.number(),
  answered: z.number(),
  questions: z.number(),
});

export const SubmissionReply = z.object({
  studentId: z.string(),
  username: z.string(),
  attempts: z.array(
    z.object({
      runId: z.string(),
      values: z.record(z.string(), z.union([z.number(), z.string()])),
      prediction: z.string(),
      at: z.string(),
    }),
  ),
  answers: z.record(z.string(), z.string()),
  answeredAt: z.string().nullable(),
});

export const AssignmentListItem = z.object({
  id: z.string(),
  classId: z.string(),
  className: z.string(),
  title: z.string(),
  summary: z.string(),
  basedOn: z.string().nullable(),
  publishedAt: z.string(),
  due: z.string().nullable(),
  /** Students: where they stand. Instructors: null. */
  mine: z.object({ state: z.string(), score: z.number(), maxScore: z.number() }).nullable(),
});

export const AssignmentView = z.object({
  assignment: AssignmentReply,
  /** The experiment as a student starts it, and the current value of each changeable field. */
  template: z.object({
    text: z.string(),
    values: z.record(z.string(), z.union([z.number(), z.string()]).nullable()),
  }),
  submission: SubmissionReply.nullable(),
  grade: GradeReply.nullable(),
});

export const ClassTable = z.object({
  assignment: AssignmentReply,
  rows: z.array(
    z.object({
      studentId: z.string(),
      username: z.string(),
      display: z.string().nullable(),
      grade: GradeReply,
      prediction: z.string().nullable(),
      answers: z.record(z.string(), z.string()),
    }),
  ),
});

export const CheckpointLanguage = z.object({
  functions: z.array(z.object({ name: z.string(), args: z.string(), doc: z.string() })),
  names: z.array(z.object({ name: z.string(), doc: z.string() })),
  operators: z.array(z.string()),
  examples: z.array(z.string()),
});
