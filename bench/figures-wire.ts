// The figures of delayq over the wire that extend a core figure (figures.ts places each after the one named by
// `after`): what a push costs the server by client, the HTTP layer against a bare Fastify route, the
// beanstalkd protocol against beanstalkd and the durable floor, and lateness over the API split by stage.
import { BEANSTALKD, BULLMQ, n, type Figure } from './figure.js';
import { FASTIFY_FLOOR, FLOOR_SINGLE, SDK_PUSHES } from './http-floor.js';
import { HTTP_CONNECTIONS } from './http-bench.js';
import { LATE_API_RATE } from './lateness-breakdown.js';
import { fmt } from './lib.js';
import { BULK_SIZE, CONSUMER_CONCURRENCY, FAR_MS, IN_FLIGHT } from './scenarios.js';
import { REDIS_FLOOR } from './subjects/redis-floor-subject.js';

export const SDK_REDIS = 'delayq · Redis · SDK';

export const FIGURES_WIRE: readonly { after: string; figure: Figure }[] = [
  {
    after: 'enqueue',
    figure: {
      id: 'push-cost',
      title: () => "Server CPU a push costs over HTTP, one request per job against the SDK's batches (Redis)",
      scenarios: ['api-enqueue'],
      rows: / · Redis · /,
      metric: 'serverUs',
      unit: 'µs/job',
      better: 'lower',
      digits: 1,
      peers: [SDK_REDIS],
      also: [
        { metric: 'rate', header: 'jobs/s' },
        { metric: 'redisUs', header: 'Redis CPU µs/job', digits: 1 },
        { metric: 'cmds', header: 'Redis commands/job', digits: 2 },
        { metric: 'clientUs', header: 'client CPU µs/job', digits: 1 },
      ],
      scenario: (m) =>
        `The push scenario above (${n(m, 'enqueue')} single pushes, ${IN_FLIGHT} in flight) over HTTP to delayq on Redis: ` +
        `the delayq server process's CPU (/proc) ÷ jobs, Redis's CPU (INFO cpu) and commands (INFO commandstats) ÷ jobs ` +
        `on the benchmark's own redis-server, the client's CPU (the benchmark process; Python's own process for its row).`,
      only: 'enqueue',
      rounds: 'enqueue',
      bounds: `a single push is a request of its own; the server groups the store calls of one turn, the SDK the pushes of one turn`,
      boundsDoc: 'docs/performance.md#push-over-http',
    },
  },
  {
    after: 'late1k',
    figure: {
      id: 'late-api',
      title: (m) =>
        `Lateness of ${n(m, 'lateApiJobs')} preloaded jobs coming due at ${fmt(LATE_API_RATE)}/s, over the API and the protocol: p99`,
      scenarios: ['late-api'],
      metric: 'p99',
      unit: 'ms',
      better: 'lower',
      peers: [BULLMQ, BEANSTALKD],
      also: [
        { metric: 'p50', header: 'p50 ms' },
        { metric: 'max', header: 'max ms' },
        { metric: 'missing', header: 'not delivered' },
        { metric: 'overrunMs', header: 'preload overran, ms' },
        { metric: 'dueReadyP99', header: 'due → ready p99 ms' },
        { metric: 'readyReservedP99', header: 'ready → reserved p99 ms' },
        { metric: 'tripP99', header: 'reserved → received p99 ms' },
        { metric: 'jobsPerPromote', header: 'jobs/promote call', digits: 1 },
        { metric: 'jobsPerReserve', header: 'jobs/reserve request', digits: 1 },
        { metric: 'serverUs', header: 'server CPU µs/job', digits: 1 },
      ],
      scenario: (m) =>
        `The consumer connects (SDK Worker, concurrency ${CONSUMER_CONCURRENCY}, or the plain reserve loop, or ${CONSUMER_CONCURRENCY} jackd ` +
        `connections), then ${n(m, 'lateApiJobs')} jobs are pushed, job i due at start + ${n(m, 'lateApiLeadMs')} ms + i ms ` +
        `(due times spread evenly: ${fmt(LATE_API_RATE)} due/s; over HTTP \`POST /v1/jobs/batch\` of ${fmt(BULK_SIZE)}, BullMQ \`addBulk\`, ` +
        `beanstalkd protocol single puts, ${IN_FLIGHT} in flight, delays rounded up to whole seconds). Lateness = received − due. ` +
        `Over HTTP from each job's \`readyAt\` and \`reservedAt\`: due → ready (timer wake-up and promote), ready → reserved ` +
        `(long-poll hand-off), reserved → received (the answer's trip); jobs ÷ the server's \`promoteDue\` store calls (its /metrics), ` +
        `jobs ÷ the consumer's reserve requests. Server CPU (the process, + Redis for the protocol) over the whole scenario, preload included.`,
      only: 'late-api',
      bounds: `the timer's wake-up and one promote call per wake-up, a waiting reserve answered at once, the event loops' jitter; BullMQ: Redis's \`hz\` timer`,
      boundsDoc: 'docs/performance.md#lateness-over-the-api',
    },
  },
  {
    after: 'burst',
    figure: {
      id: 'bs-drain',
      title: (m) => `beanstalkd protocol: ${n(m, 'bsJobs')} jobs ready on put, drained`,
      scenarios: ['bs-drain'],
      metric: 'rate',
      unit: 'jobs/s',
      better: 'higher',
      peers: [REDIS_FLOOR, BEANSTALKD],
      also: [
        { metric: 'putRate', header: 'puts/s' },
        { metric: 'serverUs', header: 'server CPU µs/job (drain)', digits: 1 },
        { metric: 'redisUs', header: 'of which Redis', digits: 1 },
        { metric: 'cmds', header: 'Redis commands/job', digits: 2 },
        { metric: 'missing', header: 'not delivered' },
      ],
      scenario: (m) =>
        `Each server in its own process, the same jackd clients: ${n(m, 'bsJobs')} puts with no delay over 10 connections, ` +
        `${IN_FLIGHT} in flight; then ${CONSUMER_CONCURRENCY} connections reserve-with-timeout and delete until all are gone. Rate = ` +
        `jobs ÷ (last job received − consumers connected); server CPU = the process (+ Redis) over the drain alone.`,
      only: 'bs-drain',
      bounds: `the server's CPU per command and the durable work per job`,
      boundsDoc: 'docs/performance.md#beanstalkd-protocol',
    },
  },
  {
    after: 'bs-drain',
    figure: {
      id: 'bs-burst',
      title: (m) => `beanstalkd protocol: a burst of ${n(m, 'bsJobs')} jobs due at one instant, promotion included`,
      scenarios: ['bs-burst'],
      metric: 'cpuVsDrain',
      unit: '× the drain',
      better: 'lower',
      digits: 2,
      peers: [],
      also: [
        { metric: 'serverUs', header: 'server CPU µs/job', digits: 1 },
        { metric: 'redisUs', header: 'of which Redis', digits: 1 },
        { metric: 'rate', header: 'jobs/s' },
        { metric: 'lastLate', header: 'last job late, ms' },
        { metric: 'overrun', header: 'puts overran the lead, ms' },
        { metric: 'missing', header: 'not delivered' },
      ],
      scenario: (m) =>
        `After the drain above, on the same server: ${n(m, 'bsJobs')} puts due at one instant (whole seconds: 1.5 × puts ÷ the ` +
        `put rate just measured + ${n(m, 'burstSlackMs')} ms, rounded up), the ${CONSUMER_CONCURRENCY} consumer connections waiting. ` +
        `Value = server CPU per job from the consumers' start to the last job (waiting, promotion, drain) ÷ the same round's ` +
        `ready-on-put drain's. Rate = jobs ÷ (last job − first due).`,
      only: 'bs-drain',
      rounds: 'bs-drain',
      bounds: `promotion moves a burst's jobs in batches; what it adds per job over a ready-on-put drain`,
      boundsDoc: 'docs/performance.md#beanstalkd-protocol',
    },
  },
  {
    after: 'http',
    figure: {
      id: 'http-floor',
      title: () => "The HTTP layer's cost per request against a bare Fastify route",
      scenarios: ['http-floor'],
      metric: 'serverUs',
      unit: 'µs/request',
      better: 'lower',
      digits: 1,
      peers: [FASTIFY_FLOOR],
      also: [
        { metric: 'aboveFloorUs', header: 'above the floor, µs', digits: 1 },
        { metric: 'rate', header: 'requests/s' },
        { metric: 'redisUs', header: 'Redis CPU µs/request', digits: 1 },
        { metric: 'p99', header: 'p99 ms', digits: 1 },
        { metric: 'errors', header: 'errors' },
      ],
      scenario: (m) =>
        `autocannon for ${n(m, 'httpS')} s after a ${n(m, 'httpWarmupS')} s warm-up, \`POST /v1/jobs\` of one job due in ` +
        `${FAR_MS / 60_000} min over ${HTTP_CONNECTIONS} connections, to each server in its own process: Fastify (delayq's version) with one ` +
        `route answering a prepared push answer of the same size (\`bench/probes/fastify-floor.mjs\`: JSON parsed, nothing validated or ` +
        `stored), and delayq's built server as \`delayq serve\` runs it. Server CPU (/proc) ÷ requests answered.`,
      only: 'http-floor',
      bounds: `Fastify's own floor per request; above it delayq's validation, auth, logging, metrics, serialisation and its store call`,
      boundsDoc: 'docs/performance.md#push-over-http',
      page: 'detail',
    },
  },
  {
    after: 'http-floor',
    figure: {
      id: 'push-floor',
      title: () => "A single push's server CPU against the SDK's batched push and against a bare Fastify route",
      scenarios: ['push-floor'],
      metric: 'serverUs',
      unit: 'µs/push',
      better: 'lower',
      digits: 1,
      peers: [SDK_PUSHES, FLOOR_SINGLE],
      also: [
        { metric: 'rate', header: 'pushes/s' },
        { metric: 'redisUs', header: 'Redis CPU µs/push', digits: 1 },
      ],
      scenario: (m) =>
        `In the rounds of the figure above, to the same three servers: ${n(m, 'enqueue')} pushes of one job due in ` +
        `${FAR_MS / 60_000} min, ${IN_FLIGHT} in flight, from the benchmark process as the push scenario sends them: one ` +
        `\`POST /v1/jobs\` a push over one kept-alive node:http agent, and (delayq on Redis) the SDK's \`client.push\`, which ` +
        `sends a turn's pushes as one \`POST /v1/jobs/batch\`. Server CPU (/proc) ÷ pushes; the bare route parses the JSON ` +
        `and answers a prepared 201, so its row is what any one-request-a-push server on Fastify spends before doing anything.`,
      only: 'http-floor',
      rounds: 'http-floor',
      bounds: `a request's fixed cost in Node's HTTP server and Fastify, which only fewer requests (a batch) divide`,
      boundsDoc: 'docs/performance.md#single-pushes-from-plain-clients',
      page: 'detail',
    },
  },
];
