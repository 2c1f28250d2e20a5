// What Fastify itself costs per request on this machine: a bare Fastify (the version delayq uses) with one
// POST /v1/jobs route that parses the JSON body and answers 201 with a push answer of the same size as
// delayq's, prepared once. No validation, no store. The bench's http-floor scenario (bench/http-floor.ts) and
// bench/probes/http-clients.ts (PROBE_SERVERS=bench/probes/fastify-floor.mjs) drive it like delayq's server to set
// delayq's per-request CPU beside Fastify's floor.
// Usage: node bench/probes/fastify-floor.mjs HTTP_PORT
import Fastify from 'fastify';

const port = Number(process.argv[2]);
if (!port) throw new Error('usage: fastify-floor.mjs HTTP_PORT');
const answer = JSON.stringify({
  created: true,
  job: {
    id: '01JDQ8ZK8X3V7N0W5T2H4C6B9M',
    topic: 'probe',
    tag: null,
    bizKey: null,
    body: { d: 0, pad: 'x'.repeat(80) },
    state: 'delayed',
    runAt: 1764045600000,
    priority: 0,
    ttrMs: 30000,
    ttlMs: null,
    retry: { maxAttempts: 3, backoff: 'exponential' },
    attempts: 0,
    lastError: null,
    createdAt: 1764043800000,
    readyAt: null,
    reservedAt: null,
    finishedAt: null,
    deadlineAt: null,
  },
});
const app = Fastify({ logger: false });
app.post('/v1/jobs', async (_request, reply) => reply.status(201).type('application/json').send(answer));
await app.listen({ host: '127.0.0.1', port });
const stop = async () => {
  await app.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
process.on('disconnect', () => void stop());
