// Lab sheets and assignments: the shipped sheets, publishing one to a class, a student's view of an
// assignment (theory, template, their attempts and grade), launching the sheet's run with their
// values and prediction, answers, and the instructor's class table (JSON and CSV). Students reach
// only their own class's assignments and their own submission; instructors only their classes'.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { stringify } from 'yaml';
import { z } from 'zod';
import type { Assignment } from '../../classroom/assignmentStore.js';
import { FUNCTIONS, NAMES } from '../../classroom/checkEval.js';
import { gradeSubmission, tableCsv } from '../../classroom/grading.js';
import { checkRunnable } from '../../classroom/runnable.js';
import { type Sheet, SheetSchema, shippedSheets } from '../../classroom/sheet.js';
import { fieldValue, studentSpec, templateDocument } from '../../classroom/template.js';
import { readRunSummary } from '../../report/index.js';
import type { RunSummary } from '../../run/summary.js';
import { type PublicUser, type Run, ServiceError } from '../../service/types.js';
import {
  AssignmentListItem,
  AssignmentReply,
  AssignmentView,
  CheckpointLanguage,
  ClassTable,
  SheetReply,
  SubmissionReply,
} from '../classroomSchemas.js';
import { type Services, userOf } from '../context.js';
import { TEXT_BODY_LIMIT } from '../limits.js';
import { Ok, StartedRuns, textReply } from '../schemas.js';
import { errorReplies } from './docs.js';

const Id = z.object({ id: z.string().max(64) });
const TEACHERS = { access: ['admin', 'instructor'] as const };

const PublishBody = z.xor(
  [
    z.strictObject({
      classId: z.string().max(64),
      sheetId: z.string().max(64),
      due: z.iso.datetime({ offset: true }).optional(),
    }),
    z.strictObject({
      classId: z.string().max(64),
      sheet: SheetSchema,
      due: z.iso.datetime({ offset: true }).optional(),
    }),
  ],
  { error: 'give classId and either sheetId (a shipped sheet) or sheet (your own)' },
);

export async function assignmentRoutes(app: FastifyInstance, { s }: { s: Services }) {
  const r = app.withTypeProvider<ZodTypeProvider>();

  const inClass = (me: PublicUser, a: Assignment) => me.role === 'student' && me.class === a.className;
  /** The assignment if the caller may see it (its class's students, instructors, admins); else 404. */
  const visible = (req: FastifyRequest, id: string): Assignment => {
    const me = userOf(req);
    const a = s.assignments.get(id);
    if (!a || !(inClass(me, a) || s.classes.teaches(me, a.className)))
      throw new ServiceError(404, `no assignment ${id}`);
    return a;
  };
  const taught = (req: FastifyRequest, id: string): Assignment => {
    const a = visible(req, id);
    if (!s.classes.teaches(userOf(req), a.className))
      throw new ServiceError(403, 'only the instructors of the class may do this', [
        { path: '(role)', message: "must teach the assignment's class" },
      ]);
    return a;
  };
  const gradeInputs = (viewer: PublicUser) => ({
    run: (id: string): Run | null => {
      try {
        return s.runs.get(viewer, id);
      } catch {
        return null;
      }
    },
    summary: (id: string): RunSummary | null => {
      try {
        return readRunSummary<RunSummary>(s.runs.dir(viewer, id));
      } catch {
        return null;
      }
    },
  });
  const gradeOf = (viewer: PublicUser, a: Assignment, studentId: string) =>
    gradeSubmission(a.sheet, s.assignments.submission(a.id, studentId), gradeInputs(viewer));

  r.get(
    '/sheets',
    {
      config: TEACHERS,
      schema: {
        tags: ['assignments'],
        summary: 'The lab sheets shipped with lfnlab',
        response: { 200: z.array(SheetReply) },
      },
    },
    async () => shippedSheets(),
  );

  r.get(
    '/sheets/checkpoint-language',
    {
      config: TEACHERS,
      schema: {
        tags: ['assignments'],
        summary: 'The functions and names a checkpoint may use, each with what it measures',
        response: { 200: CheckpointLanguage },
      },
    },
    async () => ({
      functions: Object.entries(FUNCTIONS).map(([name, f]) => ({ name, args: f.args, doc: f.doc })),
      names: Object.entries(NAMES).map(([name, n]) => ({ name, doc: n.doc })),
      operators: ['+ - * / ^', '< <= > >= == !=', 'X within N% of Y', 'and or not', '( )'],
      examples: [
        'jain() >= 0.9',
        'share("cubic") > share("reno")',
        'metric("recovery.time", "reno") within 20% of rate() / 8 * rtt()^2 / (2 * mss)',
        'verdict == "valid" and utilisation() > 0.8',
      ],
    }),
  );

  r.get(
    '/assignments',
    {
      schema: {
        tags: ['assignments'],
        summary: "Assignments: my class's (students) or the classes I teach",
        response: { 200: z.array(AssignmentListItem) },
      },
    },
    async (req) => {
      const me = userOf(req);
      return s.assignments
        .all()
        .filter((a) => inClass(me, a) || s.classes.teaches(me, a.className))
        .map((a) => {
          const g = me.role === 'student' ? gradeOf(me, a, me.id) : null;
          return {
            id: a.id,
            classId: a.classId,
            className: a.className,
            title: a.sheet.title,
            summary: a.sheet.summary,
            basedOn: a.sheet.basedOn ?? null,
            publishedAt: a.publishedAt,
            due: a.due,
            mine: g ? { state: g.state, score: g.score, maxScore: g.maxScore } : null,
          };
        });
    },
  );
  r.post(
    '/assignments',
    {
      config: TEACHERS,
      bodyLimit: TEXT_BODY_LIMIT,
      schema: {
        tags: ['assignments'],
        summary: 'Publish a sheet to a class I teach',
        body: PublishBody,
        response: { 201: AssignmentReply, ...errorReplies(404) },
      },
    },
    async (req, reply) => {
      const me = userOf(req);
      const c = s.classes.get(req.body.classId);
      if (!c || !s.classes.teaches(me, c.name))
        throw new ServiceError(404, `no class ${req.body.classId}`, [
          { path: 'classId', message: 'not a class you teach' },
        ]);
      let sheet: Sheet;
      if ('sheetId' in req.body) {
        const id = req.body.sheetId;
        const found = shippedSheets().find((x) => x.id === id);
        if (!found)
          throw new ServiceError(400, `no sheet ${id}`, [
            {
              path: 'sheetId',
              message: `must be one of ${shippedSheets()
                .map((x) => x.id)
                .join(', ')}`,
            },
          ]);
        sheet = found;
      } else sheet = req.body.sheet;
      await checkRunnable(
        sheet,
        c.name,
        s.accounts.quotaOf({ id: '-', username: '-', role: 'student', class: c.name }),
      );
      const a = s.assignments.publish({
        classId: c.id,
        className: c.name,
        sheet,
        publishedBy: me.id,
        due: req.body.due ?? null,
      });
      return reply.code(201).send(a);
    },
  );
  r.get(
    '/assignments/:id',
    {
      schema: {
        tags: ['assignments'],
        summary: 'An assignment: the sheet, its template, and (students) my submission and grade',
        params: Id,
        response: { 200: AssignmentView },
      },
    },
    async (req) => {
      const me = userOf(req);
      const a = visible(req, req.params.id);
      const doc = await templateDocument(a.sheet.template);
      return {
        assignment: a,
        template: {
          text: stringify(doc),
          values: Object.fromEntries(a.sheet.fields.map((f) => [f.path, fieldValue(doc, f)])),
        },
        submission: s.assignments.submission(a.id, me.id),
        grade: me.role === 'student' ? gradeOf(me, a, me.id) : null,
      };
    },
  );
  r.delete(
    '/assignments/:id',
    {
      config: TEACHERS,
      schema: { tags: ['assignments'], summary: 'Withdraw an assignment', params: Id, response: { 200: Ok } },
    },
    async (req) => {
      s.assignments.delete(taught(req, req.params.id).id);
      return { ok: true };
    },
  );
  r.post(
    '/assignments/:id/runs',
    {
      schema: {
        tags: ['assignments'],
        summary: "Predict, then run: start the sheet's experiment with my values",
        params: Id,
        body: z.strictObject({
          prediction: z
            .string()
            .trim()
            .min(1, { error: 'write your prediction before you run' })
            .max(2000, { error: 'must be at most 2000 characters' }),
          values: z.record(z.string().max(128), z.union([z.number(), z.string().max(64)])).default({}),
        }),
        response: { 202: StartedRuns.extend({ submission: SubmissionReply }) },
      },
    },
    async (req, reply) => {
      const me = userOf(req);
      const a = visible(req, req.params.id);
      if (!inClass(me, a))
        throw new ServiceError(403, 'only students of the class hand in runs', [
          { path: '(role)', message: "must be a student of the assignment's class" },
        ]);
      const { text, spec } = await studentSpec(a.sheet.template, a.sheet.fields, req.body.values);
      const [run] = await s.runs.createPlanned(me, [
        { name: spec.name, label: null, spec, specText: text, preset: null, campaign: null },
      ]);
      if (!run) throw new Error('no run queued');
      const submission = s.assignments.addAttempt(a.id, me, {
        runId: run.id,
        values: req.body.values,
        prediction: req.body.prediction,
        at: new Date().toISOString(),
      });
      return reply.code(202).send({ ...(await s.board.view(run)), queuedRuns: [run.id], submission });
    },
  );
  r.put(
    '/assignments/:id/answers',
    {
      schema: {
        tags: ['assignments'],
        summary: 'My answers to the questions (question id → text)',
        params: Id,
        body: z.strictObject({
          answers: z.record(
            z.string().max(64),
            z.string().max(8000, { error: 'must be at most 8000 characters' }),
          ),
        }),
        response: { 200: SubmissionReply },
      },
    },
    async (req) => {
      const me = userOf(req);
      const a = visible(req, req.params.id);
      if (!inClass(me, a))
        throw new ServiceError(403, 'only students of the class hand in answers', [
          { path: '(role)', message: "must be a student of the assignment's class" },
        ]);
      const ids = a.sheet.questions.map((q) => q.id);
      const unknown = Object.keys(req.body.answers).filter((k) => !ids.includes(k));
      if (unknown.length)
        throw new ServiceError(
          400,
          `no question ${unknown.join(', ')}`,
          unknown.map((k) => ({
            path: `answers.${k}`,
            message: `must be one of ${ids.join(', ') || '(no questions)'}`,
          })),
        );
      return s.assignments.setAnswers(a.id, me, req.body.answers);
    },
  );

  const tableOf = (req: FastifyRequest, id: string) => {
    const me = userOf(req);
    const a = taught(req, id);
    const c = s.classes.get(a.classId);
    const students = s.accounts.listUsers().filter((u) => u.role === 'student' && u.class === a.className);
    const rows = students
      .map((u) => {
        const sub = s.assignments.submission(a.id, u.id);
        return {
          studentId: u.id,
          username: u.username,
          display: c?.displayNames[u.id] ?? null,
          grade: gradeOf(me, a, u.id),
          prediction: sub?.attempts.at(-1)?.prediction ?? null,
          answers: sub?.answers ?? {},
        };
      })
      .sort((x, y) => x.username.localeCompare(y.username, 'en', { numeric: true }));
    return { assignment: a, rows };
  };
  r.get(
    '/assignments/:id/table',
    {
      config: TEACHERS,
      schema: {
        tags: ['assignments'],
        summary: 'The class table: every student, their runs, checkpoints and grade',
        params: Id,
        response: { 200: ClassTable },
      },
    },
    async (req) => tableOf(req, req.params.id),
  );
  r.get(
    '/assignments/:id/table/csv',
    {
      config: TEACHERS,
      schema: {
        tags: ['assignments'],
        summary: 'The class table as CSV',
        params: Id,
        response: { 200: textReply('text/csv', 'One row per student; a column per checkpoint and question') },
      },
    },
    async (req, reply) => {
      const t = tableOf(req, req.params.id);
      const name = `${t.assignment.className}-${t.assignment.sheet.id}`.replace(/[^A-Za-z0-9_.-]/g, '_');
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${name}.csv"`)
        .send(tableCsv(t.assignment.sheet, t.rows));
    },
  );
}
