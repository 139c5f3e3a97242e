// Users (admins manage them; instructors list their class) and the quotas of each role.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ROLES, ServiceError } from '../../service/types.js';
import { requireRole, type Services, userOf } from '../context.js';

const Role = z.enum(ROLES, { error: `must be one of ${ROLES.join(', ')}` });
const Username = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{1,31}$/, {
  error: 'must be 2-32 letters, digits, _ . - (starting with a letter or digit)',
});
const Password = z
  .string()
  .min(8, { error: 'must be at least 8 characters' })
  .max(1024, { error: 'must be at most 1024 characters' });
const ClassName = z.string().min(1).max(64, { error: 'must be at most 64 characters' }).nullable();
const Id = z.object({ id: z.string().max(64) });

export const QuotaSchema = z.object({
  concurrentRuns: z.number().int().min(0).max(1000),
  maxDurationS: z.number().int().min(1).max(86_400),
  maxRateMbps: z.number().min(0.01).max(10_000),
  maxFlows: z.number().int().min(1).max(64),
});

export async function userRoutes(app: FastifyInstance, { s }: { s: Services }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/users',
    { schema: { tags: ['users'], summary: 'Users: all (admin) or my class (instructor)' } },
    async (req) => {
      const me = requireRole(req, 'admin', 'instructor');
      const all = s.accounts.listUsers();
      return me.role === 'admin'
        ? all
        : all.filter((u) => u.id === me.id || (me.class && u.role === 'student' && u.class === me.class));
    },
  );
  r.post(
    '/users',
    {
      schema: {
        tags: ['users'],
        summary: 'Create a user (admin)',
        body: z.object({ username: Username, password: Password, role: Role, class: ClassName.optional() }),
      },
    },
    async (req, reply) => {
      requireRole(req, 'admin');
      return reply.code(201).send(await s.accounts.createUser(req.body));
    },
  );
  r.patch(
    '/users/:id',
    {
      schema: {
        tags: ['users'],
        summary: 'Change a user (admin); anyone may change their own password',
        params: Id,
        body: z.object({ password: Password.optional(), role: Role.optional(), class: ClassName.optional() }),
      },
    },
    async (req) => {
      const me = userOf(req);
      const own = me.id === req.params.id && req.body.role === undefined && req.body.class === undefined;
      if (me.role !== 'admin' && !own)
        throw new ServiceError(403, 'only admin may change other users, roles or classes');
      return s.accounts.updateUser(req.params.id, req.body);
    },
  );
  r.delete(
    '/users/:id',
    { schema: { tags: ['users'], summary: 'Delete a user (admin)', params: Id } },
    async (req) => {
      requireRole(req, 'admin');
      s.accounts.deleteUser(req.params.id);
      return { ok: true };
    },
  );

  r.get('/quotas', { schema: { tags: ['users'], summary: 'Quotas of every role' } }, async () =>
    s.accounts.getQuotas(),
  );
  r.put(
    '/quotas/:role',
    {
      schema: {
        tags: ['users'],
        summary: "Set a role's quota (admin)",
        params: z.object({ role: Role }),
        body: QuotaSchema,
      },
    },
    async (req) => {
      requireRole(req, 'admin');
      return s.accounts.setQuota(req.params.role, req.body);
    },
  );
}
