// The web UI: frontend/dist at /, with every other non-API GET answered by index.html so the
// single-page app's own routes load on a refresh. Its files are public, declared on their routes.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/** frontend/dist in this repository, from backend/src/server or backend/dist/server alike. */
export const FRONTEND_DIST = fileURLToPath(new URL('../../../../frontend/dist/', import.meta.url));

/** Registers the UI's files; index.html's text (for the single-page app's routes), or null for no UI. */
export async function registerStatic(app: FastifyInstance, dir: string | null): Promise<string | null> {
  if (!dir || !existsSync(join(dir, 'index.html'))) return null;
  await app.register(async (scope) => {
    scope.addHook('onRoute', (r) => {
      r.config = { ...r.config, access: 'public' };
    });
    await scope.register(fastifyStatic, { root: dir, prefix: '/', wildcard: false, index: 'index.html' });
  });
  return readFileSync(join(dir, 'index.html'), 'utf8');
}
