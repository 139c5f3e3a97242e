// Labs: what each one is (kernel, stacks, cores, TCG or KVM, busy or not), and boot, power off or
// reset it. Changing a lab is for admins and instructors; a busy lab is not touched.

import { cpus, totalmem } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LAB_NAME } from '../../service/labDriver.js';
import { ServiceError } from '../../service/types.js';
import type { Services } from '../context.js';
import { LabAfterAction, LabSchema } from '../schemas.js';
import { errorReplies } from './docs.js';

/** Lab VMs this host can run side by side: 2 GiB each with 2 GiB left for the host, one per core. */
export function hostLabCapacity(): number {
  return Math.max(1, Math.min(cpus().length, Math.floor((totalmem() / 2 ** 30 - 2) / 2.25)));
}

export async function labRoutes(app: FastifyInstance, { s }: { s: Services }) {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const labs = async () => s.driver.labs(await s.queue.activeLabs());
  r.get(
    '/labs',
    { schema: { tags: ['labs'], summary: 'Every lab and its state', response: { 200: z.array(LabSchema) } } },
    labs,
  );
  r.post(
    '/labs/:name/:action',
    {
      config: { access: ['admin', 'instructor'] },
      schema: {
        tags: ['labs'],
        summary: 'Boot (returns at once; state says booting), power off or reset a lab',
        params: z.object({
          name: z.string().regex(LAB_NAME, { error: 'must be a lab name (letters, digits, _ -)' }),
          action: z.enum(['boot', 'down', 'reset'], { error: 'must be boot, down or reset' }),
        }),
        response: { 200: LabAfterAction, 202: LabAfterAction, ...errorReplies(409) },
      },
    },
    async (req, reply) => {
      const { name, action } = req.params;
      if (action !== 'boot' && (await s.queue.activeLabs()).has(name))
        throw new ServiceError(409, `lab ${name} is running an experiment; stop the run first`);
      if (action === 'boot') {
        // A lab VM takes 2 GiB and a core's worth of CPU: a host boots no more than it can hold.
        const all = await labs();
        const up = all.filter((l) => l.state !== 'down');
        if (!up.some((l) => l.name === name) && up.length >= hostLabCapacity())
          throw new ServiceError(
            409,
            `this host holds at most ${hostLabCapacity()} lab VM(s) (2 GiB and a core each); ${up.map((l) => l.name).join(', ')} already up: power one off first`,
          );
        await s.driver.boot(name);
      } else if (action === 'down') await s.driver.down(name);
      else await s.driver.reset(name);
      const lab = (await labs()).find((l) => l.name === name);
      return reply.code(action === 'boot' ? 202 : 200).send(lab ?? { name, state: 'down' });
    },
  );
}
