/**
 * The server under fuzz, in its own process so that a crash is seen as a crash (the parent watches its exit):
 * the whole node as `delayq serve` builds it (SQLite in memory, delivery bindings, /metrics), auth on (an admin and an `orders.` token), a small body limit, a restore handler that
 * only counts, the real Fastify app listening on 127.0.0.1:PORT. Warnings and errors go to stderr as pino
 * JSON, so the parent can report any 5xx with its cause.
 * Usage: node --import tsx test/fuzz/fuzz-server.ts PORT
 */
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { createRuntime } from '../../src/runtime.js';
import { buildApp } from '../../src/server/app.js';
import { FUZZ_BODY_LIMIT, FUZZ_TOKENS } from './fuzz-settings.js';

const port = Number(process.argv[2]);
const config = loadConfig({
  env: {},
  overrides: {
    sqlite: { path: ':memory:' },
    http: { bodyLimitBytes: FUZZ_BODY_LIMIT },
    jobs: { bodyMaxBytes: FUZZ_BODY_LIMIT / 4 },
    auth: {
      tokens: [
        { token: FUZZ_TOKENS.admin, name: 'fuzz-admin' },
        { token: FUZZ_TOKENS.scoped, name: 'fuzz-orders', topics: ['orders.'] },
      ],
    },
    // On, but high: the limiter's code path runs on every request without refusing the fuzzer.
    rateLimit: { max: 10_000_000, windowMs: 60_000 },
  },
});
const logger = pino({ level: 'warn' }, pino.destination(2));
const runtime = createRuntime(config, { logger });
await runtime.start();
const app = await buildApp(runtime.service, config, {
  logger,
  sinks: runtime.sinks,
  metrics: runtime.metrics,
  rateLimits: runtime.rateLimits,
  restore: {
    restore: async () => 'restored 0 jobs',
    restoreJob: async (id) => `restored ${id}`,
    clearAll: async () => 'cleared 0 jobs',
  },
});
await app.listen({ host: '127.0.0.1', port });
process.stdout.write(`listening ${port}\n`);
