// Classes (admins and instructors): create and list them, import students from a CSV list with
// generated passwords (shown once, for the sign-in sheet), reset a student's password, and set the
// class's quota within the admin's student quota. Instructors only ever reach classes they teach:
// any other class id is a 404, as if it did not exist.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CLASS_NAME, CLASS_NAME_RULE, type ClassRecord } from '../../classroom/classStore.js';
import { parseRoster, sheetPassword } from '../../classroom/roster.js';
import { type PublicUser, type Quota, ServiceError } from '../../service/types.js';
import { ClassDetail, ClassSummary, ImportReply, IssuedPassword } from '../classroomSchemas.js';
import { type Services, userOf } from '../context.js';
import { MAX_TEXT_CHARS, TEXT_BODY_LIMIT } from '../limits.js';
import { Ok } from '../schemas.js';
import { errorReplies } from './docs.js';
import { QuotaSchema } from './users.js';

const Id = z.object({ id: z.string().max(64) });
const ClassName = z.string().regex(CLASS_NAME, { error: `must be ${CLASS_NAME_RULE}` });
const TEACHERS = { access: ['admin', 'instructor'] as const };

export async function classRoutes(app: FastifyInstance, { s }: { s: Services }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const studentsOf = (c: ClassRecord) =>
    s.accounts.listUsers().filter((u) => u.role === 'student' && u.class === c.name);
  const summary = (c: ClassRecord) => ({
    id: c.id,
    name: c.name,
    instructors: c.instructorIds.flatMap((id) => {
      const u = s.accounts.user(id);
      return u ? [{ id: u.id, username: u.username }] : [];
    }),
    students: studentsOf(c).length,
    quota: c.quota,
    createdAt: c.createdAt,
  });
  const detail = (c: ClassRecord) => ({
    ...summary(c),
    roster: studentsOf(c).map((u) => ({
      id: u.id,
      username: u.username,
      display: c.displayNames[u.id] ?? null,
    })),
    roleQuota: s.accounts.getQuotas().student,
  });
  /** The class if the caller teaches it (admins: any); 404 otherwise. */
  const taught = (req: FastifyRequest, id: string): ClassRecord => {
    const c = s.classes.get(id);
    if (!c || !s.classes.teaches(userOf(req), c.name)) throw new ServiceError(404, `no class ${id}`);
    return c;
  };
  const instructorIds = (ids: string[]): string[] => {
    for (const [i, id] of ids.entries())
      if (s.accounts.user(id)?.role !== 'instructor')
        throw new ServiceError(400, `instructors.${i}: ${id} is not an instructor`, [
          { path: `instructors.${i}`, message: 'must be the id of an instructor' },
        ]);
    return [...new Set(ids)];
  };

  r.get(
    '/classes',
    {
      config: TEACHERS,
      schema: {
        tags: ['classes'],
        summary: 'Classes I teach (admin: all)',
        response: { 200: z.array(ClassSummary) },
      },
    },
    async (req) => s.classes.taughtBy(userOf(req)).map(summary),
  );
  r.post(
    '/classes',
    {
      config: TEACHERS,
      schema: {
        tags: ['classes'],
        summary: 'Create a class (an instructor creating one teaches it)',
        body: z.strictObject({
          name: ClassName,
          instructors: z.array(z.string().max(64)).max(20).optional(),
        }),
        response: { 201: ClassSummary, ...errorReplies(409) },
      },
    },
    async (req, reply) => {
      const me = userOf(req);
      if (me.role !== 'admin' && req.body.instructors !== undefined)
        throw new ServiceError(403, 'only admin may name the instructors of a class', [
          { path: 'instructors', message: 'must be admin to set' },
        ]);
      const ids = me.role === 'admin' ? instructorIds(req.body.instructors ?? []) : [me.id];
      return reply.code(201).send(summary(s.classes.create(req.body.name, ids)));
    },
  );
  r.get(
    '/classes/:id',
    {
      config: TEACHERS,
      schema: {
        tags: ['classes'],
        summary: 'A class with its students',
        params: Id,
        response: { 200: ClassDetail },
      },
    },
    async (req) => detail(taught(req, req.params.id)),
  );
  r.patch(
    '/classes/:id',
    {
      config: TEACHERS,
      schema: {
        tags: ['classes'],
        summary: "Set the class's quota (within the admin's student quota) or, admin only, its instructors",
        params: Id,
        body: z.strictObject({
          quota: QuotaSchema.nullable().optional(),
          instructors: z.array(z.string().max(64)).max(20).optional(),
        }),
        response: { 200: ClassDetail },
      },
    },
    async (req) => {
      const c = taught(req, req.params.id);
      const me = userOf(req);
      if (req.body.instructors !== undefined && me.role !== 'admin')
        throw new ServiceError(403, 'only admin may change the instructors of a class', [
          { path: 'instructors', message: 'must be admin to change' },
        ]);
      const quota = req.body.quota;
      if (quota) quotaWithin(quota, s.accounts.getQuotas().student);
      return detail(
        s.classes.update(c.id, {
          ...(quota !== undefined ? { quota } : {}),
          ...(req.body.instructors !== undefined
            ? { instructorIds: instructorIds(req.body.instructors) }
            : {}),
        }),
      );
    },
  );
  r.delete(
    '/classes/:id',
    {
      config: { access: ['admin'] },
      schema: {
        tags: ['classes'],
        summary: 'Delete an empty class (admin)',
        params: Id,
        response: { 200: Ok, ...errorReplies(409) },
      },
    },
    async (req) => {
      const c = taught(req, req.params.id);
      const n = studentsOf(c).length;
      if (n > 0)
        throw new ServiceError(409, `class ${c.name} still has ${n} students; move or delete them first`, [
          { path: 'id', message: 'class is not empty' },
        ]);
      s.classes.delete(c.id);
      return { ok: true };
    },
  );
  r.post(
    '/classes/:id/students',
    {
      config: TEACHERS,
      bodyLimit: TEXT_BODY_LIMIT,
      schema: {
        tags: ['classes'],
        summary:
          'Import students from CSV (username[,display name] per line); each gets a generated password, shown once',
        params: Id,
        body: z.strictObject({
          csv: z.string().max(MAX_TEXT_CHARS, { error: `must be at most ${MAX_TEXT_CHARS} characters` }),
        }),
        response: { 201: ImportReply, ...errorReplies(409) },
      },
    },
    async (req, reply) => {
      const c = taught(req, req.params.id);
      const { students, problems } = parseRoster(req.body.csv);
      if (problems.length) throw new ServiceError(400, problems.map((p) => p.message).join('; '), problems);
      // All or none: a half-imported class is harder to fix than a list with a typo.
      const taken = students.filter((x) => s.accounts.userByName(x.username));
      if (taken.length)
        throw new ServiceError(
          409,
          `already taken: ${taken.map((x) => x.username).join(', ')}`,
          taken.map((x) => ({ path: 'csv', message: `line ${x.line}: username ${x.username} is taken` })),
        );
      const created = [];
      const names: Record<string, string> = {};
      for (const x of students) {
        const password = sheetPassword(x.username);
        const u = await s.accounts.createUser({
          username: x.username,
          password,
          role: 'student',
          class: c.name,
        });
        if (x.display) names[u.id] = x.display;
        created.push({ id: u.id, username: u.username, display: x.display, password });
      }
      s.classes.setDisplayNames(c.id, names);
      return reply.code(201).send({ className: c.name, created });
    },
  );
  r.post(
    '/classes/:id/students/:userId/password',
    {
      config: TEACHERS,
      schema: {
        tags: ['classes'],
        summary:
          "Reset a student's password to a generated one (shown once); their sessions and API tokens end",
        params: Id.extend({ userId: z.string().max(64) }),
        response: { 200: IssuedPassword },
      },
    },
    async (req) => {
      const c = taught(req, req.params.id);
      const u: PublicUser | null = s.accounts.user(req.params.userId);
      if (u?.role !== 'student' || u.class !== c.name)
        throw new ServiceError(404, `no student ${req.params.userId} in class ${c.name}`);
      const password = sheetPassword(u.username);
      await s.accounts.updateUser(u.id, { password });
      return { id: u.id, username: u.username, display: c.displayNames[u.id] ?? null, password };
    },
  );
}

/** A class quota may only tighten the admin's: each field at most the role's, named when above. */
function quotaWithin(q: Quota, role: Quota): void {
  const labels: Record<keyof Quota, string> = {
    concurrentRuns: 'runs at a time',
    maxDurationS: 's',
    maxRateMbps: 'Mbit/s',
    maxFlows: 'flows',
  };
  const problems = (Object.keys(labels) as (keyof Quota)[])
    .filter((k) => q[k] > role[k])
    .map((k) => ({
      path: `quota.${k}`,
      message: `must be at most ${role[k]} ${labels[k]} (the admin's student quota)`,
    }));
  if (problems.length)
    throw new ServiceError(400, problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);
}
