// Every figure BENCHMARKS.md shows, declared once: which results hold it, its unit, the peers each row is
// divided by, the scenario stated exactly (from the run's own counts), and what bounds it. The report renders
// each the same way (per-round values, median, spread, ratios by round), so a new scenario only needs its
// measurement in run.ts and an entry here (bench/README.md, "Adding a scenario").
import { NODE_BARE } from './cli-start.js';
import { DRAIN_IN_FLIGHT } from './protocol-drain.js';
import { HTTP_BATCH, HTTP_BATCH_CONNECTIONS, HTTP_CONNECTIONS } from './http-bench.js';
import { BEANSTALKD, BULLMQ, BULLMQ_HZ100, CPU, LATENESS, n, type Figure, type Mode } from './figure.js';
import { FIGURES_FLOW } from './figures-flow.js';
import { FIGURES_WIRE } from './figures-wire.js';
import { fmt } from './lib.js';
import { BULK_SIZE, CONSUMER_CONCURRENCY, FAR_MS, IN_FLIGHT } from './scenarios.js';
import { BULLMQ_SCHEDULERS } from './schedule-fires.js';
import { BODY_BYTES } from './subject.js';

export { BEANSTALKD, BULLMQ, BULLMQ_HZ100, type Column, type Figure, type Mode } from './figure.js';

/** jobs/s assumed for `POST /v1/jobs/batch` when sizing an over-the-API burst's lead (an overrun is measured). */
export const API_BULK_RATE = 20_000;

const steady = (mode: Mode, rate: number, seconds: string) =>
  `Empty system. One producer pushes ${fmt(rate)} jobs/s for ${seconds} s (single pushes on a 5 ms tick), job i due at ` +
  `start + i × ${fmt(1000 / rate, 1)} ms + ${n(mode, 'leadMs')} ms (due times spread evenly, each ${n(mode, 'leadMs')} ms after ` +
  `its push); one consumer, concurrency ${CONSUMER_CONCURRENCY}. Lateness = received − due; beanstalkd's against the whole ` +
  `second it rounds the delay up to.`;

const FIGURES_CORE: readonly Figure[] = [
  {
    id: 'enqueue',
    title: (m) => `Push: ${n(m, 'enqueue')} delayed jobs, ${IN_FLIGHT} in flight`,
    scenarios: ['enqueue', 'api-enqueue'],
    metric: 'rate',
    unit: 'jobs/s',
    better: 'higher',
    peers: [BULLMQ, BEANSTALKD],
    also: CPU,
    scenario: (m) =>
      `Empty system. ${n(m, 'enqueue')} pushes of one job each, ${IN_FLIGHT} calls in flight, every job due at one ` +
      `instant ${FAR_MS / 60_000} min after the start (none comes due); ${BODY_BYTES}-byte JSON bodies. Rate = jobs ÷ time until the last push is acknowledged.`,
    only: 'enqueue',
    bounds: `in-process: the pushing process's CPU (allocation per push), ≈ 0.5 Redis commands a job; SDK: one batch request per event-loop turn; plain HTTP: the request's fixed cost`,
    boundsDoc: 'docs/performance.md#push-over-http',
  },
  {
    id: 'bulk',
    title: (m) => `Bulk push: ${n(m, 'bulk')} jobs in calls of ${fmt(BULK_SIZE)}`,
    scenarios: ['bulk'],
    metric: 'rate',
    unit: 'jobs/s',
    better: 'higher',
    peers: [BULLMQ],
    scenario: (m) =>
      `Empty system. ${n(m, 'bulk')} jobs, ${fmt(BULK_SIZE)} per call, one call at a time, all due ${FAR_MS / 60_000} min ` +
      `after the start: delayq \`pushBatch\`, BullMQ \`addBulk\` (beanstalkd has no bulk put).`,
    only: 'bulk',
    bounds: `the store's write per job: one script call per chunk on Redis, one transaction on SQLite, the journal's commit`,
    boundsDoc: 'docs/performance.md#push-in-process',
  },
  {
    id: 'memory',
    title: () => 'Memory per pending job',
    scenarios: ['memory'],
    metric: 'bytes',
    unit: 'bytes/job',
    better: 'lower',
    peers: [BULLMQ, BEANSTALKD],
    ratioFloor: 1,
    scenario: (m) =>
      `After the push scenario: growth of Redis \`used_memory\` ÷ jobs (Redis-based systems), of the server's RSS ` +
      `(beanstalkd), of the SQLite file, on disk (embedded). The "beyond the horizon" row pushes ${n(m, 'beyond')} jobs due in 2 h.`,
    only: 'enqueue,beyond',
    rounds: 'enqueue',
    bounds: `the job's record in jemalloc's 160-byte class and listpack-sized delayed sets`,
    boundsDoc: 'docs/performance.md#memory',
  },
  {
    id: 'late1k',
    title: (m) => `Lateness at 1,000 due/s for ${n(m, 'lateS')} s: p99`,
    scenarios: ['late1k', 'api-late1k'],
    metric: 'p99',
    unit: 'ms',
    better: 'lower',
    peers: [BULLMQ, BEANSTALKD],
    also: [...LATENESS, ...CPU],
    scenario: (m) => steady(m, 1000, n(m, 'lateS')),
    only: 'late1k',
    bounds: `the event loop's jitter and GC pauses; BullMQ: Redis's \`hz\` timer`,
    boundsDoc: 'docs/performance.md#lateness',
  },
  {
    id: 'late5k',
    title: (m) => `Lateness at 5,000 due/s for ${n(m, 'late5kS')} s: p99`,
    scenarios: ['late5k'],
    metric: 'p99',
    unit: 'ms',
    better: 'lower',
    peers: [BULLMQ, BEANSTALKD],
    also: LATENESS,
    scenario: (m) => steady(m, 5000, n(m, 'late5kS')),
    only: 'late5k',
    bounds: `as at 1k/s, plus the batch a promote or reserve carries`,
    boundsDoc: 'docs/performance.md#lateness',
  },
  {
    id: 'burst',
    title: (m) => `Burst drain: ${n(m, 'burst')} jobs due at one instant`,
    scenarios: ['burst', 'api-burst'],
    metric: 'rate',
    unit: 'jobs/s',
    better: 'higher',
    peers: [BULLMQ, BEANSTALKD],
    also: [
      { metric: 'lastLate', header: 'last job late, ms' },
      { metric: 'overrun', header: 'push overran lead, ms' },
      { metric: 'missing', header: 'not delivered' },
      ...CPU,
    ],
    scenario: (m) =>
      `Empty system. ${n(m, 'burst')} jobs all due at one instant, pushed beforehand in calls of ${fmt(BULK_SIZE)} ` +
      `(delayq \`pushBatch\`, over HTTP \`POST /v1/jobs/batch\`, BullMQ \`addBulk\`; beanstalkd: single puts, ${IN_FLIGHT} in flight, ` +
      `each delay rounded up to whole seconds). Lead = 1.5 × jobs ÷ the push rate measured above (over HTTP ${fmt(API_BULK_RATE)}/s) + ` +
      `${n(m, 'burstSlackMs')} ms. Then one consumer process, concurrency ${CONSUMER_CONCURRENCY}. Rate = jobs ÷ (last delivery − first due).`,
    only: 'burst',
    bounds: `Redis's Lua per job (a record rewritten per transition) and the consumer's reserve/finish cycle; over HTTP the requests per batch`,
    boundsDoc: 'docs/performance.md#burst-drain',
  },
  {
    id: 'pending',
    title: (m) => `Lateness at 1,000 due/s with ${n(m, 'pending')} other jobs pending: p99`,
    scenarios: ['pending'],
    metric: 'p99',
    unit: 'ms',
    better: 'lower',
    peers: [BULLMQ_HZ100, BEANSTALKD],
    also: [
      ...LATENESS,
      { metric: 'preloadS', header: 'fill, s', digits: 1 },
      { metric: 'bytes', header: 'bytes/pending job' },
    ],
    scenario: (m) =>
      `Preload: ${n(m, 'pending')} jobs due ${FAR_MS / 60_000} min later (inside delayq's 1 h load horizon, so all in ` +
      `Redis), pushed in calls of ${fmt(BULK_SIZE)}. Then the 1k/s scenario above, once per round.`,
    only: 'pending',
    notAlternated:
      'each system is filled once and runs its rounds back to back on that fill (the shared Redis holds one system at a time)',
    bounds: `the same as without the backlog: reads are by due time, never over the backlog`,
    boundsDoc: 'docs/performance.md#lateness',
  },
  {
    id: 'drain',
    page: 'detail',
    title: (m) => `A burst of ${n(m, 'drain')} ready jobs drained through each protocol of one server (Redis)`,
    scenarios: ['drain'],
    metric: 'rate',
    unit: 'jobs/s',
    better: 'higher',
    peers: [],
    also: [{ metric: 'missing', header: 'not finished' }],
    scenario: (m) =>
      `One delayq server in its own process; per protocol a fresh topic of ${n(m, 'drain')} jobs ready at once, then ` +
      `drained: HTTP by the SDK \`Worker\` (concurrency ${DRAIN_IN_FLIGHT}), gRPC by one reserve stream (credit ${DRAIN_IN_FLIGHT}, ` +
      `acks on the stream), the beanstalkd protocol by ${DRAIN_IN_FLIGHT} jackd connections. Rate = jobs ÷ (last finish answered − start).`,
    only: 'drain',
    bounds: `requests per batch (HTTP), one stream (gRPC), the server's CPU per command (beanstalkd)`,
    boundsDoc: 'docs/performance.md#drain-over-the-wire',
  },
  {
    id: 'http',
    page: 'detail',
    title: () => 'delayq over HTTP, per request (Redis store, server in its own process)',
    scenarios: ['http'],
    metric: 'rate',
    unit: 'jobs/s',
    better: 'higher',
    peers: [],
    also: [
      { metric: 'p50', header: 'p50 ms', digits: 1 },
      { metric: 'p99', header: 'p99 ms', digits: 1 },
      { metric: 'errors', header: 'errors' },
    ],
    scenario: (m) =>
      `autocannon for ${n(m, 'httpS')} s after a ${n(m, 'httpWarmupS')} s warm-up: \`POST /v1/jobs\` over ${HTTP_CONNECTIONS} ` +
      `connections, \`POST /v1/jobs/batch\` of ${HTTP_BATCH} over ${HTTP_BATCH_CONNECTIONS}, jobs due in ${FAR_MS / 60_000} min; ` +
      `reserve + finish of ${n(m, 'rf')} jobs by the SDK client, 1 job a reserve. Latency per request.`,
    only: 'http',
    bounds: `Fastify's own floor per request plus delayq's ≈ 15 µs`,
    boundsDoc: 'docs/performance.md#push-over-http',
  },
  {
    id: 'restore',
    page: 'detail',
    title: (m) => `Restore of ${n(m, 'restore')} journaled jobs into an empty Redis`,
    scenarios: ['restore'],
    metric: 'restoreS',
    unit: 's',
    better: 'lower',
    digits: 1,
    peers: [],
    also: [
      { metric: 'jobsPerS', header: 'jobs/s' },
      { metric: 'fillS', header: 'journal fill (not timed), s', digits: 1 },
    ],
    scenario: (m) =>
      `${n(m, 'restore')} unfinished jobs written straight into a fresh journal, then restored into an empty Redis: ` +
      `pages read by keyset on the id while earlier pages are pushed, pushes pipelined.`,
    only: 'restore',
    notAlternated: 'one restore per database per run',
    bounds: `the restoring process's CPU per job`,
    boundsDoc: 'docs/performance.md#journal',
  },
  {
    id: 'bulk-cancel',
    page: 'detail',
    title: (m) => `Bulk cancel of ${n(m, 'bulkCancel')} jobs by bizKey beside a 1k/s stream`,
    scenarios: ['bulk-cancel'],
    metric: 'rate',
    unit: 'cancelled/s',
    better: 'higher',
    peers: [],
    also: [
      { metric: 'p99Before', header: 'stream p99 before, ms' },
      { metric: 'p99During', header: 'stream p99 during, ms' },
      { metric: 'maxDuring', header: 'stream max during, ms' },
      { metric: 'missing', header: 'stream missing' },
    ],
    scenario: (m) =>
      `${n(m, 'bulkCancel')} delayed jobs of one bizKey cancelled in-process through the job API's bulk call ` +
      `(1,000 a call, cursor to the end) while one producer pushes 1k jobs/s of another topic, each due 1 s later, and one ` +
      `consumer takes them; the stream's p99 over jobs due in the 3 s before the cancel, and while it ran.`,
    only: 'bulk-cancel',
    bounds: `chunks of 200 (Redis) or 50 (embedded, journal) with a turn of the event loop between them, the next page read while a chunk runs; on Redis the cancel script's own Lua and the due counters`,
    boundsDoc: 'docs/performance.md#bulk-cancel',
  },
  {
    id: 'schedules',
    page: 'detail',
    title: (m) => `Schedule fire lateness: ${n(m, 'schedules')} schedules ticking every second: p99`,
    scenarios: ['schedules'],
    metric: 'p99',
    unit: 'ms',
    better: 'lower',
    peers: [BULLMQ_SCHEDULERS],
    also: [
      { metric: 'p50', header: 'p50 ms' },
      { metric: 'max', header: 'max ms' },
      { metric: 'fired', header: 'share fired', digits: 3 },
      { metric: 'doubled', header: 'doubled' },
    ],
    scenario: (m) =>
      `delayq: ${n(m, 'schedules')} interval schedules (\`everyMs: 1000\`), one node on Redis. BullMQ: as many ` +
      `\`upsertJobScheduler(id, { every: 1000 })\` on a Redis of its own, one Worker (concurrency 100). Ticks counted for ` +
      `${n(m, 'scheduleS')} s once all are in place; lateness = consumer got the tick's job − the tick.`,
    only: 'schedules',
    bounds: `the schedule runner pushes each tick ahead as a delayed job, so the job timer's lateness applies`,
    boundsDoc: 'docs/schedules.md#fire-lateness',
  },
  {
    id: 'cli',
    page: 'detail',
    title: () => "The CLI's start beside a bare node",
    scenarios: ['cli'],
    metric: 'ms',
    unit: 'ms',
    better: 'lower',
    peers: [NODE_BARE],
    scenario: (m) =>
      `Wall time from spawn to exit of \`node dist/cli/main.js\` (the built \`delayq\` command): \`--help\`, and against ` +
      `delayq's built server on the embedded store in its own process, \`stats\` (an empty store) and \`get\` of a ` +
      `missing id (exit code 4); \`node -e 0\` beside them. Each round runs every command ${n(m, 'cliRuns')} times, the ` +
      `commands taking turns; a round's value is each command's median.`,
    only: 'cli',
    notAlternated: 'the commands take turns within each round, so every round shares its load among them',
    bounds: `Node's own start; client commands load the SDK and the command line parser, never the server's libraries`,
    boundsDoc: 'docs/cli.md',
  },
  {
    id: 'due',
    page: 'detail',
    title: (m) => `Due-time histogram over ${n(m, 'dueJobs')} delayed jobs`,
    scenarios: ['due'],
    metric: 'ms',
    unit: 'ms',
    better: 'lower',
    peers: [],
    also: [{ metric: 'jobs', header: 'jobs counted' }],
    scenario: (m) =>
      `${n(m, 'dueJobs')} delayed jobs spread evenly over the next 30 days (one topic, one Redis partition); ` +
      `\`GET /v1/stats/due\` in-process, each view from the start of its current bucket; each value is the median of 3 reads.`,
    only: 'due',
    notAlternated: 'one read series per store per run',
    bounds: `Redis reads its due-time counters; SQLite counts the index entries in range`,
    boundsDoc: 'docs/due-histogram.md',
  },
];

/** Every figure, in the page's order: each over-the-wire figure after the core figure it extends. */
export const FIGURES: readonly Figure[] = (() => {
  const out: Figure[] = [];
  const place = (f: Figure) => {
    out.push(f);
    for (const w of FIGURES_WIRE) if (w.after === f.id) place(w.figure);
  };
  [...FIGURES_CORE, ...FIGURES_FLOW].forEach(place);
  return out;
})();
