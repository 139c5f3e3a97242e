// Users (admins manage them; instructors list their class) and the quotas of each role.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../service/passwordPolicy.js';
import { ROLES, ServiceError } from '../../service/types.js';
import { type Services, userOf } from '../context.js';
import { Ok, QuotaReply, QuotasReply, UserSchema } from '../schemas.js';
import { errorReplies } from './docs.js';

const Role = z.enum(ROLES, { error: `must be one of ${ROLES.join(', ')}` });
const Username = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{1,31}$/, {
  error: 'must be 2-32 letters, digits, _ . - (starting with a letter or digit)',
});
// Length here (so the OpenAPI document says it); the common-password list and the username rule
// in passwordPolicy.ts, applied by Accounts.
const Password = z
  .string()
  .min(PASSWORD_MIN, { error: `must be at least ${PASSWORD_MIN} characters` })
  .max(PASSWORD_MAX, { error: `must be at most ${PASSWORD_MAX} characters` });
const ClassName = z.string().min(1).max(64, { error: 'must be at most 64 characters' }).nullable();
const Id = z.object({ id: z.string().max(64) });

export const QuotaSchema = z.object({
  concurrentRuns: z.number().int().min(0).max(1000),
  maxDurationS: z.number().int().min(1).max(86_400),
  maxRateMbps: z.number().min(0.01).max(10_000),
  maxFlows: z.number().int().min(1).max(64),
});

/** A class named on a user must exist (POST /api/classes makes one): a typo cannot make a new class. */
function knownClass(s: Services, name: string | null | undefined): void {
  if (name === null || name === undefined || s.classes.byName(name)) return;
  const known = s.classes.all().map((c) => c.name);
  const message = `must be an existing class (${known.length ? known.join(', ') : 'none yet'}); create it under Classes first`;
  throw new ServiceError(400, `no class ${JSON.stringify(name)}: ${message}`, [{ path: 'class', message }]);
}

export async function userRoutes(app: FastifyInstance, { s }: { s: Services }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/users',
    {
      config: { access: ['admin', 'instructor'] },
      schema: {
        tags: ['users'],
        summary: 'Users: all (admin) or my class (instructor)',
        response: { 200: z.array(UserSchema) },
      },
    },
    async (req) => {
      const me = userOf(req);
      const all = s.accounts.listUsers();
      return me.role === 'admin'
        ? all
        : all.filter(
            (u) =>
              u.id === me.id || (u.role === 'student' && u.class !== null && s.classes.teaches(me, u.class)),
          );
    },
  );
  r.post(
    '/users',
    {
      config: { access: ['admin'] },
      schema: {
        tags: ['users'],
        summary: 'Create a user (admin)',
        body: z.object({ username: Username, password: Password, role: Role, class: ClassName.optional() }),
        response: { 201: UserSchema, ...errorReplies(409) },
      },
    },
    async (req, reply) => {
      knownClass(s, req.body.class);
      return reply.code(201).send(await s.accounts.createUser(req.body));
    },
  );
  r.patch(
    '/users/:id',
    {
      schema: {
        tags: ['users'],
        summary:
          'Change a user (admin); anyone may change their own password, giving the current one. ' +
          "A new password signs the user out everywhere else and revokes the user's API tokens.",
        params: Id,
        body: z.object({
          password: Password.optional(),
          currentPassword: z.string().max(PASSWORD_MAX).optional(),
          role: Role.optional(),
          class: ClassName.optional(),
        }),
        response: { 200: UserSchema, ...errorReplies(409) },
      },
    },
    async (req) => {
      const me = userOf(req);
      const { currentPassword, ...patch } = req.body;
      const own = me.id === req.params.id;
      if (me.role !== 'admin' && (!own || patch.role !== undefined || patch.class !== undefined))
        throw new ServiceError(403, 'only admin may change other users, roles or classes', [
          { path: '(role)', message: 'must be admin' },
        ]);
      // Another admin must do it: a stolen session (or a slip) cannot lock its own admin out.
      if (own && patch.role !== undefined && patch.role !== me.role)
        throw new ServiceError(409, 'you cannot change your own role; another admin must', [
          { path: 'role', message: 'not your own' },
        ]);
      // Even an admin gives the current password for their own: a stolen session cannot lock them out.
      if (own && patch.password !== undefined) {
        if (currentPassword === undefined || !(await s.accounts.passwordMatches(me.id, currentPassword)))
          throw new ServiceError(403, 'changing your password needs your current password', [
            { path: 'currentPassword', message: 'must be your current password' },
          ]);
      }
      knownClass(s, patch.class);
      return s.accounts.updateUser(req.params.id, {
        ...patch,
        keepSession: own ? (req.caller?.sessionId ?? null) : null,
      });
    },
  );
  r.delete(
    '/users/:id',
    {
      config: { access: ['admin'] },
      schema: {
        tags: ['users'],
        summary: 'Delete a user (admin)',
        params: Id,
        response: { 200: Ok, ...errorReplies(409) },
      },
    },
    async (req) => {
      if (userOf(req).id === req.params.id)
        throw new ServiceError(409, 'you cannot delete your own account; another admin must', [
          { path: 'id', message: 'not your own' },
        ]);
      s.accounts.deleteUser(req.params.id);
      s.classes.forgetUser(req.params.id);
      return { ok: true };
    },
  );

  r.get(
    '/quotas',
    { schema: { tags: ['users'], summary: 'Quotas of every role', response: { 200: QuotasReply } } },
    async () => s.accounts.getQuotas(),
  );
  r.put(
    '/quotas/:role',
    {
      config: { access: ['admin'] },
      schema: {
        tags: ['users'],
        summary: "Set a role's quota (admin)",
        params: z.object({ role: Role }),
        body: QuotaSchema,
        response: { 200: QuotaReply },
      },
    },
    async (req) => s.accounts.setQuota(req.params.role, req.body),
  );
}
