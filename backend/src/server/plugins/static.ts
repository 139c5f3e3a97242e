// The web UI: frontend/dist at /, with every other non-API GET answered by index.html so the
// single-page app's own routes load on a refresh.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** frontend/dist in this repository, from backend/src/server or backend/dist/server alike. */
export const FRONTEND_DIST = fileURLToPath(new URL('../../../../frontend/dist/', import.meta.url));

export async function registerStatic(app: FastifyInstance, dir: string | null): Promise<boolean> {
  if (!dir || !existsSync(join(dir, 'index.html'))) return false;
  await app.register(fastifyStatic, { root: dir, prefix: '/', wildcard: false, index: 'index.html' });
  return true;
}
