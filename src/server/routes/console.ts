import fastifyStatic from '@fastify/static';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DelayqError } from '../../core/errors.js';
import type { DelayqApp } from '../route-context.js';

/** console/dist at the package root: three levels up from both src/server/routes and dist/server/routes. */
export const CONSOLE_DIR = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

/**
 * The web console (docs/console.md) at /console/: static files built by `npm run build`
 * (scripts/build-console.mjs). The files are public (they hold no data); the console then calls the
 * HTTP API with the token the user gives it, so auth is the API's.
 */
export async function registerConsoleRoutes(app: DelayqApp, dir = CONSOLE_DIR): Promise<void> {
  app.get('/console', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console/'));
  if (!existsSync(dir)) {
    app.get('/console/*', { schema: { hide: true } }, async () => {
      throw new DelayqError('E_NOT_FOUND', 'the console is not built: run `npm run build`');
    });
    return;
  }
  await app.register(fastifyStatic, { root: dir, prefix: '/console/', index: ['index.html'], schemaHide: true });
}
